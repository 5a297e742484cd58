"""Tournament table runner: dead button, blinds and antes, clock and time bank, T-12, knockouts."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from twisted.internet.task import Clock

from pokerroom.engine.errors import EngineError
from pokerroom.engine.events import AntePosted, BlindPosted, Folded
from pokerroom.protocol.events import ServerMessage, as_dict
from tournaments.director.structure import AnteKind, Level, Structure
from tournaments.tables.knockouts import HandResult
from tournaments.tables.table import TournamentTable
from tournaments.tables.timebank import TimeBanks

LEVELS = (
    Level(10, 20, 0, seconds=600, action_seconds=10, timebank_add_seconds=5),
    Level(20, 40, 40, seconds=600, action_seconds=10, timebank_add_seconds=5),
)
STRUCTURE = Structure(
    "test", 1000, LEVELS, AnteKind.BIG_BLIND, timebank_start_seconds=30, timebank_max_seconds=60
)

Policy = Callable[[TournamentTable, str], str | None]


class Recorder:
    """A table listener: acts by `policy` (None: does not act, so the clock runs)."""

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy
        self.turns: list[str] = []
        self.results: list[HandResult] = []

    def turn(self, table: TournamentTable, entry: str) -> None:
        self.turns.append(entry)
        if self.policy is not None:
            action = self.policy(table, entry)
            if action is not None:
                table.act(entry, action)

    def hand_ended(self, table: TournamentTable, result: HandResult) -> None:
        self.results.append(result)


def fold_or_check(table: TournamentTable, entry: str) -> str:
    hand = table.hand
    assert hand is not None
    return "fold" if hand.can_fold(hand.actor) else "check"


class Frames:
    """The protocol frames a table sends, to anyone (a table's `TableListener`)."""

    def __init__(self, table: TournamentTable) -> None:
        self.sent: list[tuple[str | None, dict[str, Any]]] = []
        table.frames = table.driver.listener = self

    def send(self, player_id: str, message: ServerMessage) -> None:
        self.sent.append((player_id, as_dict(message)))

    def broadcast(self, table_id: str, message: ServerMessage, exclude: Any = None) -> None:
        self.sent.append((None, as_dict(message)))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for _, m in self.sent if m["type"] == kind]


def make_table(
    players: dict[int, str],
    button: int,
    policy: Policy | None = fold_or_check,
    stack: int = 1000,
    seed: int = 3,
) -> tuple[TournamentTable, Recorder, Clock]:
    clock = Clock()
    recorder = Recorder(policy)
    table = TournamentTable("T", 1, 9, clock, recorder, random.Random(seed), TimeBanks(STRUCTURE))
    for seat, entry in players.items():
        table.seat(entry, seat, stack)
    table.redraw(button)
    return table, recorder, clock


def blind_posts(table: TournamentTable) -> dict[str, int]:
    hand = table.hand
    assert hand is not None
    return {table.order[e.player]: e.amount for e in hand.log if isinstance(e, BlindPosted)}


def test_first_hand_blinds_follow_the_drawn_button() -> None:
    """T-1: the button is drawn; the next two players post small and big blind."""
    table, _recorder, _ = make_table({1: "a", 3: "b", 5: "c", 7: "d"}, button=3, policy=None)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)
    assert table.button == 3
    assert blind_posts(table) == {"c": 10, "d": 20}
    assert table.order == ["c", "d", "a", "b"]  # engine order starts left of the button


def test_dead_small_blind_and_dead_button_when_the_big_blind_busts() -> None:
    """Dead button: the big blind moves on; the seat that had it is a dead small blind (T-10)."""
    table, recorder, _ = make_table({1: "a", 2: "b", 3: "c", 4: "d"}, button=1)
    assert table.start_hand(LEVELS[0], 0, AnteKind.NONE)  # b small, c big; everybody folds
    table.unseat("c")  # the big blind leaves between hands (moved or broken)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)
    hand_two = recorder.results[-1]
    assert table.big_blind == 4
    assert table.button == 2  # the seat that had the small blind
    spent = {e: hand_two.start_stacks[e] - hand_two.end_stacks[e] for e in hand_two.start_stacks}
    assert spent["d"] == 0 or hand_two.end_stacks["d"] > hand_two.start_stacks["d"]  # d walks
    assert "c" not in hand_two.start_stacks
    assert sum(hand_two.start_stacks.values()) == sum(hand_two.end_stacks.values())


