"""The admin endpoint end to end: a real `pokerroom serve` process, staff over the admin
endpoint (raw frames and `pokerroom admin`), effects seen by real player clients over the
player protocol; on SQLite (admin on TCP) and PostgreSQL (admin on a unix socket).

One server per database for the whole module (the machine has two cores): the tests share
it and each uses its own tables and players.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from pokerroom.admin.audit import console_actor
from pokerroom.admin.schema import approvals, audit
from pokerroom.cli import main
from pokerroom.ledger import check_ledger, make_engine
from tests.postgres import fresh_pg_schema
from tests.serving import ROOM_HEAD, migrate, start_serve, stop

pytestmark = pytest.mark.slow
PASSWORD = "staff password 1"
STAFF = {
    "sup": "support",
    "flo": "floor",
    "dir": "director",
    "adm1": "admin",
    "adm2": "admin",
    "gone": "support",
    "lock": "floor",
}
TABLE = """
[tables.{name}]
between_hands_seconds = 0.2
action_seconds = 0.5
timebank_seconds = 0
"""
TABLES = ("pause_t", "ctrl_t", "kick_t", "ban_t", "close_t", "role_t", "chat_t")


def config(admin_endpoint: str) -> str:
    """The room: cheap hashes, deposits on, fast tables, the admin endpoint and its limits."""
    head = (
        ROOM_HEAD
        + f"""[admin]
