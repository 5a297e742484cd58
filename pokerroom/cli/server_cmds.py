"""`pokerroom serve`: run the room (ledger, tables, TCP listener) until interrupted."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

import click

from pokerroom.cli.database import ENV_VAR, db_option, opened, problem
from pokerroom.cli.serve_summary import room_schedule, startup_summary
from pokerroom.ledger.errors import LedgerError

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine
    from twisted.internet.address import IPv4Address, IPv6Address
    from twisted.internet.defer import Deferred
    from twisted.internet.interfaces import IListeningPort
    from twisted.python.failure import Failure

    from pokerroom.server.bots import BotReport
    from pokerroom.server.listeners import RoomListeners
    from pokerroom.server.reactor import IRoomReactor
    from pokerroom.server.service import RoomService
    from pokerroom.server.settings import RoomSettings
    from tournaments.ops.schedule import Schedule

DB_HELP = (
    f"SQLAlchemy URL of the database (default: ${ENV_VAR}, else sqlite:///pokerroom.sqlite in "
    "the working directory, created and migrated on first run)."
)


@click.command("serve")
@click.option("--db", "db_url", metavar="URL", default=None, help=DB_HELP)
@click.option("--port", type=int, default=None, help="TCP port (default: config, 9999; 0: any).")
@click.option("--host", default=None, help="Interface to listen on (default: config).")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Room settings TOML (default: config/room.toml).",
)
@click.option(
    "--schedule",
    "schedule_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Tournament schedule TOML (default: [tournaments] schedule of the config, else "
    'config/tournaments/schedule/schedule.toml; "" for none).',
)
@click.option(
    "--admin-endpoint",
    "admin_endpoint",
    metavar="ENDPOINT",
    default=None,
    help="Staff endpoint, a Twisted endpoint string such as tcp:9998:interface=127.0.0.1 "
    '(default: [admin] endpoint of the config; "" or none: no staff endpoint).',
)
@click.option(
    "--cluster",
    "nats_url",
    metavar="NATS_URL",
    default=None,
    envvar="POKERROOM_CLUSTER",
    show_envvar=True,
    help="Run as a node of a cluster on NATS (nats://[USER:PASSWORD@]HOST:PORT, or tls://); "
    "needs a PostgreSQL --db. Credentials belong in the environment, not the command line "
    "(docs/OPERATIONS.md, Running a cluster).",
)
@click.option("--node", "node", metavar="NAME", default=None, help="This node's name (--cluster).")
def serve(
    db_url: str | None,
    port: int | None,
    host: str | None,
    config_path: str | None,
    schedule_path: str | None,
    admin_endpoint: str | None,
    nats_url: str | None,
    node: str | None,
) -> None:
    """Run the poker room server: cash tables and tournaments from the config, clients over TCP."""
    import dataclasses

    from pokerroom.cli.cluster_cmds import check_node_options, install_cluster_reactor

    cluster_problem = check_node_options(db_url, nats_url, node)
    if cluster_problem:
        _refuse(cluster_problem)
    if nats_url is not None:
        install_cluster_reactor()  # asyncio under Twisted, before anything imports the reactor

    from pokerroom.server.listeners import LISTEN_BACKLOG, ListenerError, bind_room
    from pokerroom.server.logs import configure_logging
    from pokerroom.server.reactor import room_reactor
    from pokerroom.server.settings import SettingsError, load_settings

    try:
        settings = load_settings(config_path)
    except SettingsError as exc:  # a setting is wrong: exit 2, a restart will not help
        _refuse(str(exc))
    if host is not None:
        settings = dataclasses.replace(settings, host=host)
    if config_path:  # `table_open` (docs/ADMIN.md) reads this file's [tables] again
        admin = dataclasses.replace(settings.admin, config_file=str(config_path))
        settings = dataclasses.replace(settings, admin=admin)
    if admin_endpoint is not None:  # "" or none: no staff endpoint
        endpoint = "" if admin_endpoint.strip().lower() in ("", "none") else admin_endpoint
        settings = dataclasses.replace(
            settings, admin=dataclasses.replace(settings.admin, endpoint=endpoint)
        )
    if schedule_path is not None:
        settings = dataclasses.replace(settings, schedule=schedule_path)
    try:
        schedule = room_schedule(settings)
    except ValueError as exc:
        _refuse(f"tournament schedule: {exc}")
    configure_logging(settings.log_format)
    reactor = room_reactor()  # only here: never at module level (ARCH 3)
    try:  # every listener first, held: a taken port fails before anything starts
        listeners = bind_room(
            reactor,
            settings.host,
            settings.port if port is None else port,
            settings.admin.endpoint,
            backlog=LISTEN_BACKLOG,
        )
    except ListenerError as exc:
        _refuse(str(exc))
    from pokerroom.ledger import migrate

    try:
        engine = migrate.open_database(db_url, create=migrate.is_default_file(db_url))  # ARCH 9
    except LedgerError as exc:
        listeners.close()
        raise problem(exc) from None
    raise SystemExit(
        run_server(
            engine, settings, port, schedule, listeners=listeners, node=node, nats_url=nats_url
        )
    )


def _refuse(message: str) -> NoReturn:
    """Stop `serve` before anything started: one line, exit 2 (a setting or a port is wrong;
    the systemd unit does not restart on 2)."""
    click.echo(f"pokerroom: {message}", err=True)
    raise SystemExit(2)


def _address(listening: IListeningPort) -> IPv4Address | IPv6Address:
    """The host and port a TCP listener is bound to (IListeningPort only promises IAddress)."""
    return cast("IPv4Address | IPv6Address", listening.getHost())


def run_server(
    engine: Engine,
    settings: RoomSettings,
    port: int | None,
    schedule: Schedule | None = None,
    *,
    listeners: RoomListeners | None = None,
    node: str | None = None,
    nats_url: str | None = None,
) -> int:
    """Start the reactor with a RoomService on the listeners `serve` bound (else it binds
    them); print the summary once ready; returns the exit status (2: a port is taken)."""
    from pokerroom.ledger.migrate import url_for_humans
    from pokerroom.server.listeners import ListenerError
    from pokerroom.server.reactor import lean_reads, room_reactor
    from pokerroom.server.service import RoomService

    reactor = room_reactor()  # only here: never at module level (ARCH 3)
    lean_reads(reactor)  # no Twisted log context around each read (docs/PERFORMANCE.md)
    room = RoomService(
        reactor,
        engine,
        settings,
        port=port,
        schedule=schedule or (),
        listeners=listeners,
        node=node,
        nats_url=nats_url,
    )
    status = {"code": 0}

    def started(listening: IListeningPort) -> None:
        for line in startup_summary(room, url_for_humans(engine)):
            click.echo(line)
        address = _address(listening)
        click.echo(f"pokerroom listening on {address.host}:{address.port}", err=False)
        if room.admin is not None:  # the staff endpoint, always after the players' line
            click.echo(f"pokerroom admin listening on {room.admin.address}", err=False)

    def failed(failure: Failure) -> None:
        click.echo(f"pokerroom: could not start: {failure.value}", err=True)
        status["code"] = 1
        reactor.stop()

    def start() -> None:
        try:
            room.startService()
        except (LedgerError, ListenerError) as exc:
            click.echo(f"pokerroom: {exc}", err=True)
            status["code"] = 2 if isinstance(exc, ListenerError) else 1
            reactor.stop()
            return
        room.ready.addCallbacks(started, failed)
        reactor.addSystemEventTrigger("before", "shutdown", room.stopService)

    reactor.callWhenRunning(start)
    reactor.run()
    return status["code"]


#: Seconds `bots` and `demo` wait past their time limit for the bots to stand up and log off
#: before they give up (exit 1: something hangs).
LEAVE_GRACE = 20.0


@click.command("bots")
@click.option("--host", default="127.0.0.1", show_default=True, help="Server address.")
@click.option("--port", type=int, default=9999, show_default=True, help="Server port.")
@click.option("--count", type=click.IntRange(2), default=6, show_default=True, help="Bots.")
@click.option(
    "--hands",
    type=click.IntRange(1),
    default=10,
    show_default=True,
    help="Each bot leaves after it has seen this many hands.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the bots' choices.")
@click.option("--prefix", default="bot", show_default=True, help="Bot names: PREFIX_0, ...")
@click.option(
    "--timeout",
    type=click.FloatRange(0, min_open=True),
    default=600.0,
    show_default=True,
    help="Time limit in seconds: then every bot leaves its table and the run ends.",
)
@click.option(
    "--idle-seconds",
    type=click.FloatRange(0, min_open=True),
    default=20.0,
    show_default=True,
    help="A bot whose table deals no hand this long (or that is left alone) moves or leaves.",
)
@click.option(
    "--moves",
    type=click.IntRange(0),
    default=2,
    show_default=True,
    help="Tables a bot may move to before it leaves.",
)
@click.option("--verbose", is_flag=True, help="Print each hand as it ends.")
def bots(
    host: str,
    port: int,
    count: int,
    hands: int,
    seed: int,
    prefix: str,
    timeout: float,
    idle_seconds: float,
    moves: int,
    verbose: bool,
) -> None:
    """Bot clients over the real protocol, until their hands are played or the time limit;
    prints a summary; exit 0 unless a protocol error or a leak happened (or they hung)."""
    from pokerroom.server.bot_fleet import run_bots
    from pokerroom.server.bots import BotReport, BotSettings
    from pokerroom.server.reactor import room_reactor

    reactor = room_reactor()
    say = click.echo if verbose else None
    report = BotReport()
    d = run_bots(
        reactor,
        host,
        port,
        count,
        hands,
        seed=seed,
        prefix=prefix,
        say=say,
        report=report,
        settings=BotSettings(idle_seconds=idle_seconds, moves=moves),
        time_limit=timeout,
    )
    raise SystemExit(_finish(reactor, d, timeout + LEAVE_GRACE, report))


def _finish(
    reactor: IRoomReactor,
    d: Deferred[BotReport],
    deadline: float,
    report: BotReport | None = None,
) -> int:
    """Run the reactor until the bots' Deferred fires (at most `deadline` seconds); print the
    summary; the exit status: 0, or 1 after a protocol error, a leak, a failure, the deadline
    or an interruption (bots that leave early, busted, alone or at the time limit, are no
    error)."""
    outcome: dict[str, Any] = {}

    def stop(key: str, value: object) -> None:
        outcome.setdefault(key, value)
        if reactor.running:
            reactor.stop()

    d.addCallbacks(lambda r: stop("report", r), lambda f: stop("error", f.value))
    timer = reactor.callLater(deadline, stop, "error", f"still running after {deadline:g} s")
    if not outcome:  # the Deferred may have failed at once
        reactor.run()
    if timer.active():
        timer.cancel()
    if not outcome:  # the reactor stopped by itself: Ctrl-C or SIGTERM
        outcome["error"] = "interrupted"
    final: BotReport | None = outcome.get("report") or report
    if "error" in outcome:
        click.echo(f"bots: failed: {outcome['error']}", err=True)
    if final is None:
        return 1
    for line in summary(final):
        click.echo(line)
    for line in final.errors[:20] + final.leaks[:20]:
        click.echo(f"  {line}", err=True)
    for name, state in sorted(final.unfinished.items()):
        click.echo(f"  unfinished: {name} {state}", err=True)
    return 0 if final.ok and "error" not in outcome else 1


def summary(report: BotReport) -> list[str]:
    """The bots' summary: hands, tables, errors, leaks, moves; each bot that left early, why."""
    hands = sum(len(ids) for ids in report.hands.values())
    early = report.left_early
    lines = [
        f"bots: {hands} hands at {len(report.hands)} tables; "
        f"{len(report.errors)} protocol errors, {len(report.leaks)} leaks; "
        f"{report.moves} table moves, {len(early)} left early"
    ]
    lines += [f"  {name} left early: {why}" for name, why in sorted(early.items())]
    return lines