def test_big_blind_moves_one_player_per_hand() -> None:
    """Every hand the big blind moves to the next player; nobody skips it (T-10)."""
    table, _, _ = make_table({2: "a", 4: "b", 6: "c", 8: "d"}, button=2)
    bigs = []
    for _ in range(8):
        table.start_hand(LEVELS[0], 0, AnteKind.NONE)
        bigs.append(table.big_blind)
    assert bigs == [6, 8, 2, 4, 6, 8, 2, 4]


def test_heads_up_the_button_posts_the_small_blind() -> None:
    """Heads-up: the button is the small blind; the big blind moves on as usual."""
    table, _, _ = make_table({1: "a", 5: "b"}, button=1, policy=None)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)
    assert blind_posts(table) == {"a": 10, "b": 20}
    assert table.order == ["b", "a"]


def test_big_blind_ante_paid_by_the_big_blind_only() -> None:
    """Big-blind ante: one ante for the table, paid by the big blind (level 2: 20/40/40)."""
    table, _, _ = make_table({1: "a", 2: "b", 3: "c"}, button=1, policy=None)
    table.start_hand(LEVELS[1], 1, AnteKind.BIG_BLIND)
    hand = table.hand
    assert hand is not None
    antes = {table.order[e.player]: e.amount for e in hand.log if isinstance(e, AntePosted)}
    assert antes == {"c": 40}
    assert blind_posts(table) == {"b": 20, "c": 40}


def test_short_big_blind_posts_the_blind_before_the_ante() -> None:
    """A big blind who cannot cover both posts the blind first (the TDA order)."""
    table, _, _ = make_table({1: "a", 2: "b"}, button=1, policy=None)
    table.seat("c", 3, 50)
    table.start_hand(LEVELS[1], 1, AnteKind.BIG_BLIND)
    hand = table.hand
    assert hand is not None
    antes = {table.order[e.player]: e.amount for e in hand.log if isinstance(e, AntePosted)}
    assert blind_posts(table)["c"] == 40
    assert antes == {"c": 10}


def test_classic_ante_from_every_player() -> None:
    """Classic antes: every player dealt in antes."""
    table, _, _ = make_table({1: "a", 2: "b", 3: "c"}, button=1, policy=None)
    table.start_hand(LEVELS[1], 1, AnteKind.CLASSIC)
    hand = table.hand
    assert hand is not None
    assert sorted(e.amount for e in hand.log if isinstance(e, AntePosted)) == [40, 40, 40]


def test_sitting_out_player_is_dealt_in_pays_blinds_and_folds_to_a_bet() -> None:
    """T-12: a sitting-out player is dealt in, posts, and folds when facing a bet."""
    table, recorder, _ = make_table({1: "a", 2: "b", 3: "c"}, button=3, policy=None)
    table.set_presence("a", connected=False, sitting_out=True)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)  # a small blind, b big blind, c first
    assert "a" in table.order and blind_posts(table)["a"] == 10
    table.act("c", "call")
    hand = table.hand
    assert hand is not None
    assert any(isinstance(e, Folded) and table.order[e.player] == "a" for e in hand.log)
    assert "a" not in recorder.turns  # acted for, never asked


def test_sitting_out_big_blind_checks_when_checking_is_free() -> None:
    """T-12: fold only when facing a bet; otherwise check."""
    table, _recorder, _ = make_table({1: "a", 2: "b", 3: "c"}, button=1, policy=None)
    table.set_presence("c", connected=True, sitting_out=True)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)  # b small, c big (sitting out)
    table.act("a", "call")
    table.act("b", "call")
    hand = table.hand
    assert hand is not None
    assert not hand.folded[table.order.index("c")]  # c checked the big blind option
    assert hand.street == 1


