"""The bots' policies (`pokerroom.table.bot_policy`): the Chen score, the tight player's
choices, a whole tight tournament (20+ hands per entry, chips conserved, most hands folded
before the flop), and the protocol bots' view built from frames equal to the engine's."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from pokerroom.ledger import make_engine, upgrade
from pokerroom.protocol.framing import encode_frame
from pokerroom.protocol.messages import parse_request
from pokerroom.server.bot_hand import HandSeen
from pokerroom.table.bot_policy import (
    Decision,
    Situation,
    aggressive,
    chen,
    made_hand,
    situation_of,
    tight,
)
from tests.tournaments.actor_harness import Room
from tests.tournaments.test_simulate import assert_sound
from tournaments.actor.tournament import TournamentActor
from tournaments.config import make_config
from tournaments.desk.desk import TournamentDesk
from tournaments.ops.schedule import TournamentScheduler
from tournaments.ops.simulation import START, simulate
from tournaments.templates import load_structures

BB = 100
# A full table, 100 big blinds, before the flop, everyone folded to the player: call the BB.
DEEP = Situation(
    hole=("7c", "2d"), board=(), stack=100 * BB, behind=100 * BB, big_blind=BB, pot=150,
    dealt=9, live=9, can_fold=True, call=BB, min_raise_to=2 * BB, max_raise_to=100 * BB,
)  # fmt: skip


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    eng = make_engine(f"sqlite:///{tmp_path / 'sim.sqlite'}")
    upgrade(eng)
    try:
        yield eng
    finally:
        eng.dispose()


def test_chen_scores_of_known_hands() -> None:
    """The Chen formula: high card points, pairs doubled (at least 5), suited +2, gaps cost
    1/2/4/5, connected small cards +1, halves rounded up."""
    assert chen(("As", "Ad")) == 20
    assert chen(("Kh", "Kc")) == 16
    assert chen(("2h", "2c")) == 5  # 2 points doubled is 2: the floor is 5
    assert chen(("Ah", "Kh")) == 12
    assert chen(("Kd", "Ah")) == 10  # order does not matter; offsuit
    assert chen(("Th", "9h")) == 8  # 5 + 2 suited + 1 connected below a queen
    assert chen(("7c", "5c")) == 6  # 3.5 - 1 gap + 2 + 1 = 5.5, rounded up
    assert chen(("7c", "2d")) == -1  # 3.5 - 5 = -1.5, rounded up
    assert chen(("Qs", "Js")) == 9  # 7 + 2, no small-card bonus with a queen


def test_made_hand_ranks_what_the_hole_cards_make() -> None:
    """3 strong, 2 top pair or overpair, 1 a lesser pair, 0 nothing; board-only hands count
    for nothing."""
    assert made_hand(("Ah", "Ad"), ("Ac", "7d", "2s")) == 3  # a set
    assert made_hand(("Kh", "7d"), ("Kc", "7c", "2s")) == 3  # two pair with both cards
    assert made_hand(("Ah", "5d"), ("2c", "3d", "4s")) == 3  # the wheel
    assert made_hand(("Ah", "5h"), ("2h", "9h", "Jh")) == 3  # a flush
    assert made_hand(("Qh", "Qd"), ("Jc", "7d", "2s")) == 2  # an overpair
    assert made_hand(("Ah", "Jd"), ("Jc", "7d", "2s")) == 2  # top pair
    assert made_hand(("Ah", "7h"), ("Jc", "7d", "2s")) == 1  # middle pair
    assert made_hand(("Ah", "Kd"), ("Jc", "7d", "2s")) == 0
    assert made_hand(("Ah", "Kd"), ("Jc", "Jd", "2s", "2c")) == 0  # two pair on the board
    assert made_hand(("Ac", "Kd"), ("2h", "9h", "Jh", "4h", "5h")) == 0  # board flush, no heart
    assert made_hand(("Ah", "Kd"), ("2h", "9h", "Jh", "4h", "5h")) == 3  # the ace of hearts plays
    assert made_hand(("Kc", "Qd"), ("2h", "3c", "4c", "5s", "6s")) == 0  # board straight
    assert made_hand(("7c", "Qd"), ("2h", "3c", "4c", "5s", "6s")) == 3  # the 7 makes a higher one


def test_tight_folds_weak_hands_and_raises_strong_ones_before_the_flop() -> None:
    """Deep: 72o folds (checks when free), AA opens to three big blinds, KK raises a raise
    again, 98o folds to a raise, TT calls a small one."""
    for roll in (0.0, 0.5, 0.99):
        assert tight(DEEP, roll) == Decision("fold")
    free = DEEP._replace(call=0, can_fold=False)  # the big blind's option
    assert tight(free, 0.5) == Decision("check")
    assert tight(DEEP._replace(hole=("As", "Ad")), 0.5) == Decision("raise", 3 * BB)
    raised = DEEP._replace(call=3 * BB, min_raise_to=5 * BB, pot=450)
    assert tight(raised._replace(hole=("Ks", "Kd")), 0.5) == Decision("raise", 10 * BB)
    assert tight(raised._replace(hole=("9s", "8d")), 0.5) == Decision("fold")
    assert tight(raised._replace(hole=("Ts", "Td")), 0.5) == Decision("call")


def test_tight_opens_wider_at_a_short_handed_table() -> None:
    """KJo (chen 7) folds at a full table and opens heads-up: the threshold depends on the
    players at the table."""
    kj = DEEP._replace(hole=("Ks", "Jd"))
    assert chen(kj.hole) == 7
    assert tight(kj, 0.9) == Decision("fold")
    assert tight(kj._replace(dealt=2, live=2), 0.9) == Decision("raise", 3 * BB)


def test_tight_pushes_or_folds_when_short() -> None:
    """At 8 big blinds: AKo goes all-in, 72o folds, nothing in between; deeper, AKo only
    raises; a push calls a push only with a stronger hand."""
    short = DEEP._replace(stack=8 * BB, behind=8 * BB, max_raise_to=8 * BB)
    assert tight(short._replace(hole=("As", "Kd")), 0.5) == Decision("raise", 8 * BB)
    assert tight(short, 0.0) == Decision("fold")
    assert tight(DEEP._replace(hole=("As", "Kd")), 0.5) == Decision("raise", 3 * BB)
    shoved = short._replace(call=6 * BB, min_raise_to=None, max_raise_to=None, pot=750)
    assert tight(shoved._replace(hole=("As", "Qd")), 0.5) == Decision("fold")  # chen 9
    assert tight(shoved._replace(hole=("Qs", "Qd")), 0.5) == Decision("call")


def test_tight_after_the_flop_bets_and_calls_by_strength() -> None:
    """Checked to: a set bets three quarters of the pot, nothing checks; facing a pot-sized
    bet: top pair calls, a lesser pair folds (it calls a third of the pot)."""
    flop = DEEP._replace(board=("Jc", "7d", "2s"), pot=1000, call=0, can_fold=False,
                   min_raise_to=BB, dealt=9, live=2)  # fmt: skip
    assert tight(flop._replace(hole=("7s", "7h")), 0.5) == Decision("raise", 750)
    assert tight(flop._replace(hole=("As", "Kd")), 0.5) == Decision("check")
    bet = flop._replace(pot=2000, call=1000, can_fold=True, min_raise_to=2000)
    assert tight(bet._replace(hole=("As", "Jd")), 0.5) == Decision("call")
    assert tight(bet._replace(hole=("As", "7h")), 0.5) == Decision("fold")
    small = flop._replace(pot=1300, call=300, can_fold=True, min_raise_to=600)
    assert tight(small._replace(hole=("As", "7h")), 0.5) == Decision("call")


def test_aggressive_is_the_old_roll_rule() -> None:
    """All-in under 0.04, fold to a bet under 0.49, otherwise check or call."""
    assert aggressive(DEEP, 0.03) == Decision("raise", 100 * BB)
    assert aggressive(DEEP, 0.3) == Decision("fold")
    assert aggressive(DEEP, 0.6) == Decision("call")
    assert aggressive(DEEP._replace(call=0, can_fold=False), 0.3) == Decision("check")


def test_a_tight_tournament_plays_twenty_hands_per_entry_and_folds_most_hands(
    engine: Engine,
) -> None:
    """200 entries, tight bots on the regular structure: at least 20 hands per entry, chips
    conserved at every hand, the pool paid to the cent (T-7); most preflop decisions are
    folds and most all-ins come from short stacks (push or fold)."""
    report = simulate(engine, 200, seed=31, structure="regular", policy="tight", check_every=1)
    assert_sound(report)
    assert report.summary.hands >= 20 * 200
    actions = report.actions
    preflop = sum(n for (street, _), n in actions.items() if street == "preflop")
    assert actions["preflop", "fold"] >= 0.8 * preflop
    assert actions["preflop", "call"] + actions["preflop", "check"] < 0.05 * preflop
    all_ins = report.all_ins["short"] + report.all_ins["deep"]
    assert report.all_ins["short"] > 3 * report.all_ins["deep"]
    assert all_ins < report.summary.hands  # fewer than one a hand


def test_the_aggressive_field_busts_in_a_hand_or_two_per_entry(tmp_path: Path) -> None:
    """The same field and seed with the aggressive policy: the policy, not the structure,
    makes the hands."""
    eng = make_engine(f"sqlite:///{tmp_path / 'aggressive.sqlite'}")
    upgrade(eng)
    try:
        report = simulate(eng, 200, seed=31, structure="regular", policy="aggressive")
    finally:
        eng.dispose()
    assert_sound(report)
    assert report.summary.hands < 3 * 200
    assert report.actions["preflop", "fold"] < 0.6 * sum(
        n for (street, _), n in report.actions.items() if street == "preflop"
    )


FOLLOWED = ("blind_posted", "player_acted", "pot_returned", "board_dealt", "hole_cards")


class FrameBots:
    """The hub's part for the desk: every frame JSON round-tripped to clients that see only
    their frames; each follows its hand with the protocol bots' `HandSeen` and acts by the
    tight policy through `tournament_act`."""

    def __init__(self, seed: int) -> None:
        self.desk: TournamentDesk | None = None
        self.rngs: dict[str, random.Random] = {}
        self.seen: dict[str, HandSeen] = {}
        self.compared = 0
        self.mismatches: list[str] = []
        self.requests = 0

    def session_of(self, player: str) -> object | None:
        """Everyone is connected."""
        return self

    def send(self, player_id: str, message: Any) -> None:
        """One frame to one player."""
        self._deliver(player_id, json.loads(encode_frame(message)))

    def send_all(self, players: Iterable[str], message: Any) -> None:
        """One frame to several players."""
        frame = json.loads(encode_frame(message))
        for player in tuple(players):
            self._deliver(player, frame)

    def _deliver(self, player: str, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "hand_started":
            self.seen[player] = HandSeen.started(frame, player)
        elif kind in FOLLOWED and player in self.seen:
            self.seen[player].follow(frame)
        if kind == "action_request":
            self._act(player, frame)

    def _act(self, player: str, request: dict[str, Any]) -> None:
        mine = self.seen[player].situation(request["actions"])
        assert self.desk is not None
        table = self.desk.table(request["table_id"])
        assert table is not None and table.hand is not None
        truth = situation_of(table.hand)
        self.compared += 1
        if mine != truth:
            self.mismatches.append(f"{request['hand_id']}: {mine} != {truth}")
        action, amount = tight(mine, self.rngs[player].random())
        self.requests += 1
        fields = {"type": "tournament_act", "id": self.requests, "action": action}
        fields["tournament_id"] = request["table_id"].rpartition(".")[0]
        if amount is not None:
            fields["amount"] = amount
        self.desk.handle(player, parse_request(json.loads(json.dumps(fields))))


def test_protocol_bots_see_what_the_engine_sees(tmp_path: Path) -> None:
    """A 27-entry tournament over the protocol with tight bots: at every action request the
    situation a bot builds from its frames alone (stack, pot, chips put in, folds, cards,
    legal actions) equals the one built from the engine's hand, and the tournament ends."""
    room = Room(tmp_path)
    try:
        hub = FrameBots(41)
        desk = hub.desk = TournamentDesk(hub)
        scheduler = desk.scheduler = TournamentScheduler(room.clock, room.ledger, [])
        config = make_config(
            "proto-tight", load_structures()["turbo"], buy_in=100, fee=10,
            starts_at=START + 60, between_hands_seconds=30.0,
        )  # fmt: skip
        actor = TournamentActor(
            config, room.clock, room.ledger, random.Random(41), desk.for_tournament("proto-tight"),
            on_end=scheduler._ended,
        )  # fmt: skip
        scheduler.actors["proto-tight"] = actor
        actor.open()
        for n in range(27):
            name = f"bot{n:05d}"
            hub.rngs[name] = random.Random(41_000 + n)
            room.fund_player(name, 1000)
            room.wait(actor.register(name))
        room.run_to_end(actor)
        assert actor.status == "finished" and room.check()
        assert hub.mismatches == []
        assert hub.compared > 27 * 10 and actor.floor.hands > 27 * 5
    finally:
        room.close()
