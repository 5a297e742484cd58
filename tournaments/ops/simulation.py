"""One tournament run to the end in-process: bots in every seat, a fake clock, the real ledger.

The real director, tables and LedgerService (its own thread pool on a real database) run;
the reactor's thread calls queue up and run on this thread (`Pump`), and time is a
`twisted.internet.task.Clock` advanced from one timer to the next. Bots act at once when
asked, by a policy of `pokerroom.table.bot_policy` (`tight`: most hands folded, push or fold
when short; `aggressive`: the field busts in about a hand per entry); busted bots re-enter or
rebuy while they may (T-4), and take the add-on.
"""

from __future__ import annotations

import heapq
import itertools
import queue
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy.engine import Engine
from twisted.internet.base import DelayedCall
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorFromThreads, IReactorTime
from zope.interface import implementer

from pokerroom.ledger import LedgerService, check_ledger, external, transfer, wallet
from pokerroom.ledger.reports import total_balance
from pokerroom.table.bot_policy import POLICIES, PUSH_FOLD_BB, Policy, situation_of
from tournaments.actor.tournament import TournamentActor
from tournaments.config import make_config
from tournaments.director import entries as director_entries
from tournaments.results import Result
from tournaments.tables.floor import Players
from tournaments.tables.knockouts import HandResult
from tournaments.tables.table import TournamentTable
from tournaments.templates import load_structures

START = 1_800_000_000.0  # a fixed epoch for the fake clock
CURRENCY = "USD"


