"""The lobby against real cash-table actors: routing, the C-1 cap, chat C-13, C-14, C-15."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from twisted.internet.task import Clock

from pokerroom.cash import TableActor
from pokerroom.ledger import LedgerService
from pokerroom.protocol import errors
from tests.ledger.conftest import QueueReactor
from tests.server.harness import Client, Room


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: LedgerService) -> Iterator[Room]:
    """A room with five 6-max NLHE tables t1..t5."""
    room = Room(reactor, clock, ledger)
    for n in range(1, 6):
        room.add_table(f"t{n}", seed=n)
    yield room
    room.stop()


def funded(room: Room, name: str, client: str = "desktop") -> Client:
    """A logged-in client with 1,000.00 in the wallet."""
    player = room.client()
    player.login(name, client=client)
    player.ok("deposit", amount=100_000, key="start")
    return player


def to_act(actor: TableActor) -> str:
    """The player whose turn it is."""
    assert actor.hand is not None and actor.phase == "playing"
    return actor.players[actor.hand.actor]


def test_lobby_lists_tables_and_pushes_updates(room: Room) -> None:
    """lobby_list shows every table; subscribers get lobby_update when someone sits."""
    watcher = funded(room, "watcher")
    tables = watcher.ok("lobby_subscribe")["tables"]
    assert [t["table_id"] for t in tables] == ["t1", "t2", "t3", "t4", "t5"]
    assert tables[0]["players"] == 0
    alice = funded(room, "alice")
    alice.ok("sit", table_id="t2", buy_in=200)
    updates = watcher.of_type("lobby_update")
    assert updates[-1]["table"]["table_id"] == "t2" and updates[-1]["table"]["players"] == 1


def test_c1_table_cap_per_client_kind_and_no_state_change(room: Room) -> None:
    """C-1: a mobile client may open 4 tables; the 5th is refused and changes nothing."""
    phone = funded(room, "phone", client="mobile")
    for n in range(1, 4):
        phone.ok("observe", table_id=f"t{n}")
    phone.ok("sit", table_id="t4", buy_in=200)  # sitting opens a table too
    assert phone.error("observe", table_id="t5") == errors.TABLE_CAP_REACHED
    assert phone.error("sit", table_id="t5", buy_in=200) == errors.TABLE_CAP_REACHED
    t5 = room.lobby.tables["t5"]
    assert "phone" not in t5.audience and phone.ok("wallet")["balance"] == 100_000 - 200
    phone.ok("observe", table_id="t1")  # already open: not one more
    phone.ok("unobserve", table_id="t1")
    phone.ok("observe", table_id="t5")
    assert room.lobby.open_tables("phone") == ["t2", "t3", "t4", "t5"]
    desk = funded(room, "desk", client="desktop")
    for n in range(1, 6):
        desk.ok("observe", table_id=f"t{n}")  # desktop: 8


def test_unobserve_while_seated_is_refused(room: Room) -> None:
    """A seated player must leave before closing the table."""
    alice = funded(room, "alice")
    alice.ok("sit", table_id="t1", buy_in=200)
    assert alice.error("unobserve", table_id="t1") == "still_seated"
    assert alice.error("unobserve", table_id="t2") == errors.NOT_AT_TABLE


def start_hand(room: Room, table: str = "t1") -> tuple[Client, Client, TableActor]:
    """Alice and Bob sit at `table` and a hand starts."""
    alice, bob = funded(room, "alice"), funded(room, "bob")
    assert alice.ok("sit", table_id=table, buy_in=200, seat=0) == {"seat": 0, "stack": 200}
    bob.ok("sit", table_id=table, buy_in=200, seat=1)
    room.advance(1)
    actor = room.lobby.tables[table]
    assert actor.phase == "playing"
    return alice, bob, actor


def test_out_of_turn_and_bad_actions_get_codes_and_change_nothing(room: Room) -> None:
    """P-1: out of turn, bad sizes and strangers are refused; the hand is untouched."""
    alice, bob, actor = start_hand(room)
    clients = {"alice": alice, "bob": bob}
    waiting = clients["bob" if to_act(actor) == "alice" else "alice"]
    before = (actor.hand.actor, list(actor.hand.bets), list(actor.hand.stacks))  # type: ignore[union-attr]
    assert waiting.error("act", table_id="t1", action="fold") == "not_your_turn"
    mover = clients[to_act(actor)]
    assert mover.error("act", table_id="t1", action="raise", amount=3) == "below_min_raise"
    assert mover.error("act", table_id="t1", action="raise", amount=-3) == errors.INVALID_AMOUNT
    assert (
        mover.error("act", table_id="t1", action="fold", player_id="bob")
        == errors.IDENTITY_NOT_ALLOWED
    )
    carol = funded(room, "carol")
    assert carol.error("act", table_id="t1", action="fold") == "not_seated"
    after = (actor.hand.actor, list(actor.hand.bets), list(actor.hand.stacks))  # type: ignore[union-attr]
    assert before == after
    mover.ok("act", table_id="t1", action="call")
    assert any(f["type"] == "player_acted" for f in waiting.read() + waiting.inbox)


def test_c15_hole_cards_go_to_their_holder_only(room: Room) -> None:
    """C-15: each client gets its own hole cards and never the other's."""
    alice, bob, _actor = start_hand(room)
    watcher = funded(room, "watcher")
    watcher.ok("observe", table_id="t1")
    for client in (alice, bob):
        cards = client.of_type("hole_cards")
        assert len(cards) == 1
    assert watcher.of_type("hole_cards") == []
    assert alice.of_type("hole_cards")[0]["cards"] != bob.of_type("hole_cards")[0]["cards"]
    snapshot = watcher.inbox[-1]["result"]["snapshot"]
    for seat in (snapshot.get("hand") or {}).get("players", []):
        assert not seat.get("cards")


