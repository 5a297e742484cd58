"""Casino tables over the protocol (docs/PROTOCOL.md section 10), against an in-process room:
two players bet on one roulette round; each sees their own settlement and the other's totals
only; a retried confirmation moves nothing (P-2); every frame matches its declaration."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine
from twisted.internet.task import Clock

from pokerroom.casino import money
from pokerroom.ledger import LedgerService, transfers
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.reports import check_ledger
from pokerroom.protocol.catalog import validate
from tests.ledger.conftest import QueueReactor
from tests.server.casino_room import casino_open, fund_bankroll
from tests.server.harness import Client, Room

USD = "USD"
WINDOW = 45  # config/casino/roulette.toml


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: LedgerService) -> Iterator[Room]:
    r = Room(reactor, clock, ledger)
    try:
        with casino_open(r, USD):
            yield r
    finally:
        r.stop()


def player(room: Room, name: str) -> Client:
    c = room.client()
    c.login(name)
    c.ok("deposit", amount=10_000, key=f"dep-{name}")
    return c


def balance(engine: Engine, ref: object) -> int:
    return get_account(engine, ref).balance  # type: ignore[arg-type]


def test_two_players_one_round(room: Room, engine: Engine) -> None:
    """Several players, one round, one settlement; own lines to each, totals to all."""
    transfers.move(engine, key="bankroll", kind="deposit", currency=USD, source=external(USD),
                   destination=money.bankroll(USD), amount=1_000_000)  # fmt: skip
    alice, bob = player(room, "alice"), player(room, "bob")
    tables = alice.ok("casino_tables")["tables"]
    assert sorted(t["game"] for t in tables) == [
        "baccarat", "blackjack", "dragon_tiger", "progressive", "roulette", "sicbo",
    ]  # fmt: skip
    assert all(t["phase"] == "between" and t["round_id"] is None for t in tables)  # idle
    assert alice.error("casino_join", table_id="nowhere") == "unknown_table"
    joined = alice.ok("casino_join", table_id="roulette-1")["table"]
    room.drain()
    bob.ok("casino_join", table_id="roulette-1")
    opened = alice.of_type("casino_betting_open")
    assert len(opened) == 1 and opened[0]["table_id"] == "roulette-1"
    assert joined["players"] == 1
    round_id = opened[0]["round_id"]
    assert alice.error("casino_confirm", table_id="roulette-1", key="k0") == "no_draft"
    alice.ok("casino_place", table_id="roulette-1", spot="red", amount=150)
    alice.ok("casino_place", table_id="roulette-1", spot="black", amount=50)
    assert alice.ok("casino_undo", table_id="roulette-1") == {
        "bets": [{"spot": "red", "amount": 150}]
    }
    draft = alice.ok("casino_double", table_id="roulette-1")
    assert draft == {"bets": [{"spot": "red", "amount": 300}]}
    assert alice.error("casino_rebet", table_id="roulette-1") == "no_draft"
    first = alice.ok("casino_confirm", table_id="roulette-1", key="a1")
    again = alice.ok("casino_confirm", table_id="roulette-1", key="a1")  # a retry (P-2)
    assert (first["staked"], first["replayed"], again["replayed"]) == (300, False, True)
    bob.ok("casino_place", table_id="roulette-1", spot="black", amount=200)
    bob.ok("casino_place", table_id="roulette-1", spot="straight:0", amount=100)
    assert bob.ok("casino_confirm", table_id="roulette-1", key="b1")["staked"] == 300
    assert bob.error("casino_place", table_id="roulette-1", spot="red", amount=0) in (
        "bad_field", "invalid_amount",
    )  # fmt: skip
    assert balance(engine, wallet("alice", USD)) == 9_700
    room.advance(WINDOW)
    result = alice.of_type("casino_result")
    assert len(result) == 1 and bob.of_type("casino_result") == result
    pocket = result[0]["outcome"]["pocket"]
    assert {t["player"]: t["staked"] for t in result[0]["totals"]} == {"alice": 300, "bob": 300}
    mine, theirs = alice.of_type("casino_settlement"), bob.of_type("casino_settlement")
    assert len(mine) == len(theirs) == 1
    assert [line["spot"] for line in mine[0]["lines"]] == ["red"]
    assert [line["spot"] for line in theirs[0]["lines"]] == ["black", "straight:0"]
    paid = {t["player"]: t["paid"] for t in result[0]["totals"]}
    assert balance(engine, wallet("alice", USD)) == 9_700 + paid["alice"]
    assert balance(engine, wallet("bob", USD)) == 9_700 + paid["bob"]
    if pocket == 0:
        assert paid == {"alice": 0, "bob": 3_600}
    assert paid["alice"] in (0, 600) and mine[0]["paid"] == paid["alice"]
    history = alice.ok("casino_history")["rounds"]
    assert [(h["round_id"], h["status"], h["paid"]) for h in history] == [
        (round_id, "settled", paid["alice"])
    ]
    for frame in alice.inbox + bob.inbox:
        validate(frame)
    report = check_ledger(engine)
    assert report.ok and report.currency_totals[USD] == 0


def test_every_casino_refusal_code_is_documented() -> None:
    """The table's codes a player can receive, and the core's bet codes, are in PROTOCOL.md."""
    from pathlib import Path

    from pokerroom.casino import codes
    from pokerroom.casino.core import errors as core

    doc = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text()
    staff_or_field = {codes.NO_ROUND, codes.MISSING_KEY}  # staff only; a missing key is a field
    bets = {core.UNKNOWN_SPOT, core.SPOT_CLOSED, core.INVALID_STAKE, core.BELOW_MINIMUM,
            core.ABOVE_MAXIMUM}  # fmt: skip
    # casino_decide (BJ-9 … BJ-13)
    decisions = {core.NOT_YOUR_TURN, core.WRONG_PHASE, core.NOT_ALLOWED, core.UNKNOWN_BOX,
                 core.ROUND_OVER, codes.MISSING_KEY}  # fmt: skip
    wanted = (set(codes.ALL_CODES) - staff_or_field) | bets | decisions | {"unknown_table"}
    assert sorted(code for code in wanted if f"`{code}`" not in doc) == []


def test_every_table_event_has_the_message_of_its_fields() -> None:
    """casino_desk.MESSAGES: every event a casino table tells has its message, with the same
    fields in the same order (so the conversion by name drops and invents nothing); nested
    totals and lines convert to their wire objects and the frame validates."""
    import dataclasses
    import typing

    from pokerroom.casino import events as ev
    from pokerroom.protocol.events import as_dict
    from pokerroom.server.casino_desk import MESSAGES, as_message

    assert set(MESSAGES) == set(typing.get_args(ev.CasinoEvent))
    for event, wire in MESSAGES.items():
        assert [f.name for f in dataclasses.fields(event)] == list(wire.__struct_fields__)
    line = ev.SettledLine("box:1", 100, "win", 250)
    own = ev.OwnSettlement("t", "r", (line,), 100, 250, 0, 0, True)
    frame = as_dict(as_message(own))
    validate(frame)
    assert frame["lines"] == [{"spot": "box:1", "stake": 100, "result": "win", "returned": 250}]
    voided = as_dict(as_message(ev.RoundVoided("t", "r", "fault", True)))
    assert voided["type"] == "casino_round_void" and voided["partial"] is True


def test_a_dropped_player_leaves_and_the_bet_still_settles(room: Room, engine: Engine) -> None:
    """K-9: a disconnection neither voids the round nor changes its result; the player leaves
    the table, so a table nobody sits at any more rests (no new round)."""
    transfers.move(engine, key="bankroll", kind="deposit", currency=USD, source=external(USD),
                   destination=money.bankroll(USD), amount=1_000_000)  # fmt: skip
    bob = player(room, "bob")
    bob.ok("casino_join", table_id="roulette-1")
    room.drain()
    bob.ok("casino_place", table_id="roulette-1", spot="red", amount=500)
    bob.ok("casino_confirm", table_id="roulette-1", key="b1")
    bob.session.connectionLost()
    table = room.lobby.casino_desk.tables["roulette-1"]
    assert table.players == set()
    room.advance(WINDOW)
    room.advance(table.config.between_s)
    assert table.round is None and table.phase == "between"  # settled, then idle
    again = player(room, "bob")  # logs in again (the deposit key is a replay)
    [past] = again.ok("casino_history")["rounds"]
    assert past["status"] == "settled" and past["bets"] == [{"spot": "red", "amount": 500}]
    assert balance(engine, wallet("bob", USD)) == 10_000 - 500 + past["paid"]


def test_a_blackjack_hand_over_the_protocol(room: Room, engine: Engine) -> None:
    """Bet a box, get the deal and `casino_decision_due`, stand (or answer the insurance window
    by declining), and the round settles; every frame matches its declaration."""
    transfers.move(engine, key="bankroll", kind="deposit", currency=USD, source=external(USD),
                   destination=money.bankroll(USD), amount=1_000_000)  # fmt: skip
    eve = player(room, "eve")
    eve.ok("casino_join", table_id="blackjack-1")
    room.drain()
    eve.ok("casino_place", table_id="blackjack-1", spot="box:3", amount=100)
    eve.ok("casino_confirm", table_id="blackjack-1", key="e1")
    assert eve.error("casino_decide", table_id="blackjack-1", box=3, action="stand") == (
        "wrong_phase"
    )
    room.advance(30)  # config/casino/blackjack.toml bet_window_s
    for _ in range(10):  # answer every decision due with the safe default by hand
        if eve.of_type("casino_settlement"):
            break
        due = eve.of_type("casino_decision_due")[-1]
        action = "decline" if "decline" in due["actions"] else "stand"
        answer = eve.request("casino_decide", table_id="blackjack-1", box=3, action=action)
        assert answer["type"] == "ok", answer
        room.drain()
    [own] = eve.of_type("casino_settlement")
    assert own["staked"] == 100
    assert balance(engine, wallet("eve", USD)) == 9_900 + own["paid"]
    assert eve.of_type("casino_blackjack_move")[-1]["kind"] == "round_over"
    for frame in eve.inbox:
        validate(frame)
    assert check_ledger(engine).ok


def test_an_unfunded_table_waits_for_the_bankroll_and_says_so(
    reactor: QueueReactor, clock: Clock, ledger: LedgerService
) -> None:
    """docs/CASINO.md: with the bankroll at 0 a join opens no round; the lobby line's phase and
    one `casino_table_state` say `waiting_for_bankroll`; once funded the next check (one round's
    length later) opens the round with no staff action."""
    room = Room(reactor, clock, ledger)
    try:
        with casino_open(room, USD, bankroll=0) as desk:
            alice = player(room, "alice")
            alice.ok("casino_join", table_id="roulette-1")
            room.drain()
            table = desk.tables["roulette-1"]
            period = table.game.window_s + table.config.between_s
            tables = alice.ok("casino_tables")["tables"]
            [line] = [t for t in tables if t["table_id"] == "roulette-1"]
            assert (line["phase"], line["round_id"]) == ("waiting_for_bankroll", None)
            room.advance(period)
            states = alice.of_type("casino_table_state")
            assert [(s["open"], s["reason"]) for s in states] == [(False, "waiting_for_bankroll")]
            assert alice.of_type("casino_betting_open") == []
            assert table.exposure() == table.config.max_win  # one player seated
            fund_bankroll(room, table.config.max_win or 0)
            alice.ok("casino_tables")  # traffic: not idle (PROTOCOL.md section 4)
            room.advance(period)
            states = alice.of_type("casino_table_state")
            assert [(s["open"], s["reason"]) for s in states][-1] == (True, "")
            assert len(alice.of_type("casino_betting_open")) == 1
            assert table.phase == "betting"
            for frame in alice.inbox:
                validate(frame)
    finally:
        room.stop()


def test_an_observer_sees_totals_only_and_clear_and_leave(room: Room, engine: Engine) -> None:
    """PROTOCOL 10: `casino_observe` gives the round events and every player's totals, never a
    settlement of anyone's lines, and no bet (`not_at_table`); `casino_clear` drops a draft (the
    confirm then has `no_draft`); after `casino_leave` a bet is `not_at_table`, and the events
    stop."""
    alice, carol = player(room, "alice"), player(room, "carol")
    watched = carol.ok("casino_observe", table_id="roulette-1")["table"]
    assert watched["table_id"] == "roulette-1" and watched["players"] == 0
    assert carol.error("casino_observe", table_id="nowhere") == "unknown_table"
    alice.ok("casino_join", table_id="roulette-1")
    room.drain()
    assert len(carol.of_type("casino_betting_open")) == 1  # the observer hears the round
    assert carol.error("casino_place", table_id="roulette-1", spot="red", amount=100) == (
        "not_at_table"
    )
    alice.ok("casino_place", table_id="roulette-1", spot="black", amount=100)
    alice.ok("casino_clear", table_id="roulette-1")
    assert alice.error("casino_confirm", table_id="roulette-1", key="a0") == "no_draft"
    alice.ok("casino_place", table_id="roulette-1", spot="red", amount=200)
    alice.ok("casino_confirm", table_id="roulette-1", key="a1")
    room.advance(WINDOW)
    [result] = carol.of_type("casino_result")
    assert [(t["player"], t["staked"]) for t in result["totals"]] == [("alice", 200)]
    assert set(result) == {"type", "table_id", "round_id", "outcome", "totals"}
    assert carol.of_type("casino_settlement") == [] and len(alice.of_type("casino_settlement")) == 1
    assert carol.ok("casino_history")["rounds"] == []  # watching is not playing
    assert balance(engine, wallet("alice", USD)) == 10_000 - 200 + result["totals"][0]["paid"]
    assert alice.ok("casino_leave", table_id="roulette-1") == {}
    carol.ok("casino_leave", table_id="roulette-1")
    heard = len(carol.of_type("casino_betting_open"))
    room.advance(room.lobby.casino_desk.tables["roulette-1"].config.between_s)
    assert alice.error("casino_place", table_id="roulette-1", spot="red", amount=100) == (
        "not_at_table"
    )
    assert len(carol.of_type("casino_betting_open")) == heard  # left: nothing more, and idle
    for frame in alice.inbox + carol.inbox:
        validate(frame)
    assert check_ledger(engine).ok