endpoint = "{admin_endpoint}"
correction_approval_above = 1000
login_failures = 3
"""
    )
    return head + "".join(TABLE.format(name=name) for name in TABLES)


class Room:
    """A running server: its database, player port and admin address."""

    def __init__(
        self, url: str, port: int, admin: str, proc: subprocess.Popen[str], log: Path
    ) -> None:
        self.url, self.port, self.admin, self.proc, self.log = url, port, admin, proc, log
        self.engine = make_engine(url)

    def audit_rows(self) -> list[Any]:
        """Every audit row, oldest first."""
        with self.engine.connect() as conn:
            return list(conn.execute(sa.select(audit).order_by(audit.c.id)))

    def staff_client(self, name: str) -> Wire:
        """A logged-in staff connection."""
        wire = Wire(self.admin)
        wire.ok("staff_login", name=name, password=PASSWORD)
        return wire


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]
)
def room(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Room]:
    """Staff accounts made offline, then a server; stopped after the module."""
    folder = tmp_path_factory.mktemp(f"admin-{request.param}")
    if request.param == "sqlite":
        with _server(
            folder, f"sqlite:///{folder / 'room.sqlite'}", "tcp:0:interface=127.0.0.1"
        ) as r:
            yield r
    else:
        with (
            fresh_pg_schema("admin_e2e") as url,
            _server(folder, url, f"unix:{folder / 'admin.sock'}") as r,
        ):
            yield r


class _server:
    """Context manager: migrate, add staff with `pokerroom staff add`, start `pokerroom serve`."""

    def __init__(
        self,
        folder: Path,
        url: str,
        endpoint: str,
        room_toml: str | None = None,
        staff: bool = True,
    ) -> None:
        self.folder, self.url, self.endpoint = folder, url, endpoint
        self.room_toml = room_toml  # the room's config (default: `config(endpoint)`)
        self.staff = staff  # add the staff accounts first (not again after a restart)
        self.room: Room | None = None

    def __enter__(self) -> Room:
        migrate(self.url)
        runner = CliRunner()
        for name, role in STAFF.items() if self.staff else ():
            done = runner.invoke(
                main,
                ["staff", "add", name, "--role", role, "--db", self.url, "--password-file", "-"],
                input=f"{PASSWORD}\n",
            )
            assert done.exit_code == 0, done.output
        (self.folder / "room.toml").write_text(self.room_toml or config(self.endpoint))
        log = self.folder / "server.log"
        args = [
            "serve",
            "--db",
            self.url,
            "--port",
            "0",
            "--config",
            str(self.folder / "room.toml"),
        ]
        port, proc = start_serve(args, log)
        assert proc.stdout is not None
        admin = proc.stdout.readline()
        assert "admin listening on" in admin, admin + log.read_text()[-3000:]
        address = admin.rsplit(" ", 1)[1].strip()
        if self.endpoint.startswith("unix:"):
            assert address == self.endpoint[5:]
            address = f"unix:{address}"
        self.room = Room(self.url, port, address, proc, log)
        return self.room

    def __exit__(self, *_: object) -> None:
        assert self.room is not None
        stop(self.room.proc, timeout=30)
        self.room.engine.dispose()


class Wire:
    """A blocking JSON-lines client on a real socket: TCP `port` or `HOST:PORT`, or unix."""

    def __init__(self, where: int | str) -> None:
        if isinstance(where, int):
            self.sock = socket.create_connection(("127.0.0.1", where), timeout=20)
        elif where.startswith("unix:"):
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(20)
            self.sock.connect(where[5:])
        else:
            host, _, port = where.rpartition(":")
            self.sock = socket.create_connection((host.removeprefix("tcp:"), int(port)), timeout=20)
        self.file = self.sock.makefile("rwb")
        self.frames: list[dict[str, Any]] = []
        self.next_id = 0
        self.token = ""

    def raw(self, data: bytes) -> None:
        """Send bytes as they are."""
        self.file.write(data)
        self.file.flush()

    def send(self, kind: str, **fields: Any) -> int:
        """Send a request; its id."""
        self.next_id += 1
        self.raw(json.dumps({"type": kind, "id": self.next_id, **fields}).encode() + b"\n")
        return self.next_id

    def until(self, test: Callable[[dict[str, Any]], bool], limit: float = 30.0) -> dict[str, Any]:
        """Read frames until one passes `test` (kept frames are searched first)."""
        for frame in self.frames:
            if test(frame):
                self.frames.remove(frame)
                return frame
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            line = self.file.readline()
            if not line:
                raise ConnectionError("closed")
            read: dict[str, Any] = json.loads(line)
            if test(read):
                return read
            self.frames.append(read)
        raise TimeoutError("no such frame")

    def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A request and its answer."""
        request_id = self.send(kind, **fields)
        return self.until(lambda f: f.get("id") == request_id and f["type"] in ("ok", "error"))

    def ok(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A request that must succeed: its result."""
        answer = self.call(kind, **fields)
        assert answer["type"] == "ok", answer
        result: dict[str, Any] = answer["result"]
        return result

    def code(self, kind: str, **fields: Any) -> str:
        """A request that must be refused: its code."""
        answer = self.call(kind, **fields)
        assert answer["type"] == "error", answer
        return str(answer["code"])

    def closed(self) -> bool:
        """True once the server closed the connection (reads what is left)."""
        while True:
            line = self.file.readline()
            if not line:
                return True
            self.frames.append(json.loads(line))

    def close(self) -> None:
        """Drop the connection."""
        self.file.close()
        self.sock.close()


def player(port: int, name: str, table: str | None = None, buy_in: int = 200) -> Wire:
    """Register, fund 10,000 and (if `table`) sit with `buy_in`."""
    wire = Wire(port)
    wire.ok("hello", version=1, client="desktop")
    wire.token = wire.ok("register", name=name, password="password 1")["token"]
    wire.ok("deposit", amount=10_000)
    if table is not None:
        wire.ok("sit", table_id=table, buy_in=buy_in)
    return wire


def wallet(wire: Wire) -> int:
    """The player's wallet balance, over the player protocol."""
    return int(wire.ok("wallet")["balance"])


def new_rows(room: Room, before: int) -> list[Any]:
    """Audit rows written since there were `before` of them."""
    return room.audit_rows()[before:]


def is_type(kind: str, table: str | None = None) -> Callable[[dict[str, Any]], bool]:
    """A frame test: this type (at this table)."""
    return lambda f: f["type"] == kind and (table is None or f.get("table_id") == table)


def test_a_paused_table_deals_no_hand_until_resumed(room: Room) -> None:
    """table_pause: no hand at the paused table while a control table with the same timers
    deals and finishes one; resume deals. One audit row per change, none for a refusal."""
    floor = room.staff_client("flo")
    count = len(room.audit_rows())
    result = floor.ok("table_pause", table_id="pause_t", reason="dealer change")
    [row] = new_rows(room, count)
    assert (row.id, row.action, row.staff, row.role, row.target) == (
        result["audit_id"],
        "table_pause",
        "flo",
        "floor",
        "pause_t",
    )
    assert row.before == {"state": "open", "players": 0} and row.after == {"state": "paused"}
    assert row.reason == "dealer change" and row.at_ms > 0
    assert floor.code("table_pause", table_id="pause_t") == "no_change"
    assert len(room.audit_rows()) == count + 1
    paused = [player(room.port, name, "pause_t") for name in ("pa1", "pa2")]
    control = [player(room.port, name, "ctrl_t") for name in ("co1", "co2")]
    control[0].until(is_type("hand_ended", "ctrl_t"))  # the control table dealt and finished
    for wire in paused:
        wire.ok("ping")  # every frame the server sent before this answer has been read
        assert not [f for f in wire.frames if f["type"] == "hand_started"]
    show = floor.ok("table_show", table_id="pause_t")
    assert show["state"] == "paused" and show["hand_id"] is None and show["players"] == 2
    assert {s["player"] for s in show["seats"]} == {"pa1", "pa2"}
    floor.ok("table_resume", table_id="pause_t")
    started = paused[0].until(is_type("hand_started", "pause_t"))
    assert started["hand_id"] == "pause_t-1"
    assert floor.code("table_resume", table_id="pause_t") == "no_change"
    assert [r.action for r in new_rows(room, count)] == ["table_pause", "table_resume"]
    for wire in [*paused, *control, floor]:
        wire.close()


def test_each_role_is_refused_what_it_may_not_do_and_nothing_changes(room: Room) -> None:
    """support < floor < director < admin: a refusal is `forbidden` (details: required),
    changes nothing and writes no audit row; a higher role may do what a lower one may."""
    clients = {name: room.staff_client(name) for name in ("sup", "flo", "dir", "adm1")}
    target = player(room.port, "rolep")
    count = len(room.audit_rows())
    refused = [
        ("sup", "table_pause", {"table_id": "role_t"}, "floor"),
        ("sup", "table_kick", {"table_id": "role_t", "player": "rolep", "reason": "x"}, "floor"),
        ("sup", "audit", {}, "director"),
        ("flo", "audit", {}, "director"),
        (
            "flo",
            "wallet_correct",
            {"player": "rolep", "amount": 5, "reason": "x", "key": "r1"},
            "admin",
        ),
        (
            "dir",
            "wallet_correct",
            {"player": "rolep", "amount": 5, "reason": "x", "key": "r2"},
            "admin",
        ),
        ("dir", "approval_list", {}, "admin"),
        ("dir", "approval_approve", {"approval_id": 1}, "admin"),
    ]
    for staff, kind, fields, needed in refused:
        assert isinstance(fields, dict)
        answer = clients[staff].call(kind, **fields)
        assert answer["type"] == "error" and answer["code"] == "forbidden", (staff, kind, answer)
        assert answer["details"]["required"] == needed
    assert len(room.audit_rows()) == count
    assert clients["sup"].ok("table_show", table_id="role_t")["state"] == "open"
    assert wallet(target) == 10_000
    # the roles include the ones below: a director pauses a table, an admin reads the audit
    clients["dir"].ok("table_pause", table_id="role_t")
    clients["adm1"].ok("table_resume", table_id="role_t")
    assert clients["adm1"].ok("audit", limit=2)["rows"][0]["action"] == "table_resume"
    rows = new_rows(room, count)
    assert [(r.staff, r.role, r.action) for r in rows] == [
        ("dir", "director", "table_pause"),
        ("adm1", "admin", "table_resume"),
    ]
    for wire in [*clients.values(), target]:
        wire.close()


def test_a_kicked_player_gets_the_seats_money_back(room: Room) -> None:
    """table_kick: stood up after the running hand, the escrow goes back to the wallet (seen
    over the player protocol: `seat_left` at the table, the kicked player's wallet); reason
    required; a second kick is refused."""
    floor = room.staff_client("flo")
    kicked, other = player(room.port, "kp1", "kick_t"), player(room.port, "kp2", "kick_t")
    kicked.until(is_type("hand_started", "kick_t"))
    assert floor.code("table_kick", table_id="kick_t", player="kp1") == "missing_field"
    count = len(room.audit_rows())
    result = floor.ok("table_kick", table_id="kick_t", player="kp1", reason="abusive")
    left = other.until(lambda f: f["type"] == "seat_left" and f["player"] == "kp1")
    assert left["amount"] == result["amount"] > 0
    assert wallet(kicked) == 9_800 + result["amount"]
    [row] = new_rows(room, count)
    assert (row.action, row.target, row.reason, row.role) == (
        "table_kick",
        "kp1",
        "abusive",
        "floor",
    )
    assert row.before["table_id"] == "kick_t" and row.after == {
        "table_id": "kick_t",
        "leaving": True,
    }
    assert floor.code("table_kick", table_id="kick_t", player="kp1", reason="again") == "not_seated"
    assert floor.code("table_kick", table_id="nope", player="kp1", reason="x") == "unknown_table"
    assert len(room.audit_rows()) == count + 1
    seats = floor.ok("table_show", table_id="kick_t")["seats"]
    assert [s["player"] for s in seats] == ["kp2"]
    for wire in (floor, kicked, other):
        wire.close()


def test_a_banned_player_is_logged_out_cashed_out_and_cannot_log_in(room: Room) -> None:
    """player_ban: goodbye `banned` at once, stood up and cashed out, login refused with
    `banned`, the resume token void; unban lets them in again. A support role may do it."""
    support = room.staff_client("sup")
    banned, other = player(room.port, "bp1", "ban_t"), player(room.port, "bp2", "ban_t")
    banned.until(is_type("hand_started", "ban_t"))
    count = len(room.audit_rows())
    result = support.ok("player_ban", player="bp1", reason="chip dumping")
    assert banned.closed()
    assert [f["code"] for f in banned.frames if f["type"] == "goodbye"] == ["banned"]
    [out] = result["cashed_out"]
    assert out["table_id"] == "ban_t" and out["amount"] > 0
    again = Wire(room.port)
    again.ok("hello", version=1, client="desktop")
    assert again.code("login", name="bp1", password="password 1") == "banned"
    assert again.code("resume", token=banned.token) == "bad_token"
    shown = support.ok("player_show", player="bp1")
    assert shown["banned"] and shown["wallets"] == {"USD": 9_800 + out["amount"]}
    assert shown["tables"] == [] and not shown["connected"]
    assert support.code("player_ban", player="bp1", reason="twice") == "no_change"
    assert support.code("player_ban", player="nobody_here", reason="x") == "unknown_player"
    assert [r.action for r in new_rows(room, count)] == ["player_ban"]
    support.ok("player_unban", player="bp1", reason="appeal granted")
    assert again.ok("login", name="bp1", password="password 1")["player_id"] == "bp1"
    rows = new_rows(room, count)
    assert [(r.action, r.target, r.before, r.after) for r in rows] == [
        ("player_ban", "bp1", {"banned": False}, {"banned": True}),
        ("player_unban", "bp1", {"banned": True}, {"banned": False}),
    ]
    for wire in (support, other, again):
        wire.close()


def test_a_closed_table_cashes_everyone_out_and_seats_no_one(room: Room) -> None:
    """table_close: after the running hand every seat is cashed out; a new `sit` is refused
    with `table_closed`; resume opens it again."""
    floor = room.staff_client("flo")
    seated = [player(room.port, name, "close_t") for name in ("cl1", "cl2")]
    seated[0].until(is_type("hand_started", "close_t"))
    result = floor.ok("table_close", table_id="close_t", reason="end of session")
    outs = {o["player"]: o["amount"] for o in result["cashed_out"]}
    assert set(outs) == {"cl1", "cl2"} and sum(outs.values()) == 400 - _rake(room, "close_t")
    for wire, name in zip(seated, ("cl1", "cl2"), strict=True):
        assert wallet(wire) == 9_800 + outs[name]
    late = player(room.port, "cl3")
    assert late.code("sit", table_id="close_t", buy_in=200) == "table_closed"
    assert wallet(late) == 10_000
    assert floor.code("table_pause", table_id="close_t") == "table_closed"
    floor.ok("table_resume", table_id="close_t")
    assert late.ok("sit", table_id="close_t", buy_in=200)["stack"] == 200
    for wire in [floor, late, *seated]:
        wire.close()


def _rake(room: Room, table_id: str) -> int:
    """The rake the hands of a table paid so far (C-11)."""
    from pokerroom.cash.schema import cash_hand_rake, cash_hands

    with room.engine.connect() as conn:
        query = (
            sa.select(sa.func.coalesce(sa.func.sum(cash_hand_rake.c.amount), 0))
            .join(cash_hands, cash_hands.c.id == cash_hand_rake.c.hand_id)
            .where(cash_hands.c.table_id == table_id)
        )
        return int(conn.execute(query).scalar_one())


def test_wallet_corrections_by_ledger_transfer_and_a_second_admins_approval(room: Room) -> None:
    """wallet_correct (admin only): one `correction` transfer with a key, with its audit row;
    the same key never pays twice (P-2); above the limit it waits for another admin; a refused
    one (funds, conflict, bad amount) changes nothing and writes no row."""
    first, second = room.staff_client("adm1"), room.staff_client("adm2")
    erin = player(room.port, "erin")
    count = len(room.audit_rows())
    done = first.ok("wallet_correct", player="erin", amount=500, reason="promo missed", key="k1")
    assert done["status"] == "done" and done["balance"] == 10_500 and wallet(erin) == 10_500
    replay = first.ok("wallet_correct", player="erin", amount=500, reason="promo missed", key="k1")
    assert replay["replayed"] and replay["transfer_id"] == done["transfer_id"]
    assert replay["audit_id"] is None and wallet(erin) == 10_500
    conflict = first.code("wallet_correct", player="erin", amount=400, reason="x", key="k1")
    assert conflict == "idempotency_conflict"
    for bad in (1.5, "5", True, 0, None, 10**13):
        answer = first.call("wallet_correct", player="erin", amount=bad, reason="x", key="kb")
        assert answer["code"] in ("invalid_amount", "missing_field"), (bad, answer)
    assert wallet(erin) == 10_500
    [row] = new_rows(room, count)
    assert (row.action, row.staff, row.target, row.reason) == (
        "wallet_correct",
        "adm1",
        "erin",
        "promo missed",
    )
    assert row.before == {"balance": 10_000, "currency": "USD"}
    assert row.after["balance"] == 10_500 and row.after["amount"] == 500

    short = first.ok("wallet_correct", player="erin", amount=-20_000, reason="x", key="k9")
    assert short["status"] == "pending"  # above the limit: waits, even if it cannot be paid
    assert second.code("approval_approve", approval_id=short["approval_id"]) == (
        "insufficient_funds"
    )
    big = first.ok("wallet_correct", player="erin", amount=-5_000, reason="fraud refund", key="k2")
    assert big["status"] == "pending" and wallet(erin) == 10_500
    approval = big["approval_id"]
    assert first.code("approval_approve", approval_id=approval) == "own_approval"
    assert second.code("approval_approve", approval_id=approval + 1000) == "unknown_approval"
    pending = second.ok("approval_list")["approvals"]
    assert [(a["id"], a["status"], a["requested_by"]) for a in pending] == [
        (approval, "pending", "adm1"),
        (short["approval_id"], "pending", "adm1"),  # the refused approval changed nothing
    ]
    approved = second.ok("approval_approve", approval_id=approval)
    assert approved["balance"] == 5_500 and wallet(erin) == 5_500
    assert second.code("approval_approve", approval_id=approval) == "approval_not_pending"
    assert [a["id"] for a in second.ok("approval_list")["approvals"]] == [short["approval_id"]]
    rows = new_rows(room, count)
    assert [(r.action, r.staff) for r in rows] == [
        ("wallet_correct", "adm1"),
        ("wallet_correct_request", "adm1"),
        ("wallet_correct_request", "adm1"),
        ("wallet_correct", "adm2"),
    ]
    assert rows[3].after["requested_by"] == "adm1" and rows[2].reason == "fraud refund"
    with room.engine.connect() as conn:
        row = conn.execute(sa.select(approvals).where(approvals.c.id == approval)).one()
        assert (row.status, row.decided_by) == ("done", "adm2")
        kinds = conn.execute(
            sa.text(
                "SELECT kind, idempotency_key FROM journal WHERE idempotency_key LIKE 'staff:%' "
                "ORDER BY id"
            )
        ).all()
    assert [tuple(k) for k in kinds] == [
        ("correction", "staff:correct:adm1:k1"),
        ("correction", f"staff:approval:{approval}"),
    ]
    assert check_ledger(room.engine).ok
    for wire in (first, second, erin):
        wire.close()


def test_hostile_admin_frames_are_treated_as_player_frames_are(room: Room) -> None:
    """P-1 on the admin port: every bad frame answered with the player protocol's code, the
    connection kept; an oversize frame or a flood of requests closes it. Player messages are
    refused on the admin port, staff messages on the players' port."""
    wire = Wire(room.admin)
    assert wire.code("table_list") == "login_required"
    assert wire.code("login", name="sup", password=PASSWORD) == "wrong_port"
    assert wire.code("hello", version=1, client="desktop") == "wrong_port"
    for raw in (b"not json\n", b"[1, 2]\n", b'{"type":"ping","id":1,"id":2}\n', b"\xff\xfe\n"):
        wire.raw(raw)
        answer = wire.until(lambda f: f["type"] == "error")
        assert (answer["code"], answer["id"]) == ("bad_frame", None), raw
    wire.raw(b'{"type":"ping"}\n')
    assert wire.until(lambda f: f["type"] == "error")["code"] == "bad_request_id"
    assert wire.code("staff_login", name="sup") == "missing_field"
    assert wire.code("staff_login", name="sup", password=PASSWORD, role="admin") == "unknown_field"
    wire.ok("staff_login", name="sup", password=PASSWORD)
    assert wire.code("staff_login", name="sup", password=PASSWORD) == "already_logged_in"
    assert wire.code("drop_tables") == "unknown_message"
    assert wire.code("player_show", player="erin", colour="red") == "unknown_field"
    assert wire.code("player_show", player="erin", staff="adm1") == "identity_not_allowed"
    assert wire.code("player_show") == "missing_field"
    assert wire.code("player_show", player="Bad Name!") == "bad_field"
    assert wire.code("table_show", table_id="x" * 200) == "bad_field"
    assert wire.code("player_mute", player="erin", reason="x", minutes=-1) == "bad_field"
    assert wire.ok("ping")["server_time_ms"] > 0  # still open after all that
    wire.raw(b'{"type":"ping","id":1,"pad":"' + b"x" * 70_000 + b'"}\n')
    assert wire.closed()
    assert [f["code"] for f in wire.frames if f["type"] == "goodbye"] == ["frame_too_large"]
    flood = room.staff_client("sup")
    flood.raw(b"".join(b'{"type":"table_list","id":%d}\n' % i for i in range(40)))
    assert flood.closed()
    assert [f["code"] for f in flood.frames if f["type"] == "goodbye"] == ["too_many_requests"]
    players_port = Wire(room.port)
    players_port.ok("hello", version=1, client="desktop")
    assert players_port.code("staff_login", name="sup", password=PASSWORD) == "unknown_message"
    players_port.ok("login", name="erin", password="password 1")
    assert players_port.code("table_pause", table_id="role_t") == "unknown_message"
    assert players_port.code("player_ban", player="rolep", reason="x") == "unknown_message"
    players_port.close()


def test_staff_logins_are_throttled_and_a_disabled_account_is_shut_out(room: Room) -> None:
    """Three wrong passwords lock the name (too_many_attempts, details until_ms) even for the
    right password; an unknown name is bad_credentials; `pokerroom staff disable` ends an open
    session at its next request and refuses the login, with its audit row."""
    wire = Wire(room.admin)
    for _ in range(3):
        assert wire.code("staff_login", name="lock", password="wrong password") == "bad_credentials"
    answer = wire.call("staff_login", name="lock", password=PASSWORD)
    assert answer["code"] == "too_many_attempts" and answer["details"]["until_ms"] > 0
    assert wire.code("staff_login", name="nobody", password=PASSWORD) == "bad_credentials"
    wire.close()
    gone = room.staff_client("gone")
    gone.ok("table_list")
    count = len(room.audit_rows())
    done = CliRunner().invoke(main, ["staff", "disable", "gone", "--yes", "--db", room.url])
    assert done.exit_code == 0, done.output
    assert gone.code("table_list") == "staff_disabled"
    assert gone.closed()
    again = Wire(room.admin)
    assert again.code("staff_login", name="gone", password=PASSWORD) == "bad_credentials"
    again.close()
    [row] = new_rows(room, count)
    assert (row.staff, row.role, row.action, row.target) == (
        console_actor().name,
        "console",
        "staff_disable",
        "gone",
    )
    listed = CliRunner().invoke(main, ["staff", "list", "--json", "--db", room.url])
    members = {m["name"]: m for m in json.loads(listed.output)["staff"]}
    assert members["gone"]["disabled"] and members["flo"]["role"] == "floor"


def test_the_admin_cli(room: Room, tmp_path: Path) -> None:
    """`pokerroom admin`: --json on reads, a confirmation on changes (declined: nothing
    changes), --reason required on disciplinary and money commands, codes in errors,
    credentials from the environment, a config file, or a hidden prompt."""
    runner = CliRunner()
    env = {
        "POKERROOM_ADMIN_SERVER": room.admin,
        "POKERROOM_ADMIN_USER": "flo",
        "POKERROOM_ADMIN_PASSWORD": PASSWORD,
    }

    def run(*args: str, input: str | None = None, extra: dict[str, str] | None = None) -> Any:
        return runner.invoke(main, ["admin", *args], env={**env, **(extra or {})}, input=input)

    listed = run("table", "list", "--json")
    assert listed.exit_code == 0, listed.output
    assert {t["table_id"] for t in json.loads(listed.output)["tables"]} == set(TABLES)
    count = len(room.audit_rows())
    declined = run("table", "pause", "role_t", input="n\n")
    assert declined.exit_code == 1 and "Aborted" in declined.output
    assert len(room.audit_rows()) == count
    assert run("table", "pause", "role_t", input="y\n").exit_code == 0
    assert run("table", "resume", "role_t", "--yes", "--reason", "back").exit_code == 0
    assert [r.action for r in new_rows(room, count)] == ["table_pause", "table_resume"]
    no_reason = run("player", "ban", "erin", "--yes")
    assert no_reason.exit_code == 2 and "--reason" in no_reason.output
    forbidden = run("wallet", "correct", "erin", "--amount", "-5", "--reason", "x", "--yes")
    assert forbidden.exit_code == 1 and "forbidden" in forbidden.output
    shown = run("player", "show", "erin")
    assert shown.exit_code == 0 and "wallets" in shown.output
    config = tmp_path / "admin.toml"
    config.write_text(f'server = "{room.admin}"\nuser = "dir"\npassword = "{PASSWORD}"\n')
    audit_rows = runner.invoke(main, ["admin", "--config", str(config), "audit", "--json"], env={})
    assert audit_rows.exit_code == 0, audit_rows.output
    assert json.loads(audit_rows.output)["rows"][0]["action"] == "table_resume"
    prompted = runner.invoke(
        main,
        ["admin", "--server", room.admin, "--user", "dir", "audit", "--since", "1h"],
        env={"POKERROOM_ADMIN_PASSWORD": ""},
        input=f"{PASSWORD}\n",
    )
    assert prompted.exit_code == 0, prompted.output
    assert PASSWORD not in prompted.output  # the prompt does not echo it
    assert len(room.audit_rows()) == count + 2


def test_mutes_blocks_and_moderators_as_players_see_them(room: Room) -> None:
    """player_mute / unmute (C-13): the muted player's lines are refused with `chat_muted`
    (everywhere, or at one table only) until lifted; player_block_lift (C-8): a blocked player
    is refused a seat at that level, then sits; player_moderator: the right shows at the next
    login; player_show lists all of it."""
    support = room.staff_client("sup")
    talker = player(room.port, "mut1")
    for table in ("chat_t", "role_t"):
        talker.ok("observe", table_id=table)
    count = len(room.audit_rows())
    muted = support.ok("player_mute", player="mut1", reason="spam", minutes=10)
    assert muted["until_ms"] > 0
    answer = talker.call("chat", table_id="chat_t", text="hello all")
    assert answer["code"] == "chat_muted" and answer["details"]["until_ms"] == muted["until_ms"]
    assert support.ok("player_unmute", player="mut1")["lifted"] == 1
    assert support.code("player_unmute", player="mut1") == "no_change"
    talker.ok("chat", table_id="chat_t", text="thanks")
    support.ok("player_mute", player="mut1", reason="flooding", table_id="chat_t")
    assert talker.code("chat", table_id="chat_t", text="one more") == "chat_muted"
    talker.ok("chat", table_id="role_t", text="fine here")
    shown = support.ok("player_show", player="mut1")
    assert [(m["table_id"], m["until_ms"], m["by"]) for m in shown["mutes"]] == [
        ("chat_t", None, "sup")
    ]
    assert {t["table_id"] for t in shown["tables"]} == {"chat_t", "role_t"}
    assert [r.action for r in new_rows(room, count)] == [
        "player_mute",
        "player_unmute",
        "player_mute",
    ]

    blocked = player(room.port, "blk1")
    from pokerroom.cash.schema import cash_blocks  # a C-8 block as two declines leave it

    until = int(time.time() * 1000) + 3_600_000
    with room.engine.begin() as conn:
        conn.execute(
            sa.insert(cash_blocks).values(
                player_id="blk1", stakes="USD:1/2", decline_number=2, until_ms=until
            )
        )
    answer = blocked.call("sit", table_id="chat_t", buy_in=200)
    assert answer["code"] == "blocked" and answer["details"]["until_ms"] == until
    assert support.ok("player_show", player="blk1")["blocks"][0]["until_ms"] == until
    lift = dict(player="blk1", level="USD:5/10", reason="wrong level")
    assert support.code("player_block_lift", **lift) == "no_change"
    assert support.code("player_block_lift", **{**lift, "level": "1/2"}) == "bad_field"
    lifted = support.ok("player_block_lift", player="blk1", level="USD:1/2", reason="misclick")
    assert lifted["lifted_until_ms"] == until
    assert blocked.ok("sit", table_id="chat_t", buy_in=200)["stack"] == 200
    assert support.ok("player_show", player="blk1")["blocks"] == []

    support.ok("player_moderator", player="blk1", on=True, reason="trusted regular")
    assert support.code("player_moderator", player="blk1", on=True) == "no_change"
    again = Wire(room.port)
    again.ok("hello", version=1, client="desktop")
    assert again.ok("login", name="blk1", password="password 1")["moderator"] is True
    assert again.ok("mute", target="mut1", minutes=5)["until_ms"] > 0  # the right works
    rows = new_rows(room, count)[3:]
    assert [(r.action, r.target, r.before, r.after) for r in rows] == [
        (
            "player_block_lift",
            "blk1",
            {"stakes": "USD:1/2", "blocked_until_ms": until},
            {"stakes": "USD:1/2", "blocked_until_ms": None},
        ),
        ("player_moderator", "blk1", {"moderator": False}, {"moderator": True}),
    ]
    for wire in (support, talker, blocked, again):
        wire.close()


def test_the_ledger_balances_after_every_staff_action(room: Room) -> None:
    """P-2: whatever staff did above, the ledger still balances and no wallet is negative."""
    assert check_ledger(room.engine).ok