def test_c13_chat_at_a_table_and_no_hand_talk_by_non_players(room: Room) -> None:
    """C-13: players in the hand may chat; an observer is refused while the hand runs."""
    alice, bob, _actor = start_hand(room)
    watcher = funded(room, "watcher")
    assert watcher.error("chat", table_id="t1", text="hi") == errors.NOT_AT_TABLE
    watcher.ok("observe", table_id="t1")
    assert watcher.error("chat", table_id="t1", text="bob has AA") == errors.CHAT_HAND_IN_PROGRESS
    alice.ok("chat", table_id="t1", text="good luck")
    line = bob.of_type("chat")[-1]
    assert (line["player"], line["text"], line["table_id"]) == ("alice", "good luck", "t1")
    assert watcher.of_type("chat")[-1]["text"] == "good luck"


def test_c14_drop_keeps_the_seat_and_resume_resends_the_table(room: Room) -> None:
    """C-14: a dropped player keeps the seat; on resume the snapshot comes back."""
    alice, _bob, actor = start_hand(room)
    alice.ok("logout")
    alice2 = room.client()
    alice2.ok("hello", version=1, client="desktop")
    result = alice2.ok("login", name="alice", password="correct horse")
    assert result["tables"] == ["t1"]
    assert "alice" in actor.by_player
    token = result["token"]
    alice2.session.connectionLost(None)
    assert actor.seats[actor.by_player["alice"]].disconnected
    alice3 = room.client()
    alice3.ok("hello", version=1, client="desktop")
    assert alice3.ok("resume", token=token)["tables"] == ["t1"]
    snapshots = alice3.of_type("table_snapshot")
    assert snapshots and snapshots[-1]["table_id"] == "t1"
    assert not actor.seats[actor.by_player["alice"]].disconnected


def test_leave_answers_after_the_hand_and_cashes_out(room: Room) -> None:
    """A leave during a hand is answered when the seat is cashed out; other requests go on."""
    alice, bob, actor = start_hand(room)
    alice.raw(b'{"type":"leave","id":"L","table_id":"t1"}\n')
    room.drain()
    assert alice.ok("ping")  # not blocked behind the pending leave
    for _ in range(50):
        if actor.phase != "playing":
            break
        player = to_act(actor)
        client = alice if player == "alice" else bob
        legal = actor.hand.legal_actions(actor.hand.actor)  # type: ignore[union-attr]
        client.ok("act", table_id="t1", action="call" if legal.call_amount else "check")
        room.drain()
    answer = alice.answer("L")
    assert answer["type"] == "ok" and answer["result"]["amount"] >= 0
    assert "alice" not in actor.by_player