def test_action_clock_then_time_bank_then_timeout_folds() -> None:
    """C-6, C-7: action time, then the bank on its own, then fold to a bet; flagged after."""
    table, _recorder, clock = make_table({1: "a", 2: "b", 3: "c"}, button=3, policy=None)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)
    assert table.to_act() == "c"
    clock.advance(10)  # action time over: the 30 s bank runs
    assert table.to_act() == "c"
    clock.advance(29.9)
    assert table.to_act() == "c"
    clock.advance(0.2)
    assert table.to_act() == "a"  # c folded to the big blind
    assert "c" in table.presence.timed_out and table.presence.sitting_out("c")
    assert table.banks.bank_ms("c", 0) == 0


def test_a_timed_out_player_keeps_the_normal_clock_on_later_hands() -> None:
    """T-12: a timeout flags the player as sitting out, but the next hand still asks them and
    runs the action clock (only an asked sit-out is acted for at once); acting clears it."""
    table, recorder, clock = make_table({1: "a", 2: "b", 3: "c"}, button=3, policy=None)
    frames = Frames(table)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)  # a small, b big, c first
    clock.advance(40.1)  # c's clock and bank run out: c folds
    assert "c" in table.presence.timed_out
    (out,) = frames.of("player_sat_out")
    assert out["player"] == "c" and out["reason"] == "timeout" and out["seat"] == 2
    table.act("a", "fold")  # b wins the blinds
    assert table.hand is None
    recorder.turns.clear()
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)  # b small, c big, a first
    table.act("a", "call")
    table.act("b", "call")
    assert table.to_act() == "c" and recorder.turns[-1] == "c"  # asked, not acted for
    clock.advance(9.9)
    assert table.to_act() == "c"  # the normal 10 s clock runs (no bank left this level)
    table.act("c", "check")
    assert "c" not in table.presence.timed_out and not table.presence.sitting_out("c")
    (back,) = frames.of("player_sat_in")
    assert back["player"] == "c"


def test_sit_out_false_clears_a_timeout_and_an_asked_sit_out_is_acted_for_at_once() -> None:
    """T-12: `tournament_sit_out false` clears the timeout flag; `true` is acted for at once."""
    table, recorder, clock = make_table({1: "a", 2: "b", 3: "c"}, button=3, policy=None)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)
    clock.advance(40.1)
    assert table.presence.sitting_out("c")
    table.set_sitting_out("c", False)
    assert not table.presence.sitting_out("c")
    table.set_sitting_out("c", True)
    table.act("a", "fold")
    recorder.turns.clear()
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)  # b small, c big (sitting out), a first
    table.act("a", "raise", 60)
    table.act("b", "fold")
    assert "c" not in recorder.turns and table.hand is None  # c folded at once, no clock


def test_time_bank_refills_at_each_level_up_to_the_maximum() -> None:
    """C-7: a tournament refills the bank per level, capped at the structure's maximum."""
    banks = TimeBanks(STRUCTURE)
    assert banks.bank_ms("p", 0) == 30_000
    banks.store("p", 12_000)
    assert banks.bank_ms("p", 1) == 17_000
    banks.store("p", 59_000)
    assert banks.bank_ms("p", 1) == 59_000  # same level: no refill twice


def test_a_disconnected_player_gets_the_grace_once_per_drop_and_level() -> None:
    """T-12: from the bubble a disconnected player gets extra seconds when their clock runs out:
    once for each drop (and again at a new level while away), not once for good."""
    clock = Clock()
    recorder = Recorder(None)
    table = TournamentTable(
        "T", 1, 9, clock, recorder, random.Random(3), TimeBanks(STRUCTURE), lambda entry: 60
    )
    for seat, entry in {1: "a", 2: "b", 3: "c"}.items():
        table.seat(entry, seat, 100_000)
    table.redraw(3)

    def time_to_fold(level: int) -> float:
        """Deal, let a and b call, time c's decision (c is last to act preflop or first)."""
        table.start_hand(LEVELS[level], level, AnteKind.NONE)
        while table.to_act() != "c":
            who = table.to_act()
            assert who is not None
            table.act(
                who, "call" if table.hand and table.hand.call_amount(table.hand.actor) else "check"
            )
        began = clock.seconds()
        while table.to_act() == "c":
            clock.advance(0.5)
        spent = clock.seconds() - began
        while table.hand is not None:  # play the hand out: check or fold for everyone
            who = table.to_act()
            assert who is not None
            hand = table.hand
            table.act(who, "fold" if hand.can_fold(hand.actor) else "check")
        return spent

    table.disconnected("c")  # the first drop
    assert time_to_fold(0) == pytest.approx(10 + 30 + 60, abs=0.5)  # clock, bank, grace
    assert time_to_fold(0) == pytest.approx(10, abs=0.5)  # same drop, same level: no grace
    table.reconnected("c")
    table.disconnected("c")  # dropped again: a new grace
    assert time_to_fold(0) == pytest.approx(10 + 60, abs=0.5)
    assert time_to_fold(0) == pytest.approx(10, abs=0.5)
    assert time_to_fold(1) == pytest.approx(10 + 5 + 60, abs=0.5)  # new level: bank +5, grace


