"""`pokerroom serve` settings and start-up checks (ARCH 9), the service tree order, and the
start-up itself in real processes: every listener bound before anything starts (a taken port:
one line, exit 2, nothing started), `--admin-endpoint`, two rooms side by side, the summary."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from sqlalchemy.engine import make_url

from pokerroom import __version__
from pokerroom.cli import main
from pokerroom.ledger import make_engine, upgrade
from pokerroom.server.settings import SettingsError, load_settings, parse_settings
from tests.postgres import fresh_pg_schema
from tests.serving import CLI, migrated_sqlite, stop, summary_and_listening
from tournaments.store import tournaments


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
    args = ["serve", "--db", url, "--port", "0", "--admin-endpoint", "none"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 66  # no database there (docs/OPERATIONS.md, exit codes)
    assert "pokerroom db upgrade --db" in result.output


def test_serve_refuses_a_broken_config(tmp_path: Path) -> None:
    """A bad --config file is an error before anything starts."""
    path = tmp_path / "room.toml"
    path.write_text("[server]\nport = 1\nbogus = 2\n")
    result = CliRunner().invoke(main, ["serve", "--config", str(path)])
    assert result.exit_code == 2 and "bogus" in result.output


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


# -- a real `pokerroom serve` process: listeners first, --admin-endpoint, the summary ---------

#: A small room: cheap hashes, one cash table, logs as JSON lines on stderr.
ROOM = """
[server]
host = "127.0.0.1"
log_format = "json"
[accounts]
time_cost = 1
memory_kib = 8
[tables.nl-a]
variant = "NT"
"""
#: One sit-and-go: the room opens it (a `tournaments` row) as soon as the ledger runs.
SIT_AND_GO = """
[[structure]]
name = "blitz"
starting_stack = 1000
level_minutes = 1
levels = [[10, 20], [20, 40]]

[[sit_and_go]]
name = "duel"
structure = "blitz"
buy_in = 100
fee = 10
players = 2
"""


@pytest.fixture
def taken() -> Iterator[int]:
    """A loopback port another program listens on."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    try:
        yield holder.getsockname()[1]
    finally:
        holder.close()


def room_files(folder: Path, admin_endpoint: str | None = None) -> tuple[str, Path, Path]:
    """A migrated SQLite database, the room config (with `[admin] endpoint` if given) and a
    schedule of one sit-and-go, in `folder`."""
    url = migrated_sqlite(folder)
    config = folder / "room.toml"
    admin = "" if admin_endpoint is None else f'[admin]\nendpoint = "{admin_endpoint}"\n'
    config.write_text(ROOM + admin)
    schedule = folder / "schedule.toml"
    schedule.write_text(SIT_AND_GO)
    return url, config, schedule


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file in the folder (the database and any journal beside it) by content."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def refused(args: list[str]) -> subprocess.CompletedProcess[str]:
    """Run `pokerroom ARGS`, expected to end by itself."""
    return subprocess.run(CLI + args, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("where", ["flag", "config"])
def test_a_taken_player_port_fails_at_once_with_one_line_exit_2_and_starts_nothing(
    tmp_path: Path, taken: int, where: str
) -> None:
    """The players' port is bound before the database opens and anything starts: taken, the
    process says so in one line (naming the setting and the flag), exits 2, logs nothing (no
    `ledger_started`), opens no tournament and leaves the database as it was."""
    url, config, schedule = room_files(tmp_path, "tcp:0:interface=127.0.0.1")
    if where == "config":
        config.write_text(ROOM.replace('host = "127.0.0.1"', f'host = "127.0.0.1"\nport = {taken}'))
    before = fingerprint(tmp_path)
    port = [] if where == "config" else ["--port", str(taken)]
    args = ["serve", "--db", url, "--config", str(config), "--schedule", str(schedule), *port]
    done = refused(args)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"pokerroom: port {taken} is in use: set [server] port or --port\n"
    assert fingerprint(tmp_path) == before
    engine = make_engine(url)
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(tournaments)).scalar() == 0
    engine.dispose()


@pytest.mark.parametrize("where", ["flag", "config"])
def test_a_taken_admin_port_fails_at_once_with_one_line_exit_2_and_starts_nothing(
    tmp_path: Path, taken: int, where: str
) -> None:
    """The staff endpoint, from `[admin] endpoint` or `--admin-endpoint`, is bound before
    anything starts too: taken, one line naming both, exit 2, nothing started or written."""
    endpoint = f"tcp:{taken}:interface=127.0.0.1"
    url, config, schedule = room_files(tmp_path, endpoint if where == "config" else None)
    flag = ["--admin-endpoint", endpoint] if where == "flag" else []
    before = fingerprint(tmp_path)
    args = ["serve", "--db", url, "--port", "0", "--config", str(config)]
    done = refused([*args, "--schedule", str(schedule), *flag])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"pokerroom: port {taken} is in use: set [admin] endpoint or --admin-endpoint\n"
    )
    assert fingerprint(tmp_path) == before