@click.command("demo")
@click.option("--bots", "count", type=click.IntRange(2), default=12, show_default=True)
@click.option("--hands", type=click.IntRange(1), default=8, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option(
    "--timeout",
    type=click.FloatRange(0, min_open=True),
    default=30.0,
    show_default=True,
    help="Time limit in seconds: then the bots leave and the demo ends.",
)
def demo(count: int, hands: int, seed: int, timeout: float) -> None:
    """A server on a temporary database with bots at a few tables: watch hands go by. The
    temporary folder is removed at the end (also after an error or Ctrl-C)."""
    import dataclasses
    import shutil
    import tempfile

    from pokerroom.admin.house_store import fund_throwaway_casino
    from pokerroom.admin.settings import AdminSettings
    from pokerroom.ledger import make_engine, upgrade
    from pokerroom.server.accounts import HashSettings
    from pokerroom.server.logs import configure_logging
    from pokerroom.server.reactor import room_reactor
    from pokerroom.server.service import RoomService
    from pokerroom.server.settings import load_settings

    reactor = room_reactor()

    configure_logging("console", level="warning")
    folder = Path(tempfile.mkdtemp(prefix="pokerroom-demo-"))
    try:
        engine = make_engine(f"sqlite:///{folder / 'demo.sqlite'}")
        try:
            upgrade(engine)
            settings = load_settings()
            tables = tuple(
                dataclasses.replace(t, between_hands_seconds=0.5) for t in settings.tables
            )
            settings = dataclasses.replace(
                settings,
                host="127.0.0.1",
                allow_deposit=True,  # the demo's own money: bots fund their wallets
                tables=tables,
                admin=AdminSettings(),  # no staff endpoint here
                hashing=HashSettings(time_cost=1, memory_kib=8, parallelism=1),  # throwaway
            )
            fund_throwaway_casino(engine, settings.currency)  # its casino tables pay wins
            room = RoomService(reactor, engine, settings, port=0)
            click.echo(f"demo database: {folder / 'demo.sqlite'} (removed at the end)")
            code = _run_demo(reactor, room, count, hands, seed, timeout)
        finally:
            engine.dispose()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    raise SystemExit(code)


def _run_demo(
    reactor: IRoomReactor,
    room: RoomService,
    count: int,
    hands: int,
    seed: int,
    timeout: float,
) -> int:
    """Start the room, then the bots once it listens; the exit status of `_finish`."""
    from twisted.internet.defer import Deferred

    from pokerroom.server.bot_fleet import run_bots
    from pokerroom.server.bots import BotSettings

    finished: Deferred[BotReport] = Deferred()

    def start() -> None:
        try:
            room.startService()
        except Exception as exc:  # e.g. a bad table setting: report it and stop
            finished.errback(exc)
            return
        reactor.addSystemEventTrigger("before", "shutdown", room.stopService)
        room.ready.addCallback(with_bots).chainDeferred(finished)

    def with_bots(listening: IListeningPort) -> Deferred[BotReport]:
        port = _address(listening).port
        click.echo(f"server on 127.0.0.1:{port}; {count} bots, {hands} hands each\n")
        return run_bots(
            reactor,
            "127.0.0.1",
            port,
            count,
            hands,
            seed=seed,
            say=click.echo,
            settings=BotSettings(idle_seconds=5.0),
            time_limit=timeout,
        )

    reactor.callWhenRunning(start)
    return _finish(reactor, finished, timeout + LEAVE_GRACE)


@click.group("player")
def player() -> None:
    """Player accounts (staff)."""


@player.command("moderator")
@click.argument("name")
@click.option("--revoke", is_flag=True, help="Take the right away instead.")
@click.option("--reason", default="", help="Why (kept in the audit log).")
@db_option
def player_moderator(name: str, revoke: bool, reason: str, db_url: str | None) -> None:
    """Give NAME the right to mute players in chat (C-13), or take it away; audited."""
    import time

    from pokerroom.admin.audit import console_actor, console_audited
    from pokerroom.admin.errors import NO_CHANGE
    from pokerroom.admin.store import moderator_work
    from pokerroom.protocol.errors import ProtocolError

    flag, now_ms = not revoke, int(time.time() * 1000)
    with opened(db_url) as engine:
        try:
            actor = console_actor()
            done = console_audited(
                engine, actor, "player_moderator", name, reason, now_ms, moderator_work, name, flag
            )
        except ProtocolError as exc:
            if exc.code != NO_CHANGE:
                raise click.ClickException(exc.message) from None
            click.echo(f"{name}: {exc.message}; nothing changed")
            return
    what = "revoked" if revoke else "granted"
    click.echo(f"{name}: moderator {what} (applies at next login; audit {done.audit_id})")