def test_own_hand_histories_after_a_hand(room: Room) -> None:
    """hand_histories: the player's finished hands as PHH, others' hole cards masked (C-15)."""
    alice, bob, actor = start_hand(room)
    mover = alice if to_act(actor) == "alice" else bob
    mover.ok("act", table_id="t1", action="fold")
    room.drain()
    hands = alice.ok("hand_histories", table_id="t1")["hands"]
    assert len(hands) == 1 and "t1" in hands[0]
    bob_cards = "".join(bob.of_type("hole_cards")[0]["cards"])
    assert bob_cards not in hands[0]
    assert "".join(alice.of_type("hole_cards")[0]["cards"]) in hands[0]
    assert alice.ok("hand_histories", table_id="t2")["hands"] == []


def test_hand_histories_are_cut_to_fit_a_small_page() -> None:
    """An answer stays within the page budget: older hands wait for the next page (P-1)."""
    from pokerroom.protocol.events import ok
    from pokerroom.protocol.framing import encode_frame
    from pokerroom.server.lobby import HISTORY_PAGE_BYTES, page_histories

    rows = [(f"{1000 - i}:h{i}", f"hand {i}\n" + "x" * 5_000) for i in range(40)]
    result = page_histories(rows, 20)
    kept = len(result["hands"])
    assert result["truncated"] and result["hands"] == [text for _, text in rows[:kept]]
    assert result["next"] == rows[kept - 1][0]
    assert len(encode_frame(ok(1, "hand_histories", result))) <= HISTORY_PAGE_BYTES + 1024
    texts = [text for _, text in rows[:3]]
    assert page_histories(rows[:3], 3) == {"hands": texts, "truncated": False, "next": None}
    assert page_histories(rows[:4], 3) == {"hands": texts, "truncated": False, "next": rows[2][0]}


def test_c6_c7_clock_and_time_bank_are_announced_over_the_protocol(room: Room) -> None:
    """C-6, C-7: action_request carries the deadline and bank; when the clock runs out the
    table says the bank started; when that runs out too the table acts and sits them out."""
    alice, bob, actor = start_hand(room)
    name = to_act(actor)
    mover, other = (alice, bob) if name == "alice" else (bob, alice)
    request = mover.of_type("action_request")[-1]
    now_ms = int(room.clock.seconds() * 1000)
    assert request["deadline_ms"] == now_ms + 15_000 and request["timebank_ms"] == 30_000
    assert other.of_type("action_request") == []  # only the player to act is asked
    room.advance(15)
    started = other.of_type("timebank_started")
    assert started and started[-1]["timebank_ms"] == 30_000
    room.advance(30)
    acted = other.of_type("player_acted")[-1]
    assert acted["auto"] == "timeout" and acted["action"] in ("fold", "check")
    assert any(f["player"] == name for f in other.of_type("player_sat_out"))


def test_table_commands_are_routed_for_the_session_player(room: Room) -> None:
    """top_up, sit_out, sit_in and leave reach the actor for the logged-in player only."""
    alice = funded(room, "alice")
    alice.ok("sit", table_id="t3", buy_in=100, wait_for_big_blind=True)
    assert alice.ok("top_up", table_id="t3", amount=50) == {"stack": 150, "pending": 0}
    assert alice.error("top_up", table_id="t3", amount=100) == "above_table_max"
    alice.ok("sit_out", table_id="t3")
    assert alice.error("sit_out", table_id="t3") == "already_sitting_out"
    assert alice.ok("sit_in", table_id="t3", post=False)["wait_for_big_blind"] is True
    assert alice.ok("leave", table_id="t3")["amount"] == 150
    assert alice.ok("wallet")["balance"] == 100_000
    assert room.lobby.open_tables("alice") == []


def test_lobby_list_comes_in_pages_that_fit_a_frame(
    reactor: QueueReactor, clock: Clock, ledger: LedgerService
) -> None:
    """A big room: lobby_list pages (at most 200 tables a frame) cover every table once."""
    from pokerroom.protocol.events import ok
    from pokerroom.protocol.framing import MAX_FRAME, encode_frame

    room = Room(reactor, clock, ledger)
    try:
        for n in range(205):
            room.add_table(f"x{n:03d}", seed=n, max_seats=9)
        alice = funded(room, "alice")
        first = alice.ok("lobby_list")
        assert first["total"] == 205 and len(first["tables"]) == 200
        rest = alice.ok("lobby_list", offset=200)
        ids = [t["table_id"] for t in first["tables"] + rest["tables"]]
        assert ids == sorted(f"x{n:03d}" for n in range(205))
        assert len(encode_frame(ok(1, "lobby_list", first))) < MAX_FRAME
        assert alice.error("lobby_list", limit=500) == errors.BAD_FIELD
    finally:
        room.stop()
