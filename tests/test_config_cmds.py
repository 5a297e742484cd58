"""`pokerroom init` and `pokerroom check-config`; the room config, the schedule and the structure
templates checked by type and name, one line per problem naming the file and the key; the
shipped defaults are safe (loopback, no deposits, nothing that costs the house money)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pokerroom.cli import main
from pokerroom.resources import default_config, default_schedule
from pokerroom.server.settings import RoomSettings, SettingsError, load_settings, parse_settings
from pokerroom.typed_config import ConfigProblems
from tournaments.director.deal_flow import DealSettings
from tournaments.director.errors import DirectorError
from tournaments.ops.schedule_file import (
    BOUNTY_KINDS,
    DEAL_KINDS,
    ENTRY_KINDS,
    load_schedule_file,
    parse_schedule,
)
from tournaments.templates import BREAK_KINDS, LEVEL_KINDS, STRUCTURE_KINDS, structure_from_mapping

DOCS = Path(__file__).resolve().parent.parent / "docs"
SNG = """
[[sit_and_go]]
name = "duo"
structure = "turbo"
buy_in = 100
fee = 10
players = 2
"""
BLITZ = """
[[structure]]
name = "blitz"
starting_stack = 1000
level_minutes = 1
levels = [[10, 20], [20, 40]]
"""


def run(*args: str) -> tuple[int, list[str], list[str]]:
    """Exit code, stdout lines and stderr lines of one `pokerroom` call."""
    result = CliRunner().invoke(main, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout.splitlines(), result.stderr.splitlines()


# -- init ------------------------------------------------------------------------------------
def test_init_writes_a_config_that_runs_its_own_schedule(tmp_path: Path) -> None:
    code, out, err = run("init", str(tmp_path / "room"))
    assert code == 0 and not err
    room, schedule = tmp_path / "room" / "room.toml", tmp_path / "room" / "schedule.toml"
    assert f"wrote {room}" in out and f"wrote {schedule}" in out
    for command in ("check-config --config", "db upgrade --db", "staff add", "serve --config"):
        assert any(command in line for line in out), command
    assert any(f"serve --config {room}" in line for line in out)
    settings = load_settings(room)
    assert settings.schedule == str(schedule)  # not the shipped one: the copy beside it
    assert load_schedule_file(Path(settings.schedule)).entries
    assert (settings.host, settings.allow_deposit) == ("127.0.0.1", False)
    # Editing the written schedule changes what the written config runs.
    schedule.write_text(SNG)
    (entry,) = load_schedule_file(Path(load_settings(room).schedule or "")).entries
    assert entry.name == "duo"


def test_init_defaults_to_the_working_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("init")[0] == 0
    assert (tmp_path / "room.toml").is_file() and (tmp_path / "schedule.toml").is_file()


@pytest.mark.parametrize("present", ["room.toml", "schedule.toml"])
def test_init_never_overwrites_and_writes_nothing_then(tmp_path: Path, present: str) -> None:
    (tmp_path / present).write_text("# mine\n")
    code, out, err = run("init", str(tmp_path))
    assert code == 2 and not out
    assert err == [f"pokerroom init: {tmp_path / present} exists; nothing written"]
    assert (tmp_path / present).read_text() == "# mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [present]  # the other one not written


# -- check-config: a good config ------------------------------------------------------------
def test_check_config_lists_tables_schedule_and_endpoints(tmp_path: Path) -> None:
    run("init", str(tmp_path))
    code, out, _ = run("check-config", "--config", str(tmp_path / "room.toml"))
    assert code == 0
    assert f"schedule: {tmp_path / 'schedule.toml'}" in out
    assert "players: 127.0.0.1:9999 (plain TCP)" in out
    assert "staff: tcp:9998:interface=127.0.0.1" in out
    assert "currency: USD; deposits: off" in out
    assert "cash tables: 7" in out
    assert "  nlhe-10-25-6max: NT 6 seats, blinds 0.10/0.25 USD, buy-in 10.00-25.00 USD" in out
    assert any(line.startswith("  hourly-turbo: MTT every 60 min from minute 0") for line in out)
    assert all(len(line) <= 100 for line in out if not line.startswith(("config", "schedule")))


def test_check_config_json_keeps_cents_and_the_schedule_option_wins(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(BLITZ + SNG.replace('"turbo"', '"blitz"'))
    code, out, _ = run("check-config", "--schedule", str(tmp_path / "mine.toml"), "--json")
    assert code == 0 and len(out) == 1
    report = json.loads(out[0])
    assert report["ok"] and report["schedule"] == str(tmp_path / "mine.toml")
    (duo,) = report["tournaments"]
    assert (duo["name"], duo["kind"], duo["buy_in"], duo["fee"]) == ("duo", "sit_and_go", 100, 10)
    micro = next(t for t in report["tables"] if t["table_id"] == "nlhe-micro-6max")
    assert (micro["small_blind"], micro["big_blind"]) == (1, 2)
    assert report["allow_deposit"] is False
    code, out, _ = run("check-config", "--schedule", "", "--json")
    assert json.loads(out[0])["tournaments"] == [] and json.loads(out[0])["schedule"] is None


# -- check-config: one line per problem -----------------------------------------------------
ROOM_PROBLEMS = [
    ('[server]\nport = "abc"\n', '[server] port: expected an integer, got "abc"'),
    ("[server]\nprot = 1\n", "[server] prot: unknown key (did you mean port?)"),
    ("[sever]\nport = 1\n", "[sever]: unknown section (did you mean [server]?)"),
    ("[dev]\nallow_deposit = 1\n", "[dev] allow_deposit: expected true or false, got 1"),
    ('[session]\nheartbeat_seconds = "30"\n', "[session] heartbeat_seconds: expected a number"),
    ('[chat]\nhand_talk_mode = "never"\n', '[chat] hand_talk_mode: expected one of "all", '),
    ("[chat]\nblocked_words = [1]\n", "[chat] blocked_words: expected a list of strings, got [1]"),
    ("[table_caps]\nmobile = 0\n", "[table_caps] mobile: expected at least 1, got 0"),
    ("[tables.t]\nsmall_blind = 1.5\n", "[tables.t] small_blind: expected an integer, got 1.5"),
    ('[tables.t]\nvariant = "XX"\n', '[tables.t] variant: expected one of "NT", "PO", "FT"'),
    ("[tables.t]\nsmall_blind = 5\nbig_blind = 2\n", "[tables.t]: blinds must be positive"),
    ("[accounts]\nlogin_window_minutes = 0\n", "[accounts]: login_window_minutes must be"),
    ("[admin]\nendpoint = 9998\n", "[admin] endpoint: expected a string, got 9998"),
    ("[jobs]\nbatch = true\n", "[jobs] batch: expected an integer, got true"),
    ("[tournaments]\nschedule = 1\n", "[tournaments] schedule: expected a string, got 1"),
    ("server = 1\n", "[server]: expected a table, got 1"),
]


@pytest.mark.parametrize(("text", "line"), ROOM_PROBLEMS)
def test_each_room_problem_is_one_line_naming_file_and_key(
    tmp_path: Path, text: str, line: str
) -> None:
    config = tmp_path / "room.toml"
    config.write_text(text)
    code, out, _ = run("check-config", "--config", str(config), "--schedule", "")
    assert code == 1
    assert len(out) == 1 and out[0].startswith(f"{config}: {line}"), out


SCHEDULE_PROBLEMS = [
    ('guarantee = "5"', '[[sit_and_go]] "duo" guarantee: expected an integer, got "5"'),
    ("guarante = 5", '[[sit_and_go]] "duo" guarante: unknown key (did you mean guarantee?)'),
    ('format = "turbo"', '[[sit_and_go]] "duo" format: expected one of "freezeout", '),
    ("every_minutes = 60", '[[sit_and_go]] "duo" every_minutes: not a key of [[sit_and_go]]'),
    ("max_seats = 11", '[[sit_and_go]] "duo" max_seats: expected 2 to 10, got 11'),
    ("fee = -1", '[[sit_and_go]] "duo" fee: expected 0 or more, got -1'),
    ('deals = { method = "split" }', '[[sit_and_go]] "duo" deals.method: expected one of "icm"'),
    ('deals = { allowed = "yes" }', '[[sit_and_go]] "duo" deals.allowed: expected true or false'),
    ("deals = { max_players = 1 }", '[[sit_and_go]] "duo" deals: deals need max_players >= 2'),
    ('bounty = { format = "pko" }', '[[sit_and_go]] "duo" bounty.share_bps: missing (expected'),
    ("bounty = { share_bps = 0 }", '[[sit_and_go]] "duo" bounty: bounty share_bps must be 1..'),
    ("outage = { resume_within = 1 }", '[[sit_and_go]] "duo" outage.resume_within: unknown key'),
    ('structure = "blits"', '[[sit_and_go]] "duo" structure: unknown structure "blits"'),
]


@pytest.mark.parametrize(("extra", "line"), SCHEDULE_PROBLEMS)
def test_each_schedule_problem_is_one_line_naming_file_entry_and_key(
    tmp_path: Path, extra: str, line: str
) -> None:
    """Issue text: a wrong type or a misspelled key was a raw Python error; now one line."""
    schedule = tmp_path / "schedule.toml"
    key = extra.split(" =")[0]
    text = "\n".join(row for row in SNG.splitlines() if not row.startswith(f"{key} ="))
    schedule.write_text(f"{text}\n{extra}\n")
    code, out, _ = run("check-config", "--schedule", str(schedule))
    assert code == 1
    assert len(out) == 1 and out[0].startswith(f"{schedule}: {line}"), out


STRUCTURE_PROBLEMS = [
    ('level_minutes = "5"', 'level_minutes: expected a number of minutes above 0, got "5"'),
    ("level_minutes = 0", "level_minutes: expected a number of minutes above 0, got 0"),
    ("starting_stack = 1.5", "starting_stack: expected an integer, got 1.5"),
    ('ante = "big"', 'ante: expected one of "none", "classic", "big_blind", got "big"'),
    ('breaks = { mode = "often" }', 'breaks.mode: expected one of "none", "after_levels"'),
    ("breaks = { minutes = -5 }", "breaks.minutes: expected a number of minutes above 0, got -5"),
    ("breaks = { every = 5 }", "breaks.every: unknown key (did you mean every_levels?)"),
    ("levels = [[10, 20], [5, 10]]", "level 2: big blind goes down"),
    ("levels = [[10, 20, 0, 0]]", "level 1: expected [sb, bb] or [sb, bb, ante], got"),
    ("levels = [{ sb = 10, bb = 20, minute = 3 }]", "level 1 minute: unknown key (did you mean"),
    ('levels = [{ sb = 10, bb = "20" }]', 'level 1 bb: expected an integer, got "20"'),
]


@pytest.mark.parametrize(("setting", "line"), STRUCTURE_PROBLEMS)
def test_each_structure_problem_is_one_line_naming_the_key(
    tmp_path: Path, setting: str, line: str
) -> None:
    key = setting.split(" =")[0]
    lines = [row for row in BLITZ.splitlines() if not row.startswith(f"{key} =")]
    schedule = tmp_path / "schedule.toml"
    schedule.write_text("\n".join([*lines, setting, SNG.replace('"turbo"', '"blitz"')]))
    code, out, _ = run("check-config", "--schedule", str(schedule))
    assert code == 1
    assert len(out) == 1 and out[0].startswith(f'{schedule}: [[structure]] "blitz"'), out
    assert line in out[0]


def test_every_problem_of_both_files_is_listed(tmp_path: Path) -> None:
    config, schedule = tmp_path / "room.toml", tmp_path / "schedule.toml"
    config.write_text('[server]\nport = "x"\nhost = 1\n[tournaments]\nschedule = "schedule.toml"\n')
    schedule.write_text(SNG + 'guarantee = "5"\n[[mtt]]\nname = "m"\n')
    code, out, _ = run("check-config", "--config", str(config))
    assert code == 1 and len(out) == 7, out
    assert sum(line.startswith(f"{config}: ") for line in out) == 2
    assert sum(line.startswith(f"{schedule}: ") for line in out) == 5  # guarantee + 4 missing
    code, out, _ = run("check-config", "--config", str(config), "--json")
    assert json.loads(out[0]) == {"ok": False, "problems": json.loads(out[0])["problems"]}
    assert len(json.loads(out[0])["problems"]) == 7


def test_serve_gives_the_same_one_line_errors(tmp_path: Path) -> None:
    config = tmp_path / "room.toml"
    config.write_text('[server]\nport = "abc"\n')
    result = CliRunner().invoke(main, ["serve", "--config", str(config)])
    assert result.exit_code == 2  # a setting is wrong: the systemd unit does not restart
    assert result.stderr == f'pokerroom: {config}: [server] port: expected an integer, got "abc"\n'
    config.write_text("")
    (tmp_path / "s.toml").write_text(SNG + "guarante = 5\n")
    result = CliRunner().invoke(
        main, ["serve", "--config", str(config), "--schedule", str(tmp_path / "s.toml")]
    )
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "guarante: unknown key (did you mean guarantee?)" in result.stderr


# -- what the schedule accepts ----------------------------------------------------------------
def entry(**extra: object) -> dict[str, object]:
    return {"name": "e", "structure": "turbo", "buy_in": 1, "fee": 0, "players": 2, **extra}


def test_deals_allowed_true_as_documented_works_and_false_turns_them_off() -> None:
    """`deals = { allowed = true, ... }` stopped start-up with `got multiple values`."""
    (on,) = parse_schedule({"sit_and_go": [entry(deals={"allowed": True, "max_players": 3})]})
    assert on.deals == DealSettings(allowed=True, max_players=3)
    (bare,) = parse_schedule({"sit_and_go": [entry(deals={})]})
    assert bare.deals == DealSettings(allowed=True)  # a deals table allows deals
    (off,) = parse_schedule({"sit_and_go": [entry(deals={"allowed": False})]})
    assert off.deals is not None and not off.deals.allowed


def test_fractional_minutes_are_accepted_and_rounded_to_seconds() -> None:
    """level_minutes, a level's minutes and break minutes may be fractions."""
    structure = structure_from_mapping(
        {
            "name": "x",
            "starting_stack": 100,
            "level_minutes": 0.5,
            "levels": [[1, 2], {"sb": 2, "bb": 4, "minutes": 2.25}],
            "breaks": {"mode": "after_levels", "every_levels": 1, "minutes": 1.5},
        }
    )
    assert [level.seconds for level in structure.levels] == [30, 135]
    assert structure.breaks.seconds == 90
    mtt = {"name": "m", "structure": "turbo", "buy_in": 1, "fee": 0, "every_minutes": 7.5}
    (parsed,) = parse_schedule({"mtt": [{**mtt, "registration_open_minutes": 0.5}]})
    assert (parsed.every_minutes, parsed.registration_open_minutes) == (7.5, 0.5)