def test_moves_only_between_hands() -> None:
    """T-10: nobody leaves a table in a hand; a newcomer is dealt in from the next hand."""
    table, _, _ = make_table({1: "a", 2: "b", 3: "c"}, button=1, policy=None)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)
    with pytest.raises(EngineError):
        table.unseat("a")
    table.seat("d", 5, 1000)
    assert "d" not in table.order
    assert table.chips() == 4000


SEED = 0  # a deck where a's hand beats b's


def test_knockout_reports_start_stacks_and_who_won_the_pot() -> None:
    """T-9, T-14: a busted player's start-of-hand stack and the winners of the pot that busted."""
    table, recorder, _ = make_table({1: "a", 2: "b", 3: "c"}, button=1, policy=None, seed=SEED)
    table.stacks["b"] = 300
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)
    table.act("a", "raise", 1000)  # a all-in
    table.act("b", "call")  # b all-in for 300
    table.act("c", "fold")
    result = recorder.results[-1]
    assert result.start_stacks == {"b": 300, "c": 1000, "a": 1000}
    assert sum(result.end_stacks.values()) == 2300
    assert result.end_stacks["b"] == 0
    (knockout,) = result.knockouts
    assert knockout.entry == "b" and knockout.stack_at_start == 300
    assert knockout.busted_by == ("a",)
    assert knockout.seats_from_button == 1  # b sits first left of the button (T-9)
    assert "b" not in table.stacks and table.count == 2


def test_hand_boundary_kept_for_outage_refunds() -> None:
    """T-18: the table keeps stacks, button and level at the start of each hand."""
    table, _, _ = make_table({1: "a", 2: "b", 3: "c"}, button=1)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)
    table.start_hand(LEVELS[1], 1, AnteKind.BIG_BLIND)
    boundary = table.boundary
    assert boundary is not None
    assert boundary.hand_number == 1 and boundary.level_index == 1
    assert sum(stack for _, stack in boundary.stacks) == 3000
    assert boundary.button == 1


def test_chips_bought_during_a_hand_arrive_after_it() -> None:
    """T-4 with C-9: a rebuy or add-on bought while dealt in is added once the hand is over."""
    table, recorder, _ = make_table({1: "a", 2: "b", 3: "c"}, button=1, policy=None)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)
    table.add_chips("a", 500)
    assert table.chips() == 3500
    table.act("a", "fold")
    table.act("b", "fold")
    assert table.stacks["a"] == 1500
    assert recorder.results[-1].end_stacks["a"] == 1000  # the hand itself never saw them


def test_players_sitting_out_together_repeatedly_are_reported() -> None:
    """T-12: two players may not agree to sit out together; the staff's report lists them."""
    table, _, clock = make_table({1: "a", 2: "b", 3: "c", 4: "d"}, button=1)
    for _ in range(3):
        table.set_presence("a", connected=True, sitting_out=True)
        table.set_presence("b", connected=True, sitting_out=True)
        clock.advance(120)
        table.set_presence("a", connected=True, sitting_out=False)
        table.set_presence("b", connected=True, sitting_out=False)
        clock.advance(600)
    table.set_presence("c", connected=True, sitting_out=True)
    (pair,) = table.sitouts.report(clock.seconds())
    assert pair.players == ("a", "b") and pair.times == 3