@implementer(IReactorFromThreads)
class Pump:
    """The reactor's thread side: ledger results queue up and run on the simulating thread."""

    def __init__(self) -> None:
        self.calls: queue.Queue[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = (
            queue.Queue()
        )

    def callFromThread(self, callable: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Queue `callable` for the simulating thread (named as in IReactorFromThreads)."""
        self.calls.put((callable, args, kwargs))

    def run_ready(self) -> None:
        """Run every call already queued."""
        while True:
            try:
                f, args, kwargs = self.calls.get_nowait()
            except queue.Empty:
                return
            f(*args, **kwargs)

    def wait(self, d: Deferred[Any], timeout: float = 60.0) -> Any:
        """Run queued calls until `d` fires; return its result or raise its failure."""
        box: list[Any] = []
        d.addBoth(box.append)
        while not box:
            f, args, kwargs = self.calls.get(timeout=timeout)
            f(*args, **kwargs)
        if hasattr(box[0], "raiseException"):
            box[0].raiseException()
        return box[0]


@implementer(IReactorTime)
class HeapClock:
    """A fake clock like `twisted.internet.task.Clock`, its calls kept on a heap.

    `Clock` sorts every pending call each time one is scheduled or run: with a timer per table
    (1,112 tables at the start of a 10,000-entry field) that sort was a large part of a hand.
    Here scheduling and running a call cost log n. Calls run in `Clock`'s order (by time, then
    by when they were scheduled), so a seed gives the same tournament; a call moved with
    `reset` or `delay` runs at its new time, in twisted's reactor's order among equal times.
    """

    def __init__(self, now: float = 0.0) -> None:
        self.now = now
        self._heap: list[tuple[float, int, DelayedCall]] = []
        self._order = itertools.count()

    def seconds(self) -> float:
        """The fake time."""
        return self.now

    def callLater(
        self, delay: float, callable: Callable[..., object], *args: object, **kw: object
    ) -> IDelayedCall:
        """Run `callable` `delay` seconds from now (named as in IReactorTime)."""
        call = DelayedCall(
            self.now + delay, callable, args, kw, lambda _: None, self._push, self.seconds
        )
        self._push(call)
        return call

    def _push(self, call: DelayedCall) -> None:
        heapq.heappush(self._heap, (call.time, next(self._order), call))

    def _first(self) -> DelayedCall | None:
        """The next live call, as twisted's reactor finds it: entries of cancelled, run or
        rescheduled calls are dropped; a delayed call goes back at its new time."""
        heap = self._heap
        while heap:
            at, _, call = heap[0]
            if call.cancelled or call.called or at != call.time:
                heapq.heappop(heap)  # a call brought forward has its own newer entry
            elif call.delayed_time:
                heapq.heappop(heap)
                call.activate_delay()
                self._push(call)
            else:
                return call
        return None

    def next_time(self) -> float | None:
        """When the next call is due, or None without one."""
        call = self._first()
        return call.getTime() if call is not None else None

    def getDelayedCalls(self) -> list[IDelayedCall]:
        """Every live call, the next first (named as in IReactorTime)."""
        live = {id(c): c for _, _, c in self._heap if not (c.cancelled or c.called)}
        return sorted(live.values(), key=lambda c: c.getTime())

    def advance(self, amount: float) -> None:
        """Move the time on by `amount` and run every call then due, in order."""
        self.now += amount
        while (call := self._first()) is not None and call.getTime() <= self.now:
            heapq.heappop(self._heap)
            call.called = 1
            call.func(*call.args, **call.kw)


class Bots(Players):
    """Every seat: acts at once by a policy (`pokerroom.table.bot_policy`); checks every chip."""

    def __init__(
        self, rng: random.Random, check_every: int = 1, policy: str = "aggressive"
    ) -> None:
        self.rng = rng
        self.policy: Policy = POLICIES[policy]
        self.actor: TournamentActor | None = None
        self.check_every = check_every
        self.hands = 0
        self.chip_errors: list[str] = []
        self.actions: Counter[tuple[str, str]] = Counter()  # (street, action): decisions
        self.all_ins: Counter[str] = Counter()  # "short" (<= 10 BB) or "deep": all-in raises
        self._addons: set[str] = set()

    def turn(self, table: TournamentTable, entry: str) -> None:
        """Act at once: what the policy decides, given one roll of the bots' seeded RNG."""
        hand = table.hand
        assert hand is not None
        s = situation_of(hand)
        decision = self.policy(s, self.rng.random())
        self.actions["postflop" if s.board else "preflop", decision.action] += 1
        if decision.action == "raise" and decision.amount == s.max_raise_to:
            self.all_ins["short" if s.stack <= PUSH_FOLD_BB * s.big_blind else "deep"] += 1
        table.act(entry, decision.action, decision.amount)

    def hand_ended(self, table: TournamentTable, result: HandResult) -> None:
        """Every chip accounted for: in the hand, and (every `check_every` hands) everywhere."""
        self.hands += 1
        if sum(result.start_stacks.values()) != sum(result.end_stacks.values()):
            self.chip_errors.append(f"{result.hand_id}: chips changed in the hand")
        actor = self.actor
        if actor is None:
            return
        due = self.check_every and self.hands % self.check_every == 0
        if due and actor.chips_in_play() != actor.chips_issued:
            self.chip_errors.append(f"{result.hand_id}: chips in play != chips issued")
        if actor.settings.addon.max_times and result.level_index >= actor.settings.addon.from_level:
            clock = actor.director_clock()
            for entry in result.end_stacks:
                if entry not in self._addons and entry in actor.alive:
                    self._addons.add(entry)
                    if director_entries.can_addon(actor.settings, actor.state, clock, entry, 10**9):
                        actor.addon(entry).addErrback(lambda _: None)

    def finished(self, result: Result) -> None:
        """A busted bot re-enters or rebuys when the tournament still allows it (T-4)."""
        actor = self.actor
        if actor is None or result.prize or actor.status != "running":
            return
        settings, state, clock = actor.settings, actor.state, actor.director_clock()
        entry = result.entry
        if director_entries.can_reenter(settings, state, clock, entry, 10**9):
            actor.reenter(entry).addErrback(lambda _: None)
        elif director_entries.can_rebuy(settings, state, clock, entry, 0, 10**9):
            actor.rebuy(entry).addErrback(lambda _: None)


@dataclass(frozen=True, slots=True)
class Summary:
    """What `pokerroom tournament simulate` prints last."""

    entries: int
    hands: int
    tables_max: int
    prize_pool: int
    paid_total: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Report:
    """The summary and what the tests and the benchmark check."""

    summary: Summary
    players: int
    chips_issued: int
    chip_errors: tuple[str, ...]
    failures: tuple[tuple[str, str], ...]
    ledger_ok: bool
    total_before: int
    total_after: int
    balance_seconds: float
    registration_seconds: float
    play_seconds: float
    registration_cpu: float  # time.process_time: every thread of the process, the ledger's too
    play_cpu: float
    results: tuple[Result, ...]
    actor: TournamentActor
    actions: Counter[tuple[str, str]]  # (preflop|postflop, fold|check|call|raise): decisions
    all_ins: Counter[str]  # all-in raises by stack: "short" (<= 10 BB) or "deep"

    def line(self) -> dict[str, Any]:
        """The one-line JSON summary."""
        return asdict(self.summary)


def fund_players(engine: Engine, players: list[str], amount: int, tag: str) -> None:
    """Deposits from outside, up to 499 wallets per transfer (a test fixture's funding)."""
    for start in range(0, len(players), 499):
        chunk = players[start : start + 499]
        postings = {wallet(p, CURRENCY): amount for p in chunk}
        postings[external(CURRENCY)] = -amount * len(chunk)
        transfer(
            engine,
            key=f"deposit:{tag}:{start}",
            kind="deposit",
            currency=CURRENCY,
            postings=postings.items(),  # pairs: the Mapping form is keyed by AccountLike
        )


def simulate(
    engine: Engine,
    players: int,
    seed: int,
    *,
    structure: str = "turbo",
    fmt: str = "freezeout",
    buy_in: int = 1000,
    fee: int = 100,
    check_every: int = 1,
    sit_and_go: bool = False,
    max_hands: int = 2_000_000,
    hand_seconds: float = 30.0,
    policy: str = "aggressive",
    persist: bool = True,
) -> Report:
    """Run one tournament with `players` bots to its end; `engine` is a ledger at head.

    `persist=False` writes only the money, not the tournament's state (T-18): a benchmark's
    way to measure what storing costs."""
    tid = f"sim-{seed}-{players}-{fmt}"
    names = [f"bot{seed}-{n:05d}" for n in range(players)]
    before = total_balance(engine, CURRENCY)
    fund_players(engine, names, (buy_in + fee) * 4, tid)
    began = time.perf_counter()  # funding the bots is set-up, not the tournament
    began_cpu = time.process_time()
    clock = HeapClock(START)
    pump = Pump()
    ledger = LedgerService(pump, engine)
    ledger.startService()
    config = make_config(
        tid,
        load_structures()[structure],
        buy_in=buy_in,
        fee=fee,
        starts_at=START + 60,
        fmt=fmt,
        late_registration_levels=4 if fmt == "reentry" else 0,
        max_entries=players if sit_and_go else None,
        sit_and_go=sit_and_go,
        between_hands_seconds=hand_seconds,  # bots act at once: this is a hand's length
    )
    bots = Bots(random.Random(seed + 1), check_every, policy)
    actor = TournamentActor(config, clock, ledger, random.Random(seed + 2), bots, persist=persist)
    bots.actor = actor
    # The reactor plays on while hands are written; so does the clock here (requests settle).
    actor.durable.recorder.count_batches = False
    try:
        actor.open()
        for name in names:
            pump.wait(actor.register(name))
        registered = time.perf_counter()
        registered_cpu = time.process_time()
        while actor.status in ("registering", "running") and bots.hands < max_hands:
            pump.run_ready()
            due = clock.next_time()
            if actor.cashier.in_flight or due is None:
                # Money settles at the simulated instant it was asked for: deterministic runs.
                f, args, kwargs = pump.calls.get(timeout=60)
                f(*args, **kwargs)
            else:
                clock.advance(max(0.0, due - clock.seconds()))
        while not actor.idle():
            f, args, kwargs = pump.calls.get(timeout=60)
            f(*args, **kwargs)
        pump.wait(actor.pending())
        played = time.perf_counter()
        played_cpu = time.process_time()
    finally:
        ledger.stopService()
    check = check_ledger(engine)
    runner = actor.payouts
    summary = Summary(
        entries=actor.state.entries,
        hands=actor.floor.hands,
        tables_max=actor.floor.tables_max,
        prize_pool=runner.pool_total,
        paid_total=runner.paid_total,
        seconds=round(time.perf_counter() - began, 3),
    )
    return Report(
        summary=summary,
        players=players,
        chips_issued=actor.chips_issued,
        chip_errors=tuple(bots.chip_errors),
        failures=tuple(runner.failures),
        ledger_ok=check.ok,
        total_before=before,
        total_after=total_balance(engine, CURRENCY),
        balance_seconds=actor.floor.balance_seconds,
        registration_seconds=registered - began,
        play_seconds=played - registered,
        registration_cpu=registered_cpu - began_cpu,
        play_cpu=played_cpu - registered_cpu,
        results=tuple(actor.results),
        actor=actor,
        actions=bots.actions,
        all_ins=bots.all_ins,
    )
