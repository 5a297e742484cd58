"""`hand_histories` with `format: "pokerstars"` over the protocol: the player's own hands as
PokerStars text with their own hole cards only (C-15); PHH stays the default."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from twisted.internet.task import Clock

from pokerroom.ledger import LedgerService
from pokerroom.protocol import errors
from tests.ledger.conftest import QueueReactor
from tests.server.harness import Client, Room

NAMES = ("alice", "bob", "carol")


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: LedgerService) -> Iterator[Room]:
    """A room with one 6-max NLHE table."""
    room = Room(reactor, clock, ledger)
    room.add_table("t1", seed=3)
    yield room
    room.stop()


def play_hands(room: Room, count: int) -> dict[str, Client]:
    """Three players sit at t1 and play `count` hands: calling to showdowns, and every other
    hand folding when they may (those end without a showdown)."""
    clients = {}
    for seat, name in enumerate(NAMES):
        client = clients[name] = room.client()
        client.login(name)
        client.ok("deposit", amount=100_000, key="start")
        client.ok("sit", table_id="t1", buy_in=200, seat=seat)
    actor = room.lobby.tables["t1"]
    played = 0
    while played < count:
        room.advance(1)
        number = actor.hand_number
        while actor.phase == "playing" and actor.hand is not None:
            hand = actor.hand
            name = actor.players[hand.actor]
            legal = hand.legal_actions(hand.actor)
            assert legal is not None
            if played % 2 and legal.can_fold:
                action = "fold"
            else:
                action = "call" if legal.call_amount else "check"
            clients[name].ok("act", table_id="t1", action=action)
            room.drain()
        if actor.hand_number != number or actor.phase != "playing":
            played += 1
    room.advance(1)
    return clients


def hole_cards(client: Client) -> dict[str, set[str]]:
    """hand_id -> the cards this client was dealt."""
    return {m["hand_id"]: set(m["cards"]) for m in client.of_type("hole_cards")}


def test_pokerstars_page_has_the_players_own_cards_only(room: Room) -> None:  # C-15
    """C-15: Dealt to the asking player only; another player's cards appear only where that
    player showed them down."""
    clients = play_hands(room, 6)
    alice = clients["alice"]
    page = alice.ok("hand_histories", table_id="t1", format="pokerstars")
    hands = page["hands"]
    assert len(hands) >= 4 and all(h.startswith("PokerStars Hand #") for h in hands)
    mine = set().union(*hole_cards(alice).values())
    others = {c for name in ("bob", "carol") for cs in hole_cards(clients[name]).values()
              for c in cs}  # fmt: skip
    unshown = 0
    for text in hands:
        dealt = re.findall(r"^Dealt to (\S+) \[(.+)\]$", text, re.MULTILINE)
        assert [who for who, _ in dealt] == ["alice"]
        assert set(dealt[0][1].split()) <= mine
        shown = {c for cards in re.findall(r": shows \[(.+?)\]", text) for c in cards.split()}
        board = {c for cards in re.findall(r"^Board \[(.+)\]$", text, re.MULTILINE)
                 for c in cards.split()}  # fmt: skip
        for card in others - shown - board - mine:
            assert card not in text, (card, text)
        unshown += not shown
    assert unshown >= 1  # some hands ended without a showdown: their cards stayed hidden


def test_phh_stays_the_default_and_a_bad_format_changes_nothing(room: Room) -> None:
    """No `format`: PHH as before; `format` "phh" the same; another word is bad_field (P-1)."""
    clients = play_hands(room, 2)
    alice = clients["alice"]
    default = alice.ok("hand_histories", table_id="t1")
    assert default == alice.ok("hand_histories", table_id="t1", format="phh")
    assert default["hands"][0].startswith("variant = 'NT'")
    assert alice.error("hand_histories", format="stars") == errors.BAD_FIELD


def test_pokerstars_pages_follow_the_same_cursor(room: Room) -> None:
    """The cursor of a `pokerstars` page leads to the same older hands as PHH's."""
    clients = play_hands(room, 5)
    alice = clients["alice"]
    first = alice.ok("hand_histories", table_id="t1", limit=2, format="pokerstars")
    phh = alice.ok("hand_histories", table_id="t1", limit=2)
    assert first["next"] == phh["next"] is not None
    older = alice.ok("hand_histories", before=first["next"], limit=10, format="pokerstars")
    numbers = [h.split(":")[0] for h in first["hands"] + older["hands"]]
    assert len(numbers) == len(set(numbers)) >= 5