def test_a_bad_admin_endpoint_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """An endpoint string Twisted cannot parse is refused before anything starts."""
    url, config, _ = room_files(tmp_path)
    args = ["serve", "--db", url, "--port", "0", "--config", str(config)]
    done = refused([*args, "--admin-endpoint", "tcpp:9998"])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1 and "'tcpp:9998'" in done.stderr
    assert done.stderr.endswith(": set [admin] endpoint or --admin-endpoint\n")


def test_an_address_the_machine_does_not_have_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """--host naming an address of no interface here (TEST-NET-1): the reason and the fix in
    one line, exit 2, before the database is opened (a URL nothing answers at is not tried)."""
    args = ["serve", "--db", "postgresql+psycopg://nobody@127.0.0.1:9/none", "--port", "0"]
    args += ["--host", "192.0.2.1", "--admin-endpoint", "none", "--schedule", ""]
    done = CliRunner().invoke(main, args)
    assert (done.exit_code, done.stdout) == (2, "")
    assert done.stderr == (
        "pokerroom: cannot listen on port 0 of 192.0.2.1: Cannot assign requested address: "
        "set [server] host and port or --host and --port\n"
    )


class Served:
    """A running `pokerroom serve`: its summary, listening lines and process."""

    def __init__(self, args: list[str], log: Path) -> None:
        with log.open("a") as err:
            self.proc = subprocess.Popen(CLI + args, stdout=subprocess.PIPE, stderr=err, text=True)
        assert self.proc.stdout is not None
        self.summary, self.listening = summary_and_listening(self.proc.stdout)
        assert self.listening, "".join(self.summary) + log.read_text()[-3000:]
        self.port = int(self.listening.rsplit(":", 1)[1])
        self.fields = {
            key.strip(): value.strip()
            for key, _, value in (line.partition(":") for line in self.summary[1:])
        }

    def admin_line(self) -> str:
        """The `pokerroom admin listening on ADDRESS` line after the players' one."""
        assert self.proc.stdout is not None
        return self.proc.stdout.readline()


def ask(host: str, port: int, frame: dict[str, object]) -> dict[str, object]:
    """Send one JSON-lines frame, read one back."""
    with socket.create_connection((host, port), timeout=20) as sock:
        sock.sendall(json.dumps(frame).encode() + b"\n")
        answer: dict[str, object] = json.loads(sock.makefile("rb").readline())
        return answer


#: The start-up hint of a room whose casino tables open with an empty bankroll (docs/CASINO.md).
BANKROLL_HINT = (
    "  casino bankroll is 0.00 USD: fund it with pokerroom admin house fund casino_bankroll"
    " AMOUNT --currency USD --reason ...\n"
)


@pytest.mark.slow
def test_two_rooms_run_side_by_side_with_admin_endpoint_tcp_0(tmp_path: Path, taken: int) -> None:
    """`--admin-endpoint tcp:0:interface=127.0.0.1` overrides the config's endpoint (here a
    taken port): two rooms on one machine, each with its own players' port and staff endpoint,
    each endpoint answering staff (a player's `hello` there is `wrong_port`). Their summaries:
    the schedule file and its tournament, the staff endpoint, the staff hint only where no
    staff account exists, the bankroll hint only where the casino bankroll is empty."""
    from pokerroom.admin.roles import Role
    from pokerroom.admin.staff import add_staff
    from pokerroom.ledger import transfers
    from pokerroom.ledger.kinds import AccountKind, external, house

    rooms: list[Served] = []
    try:
        for name in ("a", "b"):
            folder = tmp_path / name
            folder.mkdir()
            url, config, schedule = room_files(folder, f"tcp:{taken}:interface=127.0.0.1")
            if name == "a":  # one staff account and a funded casino bankroll: no hint
                engine = make_engine(url)
                add_staff(engine, "boss", Role.ADMIN, "not a real hash", 0)
                transfers.move(
                    engine,
                    key="float",
                    kind="house_funding",
                    currency="USD",
                    source=external("USD", "house"),
                    destination=house(AccountKind.CASINO_BANKROLL, "USD"),
                    amount=100_000,
                )
                engine.dispose()
            args = ["serve", "--db", url, "--port", "0", "--config", str(config)]
            args += ["--admin-endpoint", "tcp:0:interface=127.0.0.1"]
            if name == "a":
                args += ["--schedule", str(schedule)]
            else:
                args += ["--schedule", ""]
            rooms.append(Served(args, folder / "server.log"))
        a, b = rooms
        admins = []
        for room in rooms:
            line = room.admin_line()
            assert line.startswith("pokerroom admin listening on 127.0.0.1:"), line
            admins.append(line.rsplit(" ", 1)[1].strip())
            assert room.fields["staff"] == admins[-1]
            assert room.fields["players"] == f"127.0.0.1:{room.port}"
        assert a.port != b.port and admins[0] != admins[1] and str(taken) not in admins
        for room, admin in zip(rooms, admins, strict=True):
            host, _, port = admin.rpartition(":")
            hello = {"type": "hello", "id": 1, "version": 1, "client": "desktop"}
            assert ask(host, int(port), hello)["code"] == "wrong_port"
            assert ask("127.0.0.1", room.port, hello)["type"] != "error"
        assert a.fields["schedule"] == str((tmp_path / "a" / "schedule.toml").resolve())
        assert a.fields["opened"] == "1 cash table, 1 tournament"
        assert not any("no staff account" in line for line in a.summary)
        assert not any("casino bankroll" in line for line in a.summary)
        assert (b.fields["schedule"], b.fields["opened"]) == ("none", "1 cash table, 0 tournaments")
        assert b.summary[-2:] == [
            "  no staff account yet: pokerroom staff add NAME --role admin\n",
            BANKROLL_HINT,
        ]
    finally:
        for room in rooms:
            stop(room.proc)