def test_a_bad_template_is_still_a_bad_structure_error_of_one_line() -> None:
    with pytest.raises(DirectorError) as caught:
        structure_from_mapping({"name": "x", "starting_stack": 100, "levels": [{"sb": 1}]})
    assert caught.value.code == "bad_structure"
    assert caught.value.message == "level 1 bb: missing (expected an integer)"


def test_settings_errors_list_every_problem() -> None:
    with pytest.raises(SettingsError) as caught:
        parse_settings({"server": {"port": 70000, "host": 1}, "dev": {"allow_deposit": "yes"}})
    assert caught.value.problems == (
        "[server] host: expected a string, got 1",
        "[server] port: expected 0 to 65535, got 70000",
        '[dev] allow_deposit: expected true or false, got "yes"',
    )
    assert isinstance(caught.value, ConfigProblems) and isinstance(caught.value, ValueError)


# -- the shipped defaults -------------------------------------------------------------------
def test_the_shipped_room_is_loopback_without_deposits() -> None:
    """Issue text: a plain `serve` listened on 0.0.0.0 with `allow_deposit = true`."""
    settings = load_settings()
    assert (settings.host, settings.allow_deposit) == ("127.0.0.1", False)
    assert settings.admin.endpoint.endswith("interface=127.0.0.1")
    assert (RoomSettings().host, RoomSettings().allow_deposit) == ("127.0.0.1", False)
    assert parse_settings({}).host == "127.0.0.1" and not parse_settings({}).allow_deposit
    assert settings.schedule == str(default_schedule())


def test_the_shipped_schedule_costs_the_house_nothing() -> None:
    """No guarantee (overlay) and no freeroll: every prize comes from the players' buy-ins."""
    schedule = load_schedule_file(default_schedule())
    assert schedule.entries
    for found in schedule.entries:
        assert found.guarantee == 0 and found.buy_in > 0 and found.fee >= 0, found.name
    assert "guarantee" not in default_config().read_text()


# -- the documentation names every key ----------------------------------------------------------
def test_every_schedule_and_structure_key_is_documented_with_its_type() -> None:
    """docs/SERVER.md lists each key a schedule file may hold, in a table row with its type."""
    text = (DOCS / "SERVER.md").read_text()
    kinds = "integer|number|minutes|string|true/false|table|list|one of"
    row = re.compile(rf"^\| `([a-z_]+)` \| (?:{kinds})", re.M)
    rows = {match.group(1) for match in row.finditer(text)}
    keys = (
        set(ENTRY_KINDS)
        | set(STRUCTURE_KINDS)
        | set(LEVEL_KINDS)
        | set(BREAK_KINDS)
        | set(DEAL_KINDS)
        | set(BOUNTY_KINDS)
        | {"resume_within_minutes", "reconnect_seconds"}
    )
    assert keys - rows == set()
