"""`pokerroom serve` settings and start-up checks (ARCH 9), and the service tree order."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pokerroom.cli import main
from pokerroom.ledger import make_engine
from pokerroom.server.settings import SettingsError, load_settings, parse_settings


def test_default_config_has_the_c1_caps_and_several_games() -> None:
    """config/room.toml: C-1 defaults, NLHE, PLO and fixed limit, 6-max and 9-max tables."""
    settings = load_settings()
    assert settings.table_caps == {"desktop": 8, "mobile": 4, "web": 4}
    assert {t.variant for t in settings.tables} == {"NT", "PO", "FT"}
    assert {t.max_seats for t in settings.tables} == {6, 9}
    assert settings.port == 9999 and settings.chat.hand_talk_rule


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"server": {"prot": 1}}, "[server]"),
        ({"table_caps": {"tablet": 3}}, "[table_caps]"),
        ({"table_caps": {"mobile": 0}}, "[table_caps]"),
        ({"tables": {"t1": {"variant": "XX"}}}, "[tables.t1]"),
        ({"tables": {"t1": {"big_blnd": 2}}}, "[tables.t1]"),
        ({"chat": {"hand_talk_mode": "never"}}, "[chat]"),
        ({"extra": {}}, "[extra]: unknown section"),
    ],
)
def test_unknown_or_bad_settings_are_refused(data: dict, where: str) -> None:
    """Typos in the configuration stop the server with the section named."""
    with pytest.raises(SettingsError) as caught:
        parse_settings(data)
    assert where in str(caught.value)


def test_serve_refuses_a_database_not_at_head(tmp_path: Path) -> None:
    """ARCH 9: a non-default database that is not migrated is refused with the fix."""
    url = f"sqlite:///{tmp_path / 'other.sqlite'}"
    make_engine(url).dispose()
    result = CliRunner().invoke(main, ["serve", "--db", url, "--port", "0"])
    assert result.exit_code == 66  # no database there (docs/OPERATIONS.md, exit codes)
    assert "pokerroom db upgrade --db" in result.output


def test_serve_refuses_a_broken_config(tmp_path: Path) -> None:
    """A bad --config file is an error before anything starts."""
    path = tmp_path / "room.toml"
    path.write_text("[server]\nport = 1\nbogus = 2\n")
    result = CliRunner().invoke(main, ["serve", "--config", str(path)])
    assert result.exit_code == 1 and "bogus" in result.output


def test_ledger_is_the_first_service_and_stops_last(tmp_path: Path) -> None:
    """ARCH 9: the RoomService's first child is the ledger (MultiService stops in reverse)."""
    from twisted.internet.task import Clock

    from pokerroom.server.service import RoomService

    room = RoomService(Clock(), f"sqlite:///{tmp_path / 'x.sqlite'}", load_settings())
    names = [service.name for service in room]
    assert names[0] == "ledger" and names == ["ledger", "accounts", "jobs"]
    room.ledger.engine.dispose()


def test_player_moderator_command(tmp_path: Path) -> None:
    """Staff grant the C-13 moderator right from the command line."""
    from pokerroom.ledger import upgrade
    from pokerroom.ledger.db import in_transaction
    from pokerroom.server.schema import players

    url = f"sqlite:///{tmp_path / 'room.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    in_transaction(
        engine, lambda c: c.execute(players.insert().values(name="mod", password_hash="x"))
    )
    runner = CliRunner()
    assert runner.invoke(main, ["player", "moderator", "mod", "--db", url]).exit_code == 0
    with engine.connect() as conn:
        assert conn.execute(players.select()).one().is_moderator is True
    result = runner.invoke(main, ["player", "moderator", "nobody", "--db", url])
    assert result.exit_code == 1 and "no player" in result.output
    engine.dispose()