@pytest.mark.postgresql
def test_the_summary_names_what_was_loaded_and_masks_the_database_password(
    tmp_path: Path,
) -> None:
    """Before `pokerroom listening on`: the version, the database with its password masked
    (PostgreSQL trust auth ignores the password), the config and schedule files, both
    endpoints (`--admin-endpoint none`: none), what opened, and the hints to add staff and to
    fund the casino bankroll."""
    secret = "hunter2-sekrit"
    with fresh_pg_schema("serve_summary") as plain:
        url = make_url(plain).set(password=secret)
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
        shown = url.render_as_string(hide_password=True)
        full = url.render_as_string(hide_password=False)
        (tmp_path / "room.toml").write_text(ROOM)
        args = ["serve", "--db", full, "--port", "0", "--config", str(tmp_path / "room.toml")]
        args += ["--schedule", "", "--admin-endpoint", "none"]
        room = Served(args, tmp_path / "server.log")
        try:
            assert room.summary == [
                f"pokerroom {__version__}\n",
                f"  database: {shown}\n",
                f"  config:   {(tmp_path / 'room.toml').resolve()}\n",
                "  schedule: none\n",
                f"  players:  127.0.0.1:{room.port}\n",
                "  staff:    none\n",
                "  opened:   1 cash table, 0 tournaments\n",
                "  no staff account yet: pokerroom staff add NAME --role admin\n",
                BANKROLL_HINT,
            ]
            assert "***" in shown and secret not in "".join(room.summary)
        finally:
            stop(room.proc)
        assert room.proc.stdout is not None
        rest = room.proc.stdout.read()
        assert "admin listening" not in rest and secret not in rest
        assert secret not in (tmp_path / "server.log").read_text()


class _Port:
    """A listening port that records whether the reactor would accept on it."""

    def __init__(self, factory: object) -> None:
        self.factory, self.reading, self.stopped = factory, True, False

    def stopReading(self) -> None:
        self.reading = False

    def startReading(self) -> None:
        self.reading = True

    def getHost(self) -> object:
        from twisted.internet.address import IPv4Address

        return IPv4Address("TCP", "127.0.0.1", 4242)

    def stopListening(self) -> None:
        self.stopped = True


class _Reactor:
    """Binds every listenTCP to a `_Port`."""

    def __init__(self) -> None:
        self.ports: list[_Port] = []

    def listenTCP(self, port: int, factory: object, backlog: int, interface: str) -> _Port:
        self.ports.append(_Port(factory))
        return self.ports[-1]


def test_a_bound_listener_accepts_nothing_until_the_room_opens_it() -> None:
    """Bound before the room starts, the port does not accept (connections wait in the
    backlog) and a connection that gets through anyway is refused; once open, the room's
    factory serves them; closing twice closes once."""
    from twisted.internet.protocol import Protocol, ServerFactory

    from pokerroom.server.listeners import bind_tcp

    reactor = _Reactor()
    held = bind_tcp(reactor, 0, "127.0.0.1", backlog=8)  # type: ignore[arg-type]
    (port,) = reactor.ports
    assert port.reading is False and held.address == "127.0.0.1:4242"
    assert port.factory.buildProtocol(None) is None  # type: ignore[attr-defined]
    room = ServerFactory.forProtocol(Protocol)
    held.open(room)
    assert port.reading is True
    assert isinstance(port.factory.buildProtocol(None), Protocol)  # type: ignore[attr-defined]
    held.close()
    assert port.stopped
    port.stopped = False
    held.close()
    assert not port.stopped
