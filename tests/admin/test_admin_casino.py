"""Staff commands on casino tables in process (docs/ADMIN.md): list, close, open, and a void
with its reason, audited; the void returns exactly the stakes (K-7, L-5)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from twisted.internet.task import Clock

from pokerroom.admin.roles import Role
from pokerroom.admin.schema import audit
from pokerroom.admin.store import wallet_balance
from pokerroom.ledger.db import read
from tests.admin.rooms import Staff, admin_of, logged_in, staffed_room
from tests.ledger.conftest import QueueReactor
from tests.server.casino_room import casino_open
from tests.server.conftest import CountingLedger
from tests.server.harness import Room


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: CountingLedger) -> Iterator[Room]:
    """The five casino tables, a floor member `flo` and a support member `sue`."""
    members = {"flo": Role.FLOOR, "sue": Role.SUPPORT}
    with staffed_room(reactor, clock, ledger, members) as built, casino_open(built):
        yield built


def wallet(room: Room, player: str) -> int:
    return read(room.ledger.engine, lambda conn: wallet_balance(conn, player, "USD"))


def staff(room: Room, name: str) -> Staff:
    return logged_in(room, admin_of(room), name)


def test_void_a_round_with_a_reason_returns_the_stakes_and_is_audited(room: Room) -> None:
    players = []
    for name, stake in (("ann", 300), ("bob", 120)):
        client = room.client()
        client.login(name)
        client.ok("deposit", amount=1_000, key="start")
        client.ok("casino_join", table_id="sicbo-1")
        room.drain()
        client.ok("casino_place", table_id="sicbo-1", spot="big", amount=stake)
        client.ok("casino_confirm", table_id="sicbo-1", key="c1")
        players.append(client)
    assert (wallet(room, "ann"), wallet(room, "bob")) == (700, 880)
    sue, flo = staff(room, "sue"), staff(room, "flo")
    listed = sue.call("casino_table_list")["result"]["tables"]
    line = next(t for t in listed if t["table_id"] == "sicbo-1")
    assert (line["phase"], line["staked"], line["players"]) == ("betting", 420, ["ann", "bob"])
    refused = sue.call("casino_round_void", table_id="sicbo-1", reason="dice sensor")
    assert refused["type"] == "error" and refused["code"] == "forbidden"  # support < floor
    assert flo.call("casino_round_void", table_id="sicbo-1")["code"] == "missing_field"
    answer = flo.call("casino_round_void", table_id="sicbo-1", reason="dice sensor")
    assert answer["type"] == "ok", answer
    result = answer["result"]
    assert sorted((r["player"], r["amount"]) for r in result["refunds"]) == [
        ("ann", 300), ("bob", 120),
    ]  # fmt: skip
    assert (wallet(room, "ann"), wallet(room, "bob")) == (1_000, 1_000)
    assert [f["reason"] for f in players[0].of_type("casino_round_void")] == ["staff: dice sensor"]
    rows = read(
        room.ledger.engine,
        lambda conn: conn.execute(
            sa.select(audit.c.action, audit.c.staff, audit.c.reason, audit.c.target)
        ).all(),
    )
    assert ("casino_round_void", "flo", "dice sensor", "sicbo-1") in [tuple(r) for r in rows]
    # Void closes the table (K-7); a second void has nothing to void; staff open it again.
    again = flo.call("casino_round_void", table_id="sicbo-1", reason="again")
    assert again["code"] == "no_change"
    assert flo.call("casino_table_open", table_id="sicbo-1")["result"]["phase"] == "opening"
    room.drain()
    assert room.lobby.casino_desk.tables["sicbo-1"].phase == "betting"


def test_close_lets_the_round_settle_and_opens_no_new_one(room: Room) -> None:
    client = room.client()
    client.login("cal")
    client.ok("casino_join", table_id="dragon_tiger-1")
    room.drain()
    flo = staff(room, "flo")
    assert flo.call("casino_table_close", table_id="nowhere")["code"] == "unknown_table"
    closed = flo.call("casino_table_close", table_id="dragon_tiger-1", reason="dealer break")
    assert closed["type"] == "ok" and closed["result"]["phase"] == "betting"  # settles first
    assert flo.call("casino_table_close", table_id="dragon_tiger-1")["code"] == "no_change"
    table = room.lobby.casino_desk.tables["dragon_tiger-1"]
    room.advance(table.game.window_s)
    room.advance(table.config.between_s * 2)
    assert table.phase == "closed" and table.round is None
    assert flo.call("casino_table_open", table_id="dragon_tiger-1")["type"] == "ok"
