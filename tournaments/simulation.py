"""One tournament run to the end in-process: bots in every seat, a fake clock, the real ledger.

The real director, tables and LedgerService (its own thread pool on a real database) run;
the reactor's thread calls queue up and run on this thread (`Pump`), and time is a
`twisted.internet.task.Clock` advanced from one timer to the next. Bots act at once when
asked; busted bots re-enter or rebuy while they may (T-4), and take the add-on.
"""

from __future__ import annotations

import queue
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy.engine import Engine
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorFromThreads
from twisted.internet.task import Clock
from zope.interface import implementer

from pokerroom.ledger import LedgerService, check_ledger, external, transfer, wallet
from pokerroom.ledger.reports import total_balance
from tournaments.actor import Result, TournamentActor
from tournaments.config import make_config
from tournaments.director import entries as director_entries
from tournaments.floor import Players
from tournaments.knockouts import HandResult
from tournaments.table import TournamentTable
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


class Bots(Players):
    """Every seat: acts at once; pushes, calls, folds at random; checks every chip."""

    def __init__(self, rng: random.Random, check_every: int = 1) -> None:
        self.rng = rng
        self.actor: TournamentActor | None = None
        self.check_every = check_every
        self.hands = 0
        self.chip_errors: list[str] = []
        self._addons: set[str] = set()

    def turn(self, table: TournamentTable, entry: str) -> None:
        """Act at once: all-in 4 %, fold to a bet 45 %, otherwise check or call."""
        hand = table.hand
        assert hand is not None
        legal = hand.legal_actions(hand.actor)
        assert legal is not None
        roll = self.rng.random()
        if legal.max_raise_to is not None and roll < 0.04:
            table.act(entry, "raise", legal.max_raise_to)
        elif legal.can_fold and roll < 0.49:
            table.act(entry, "fold")
        else:
            table.act(entry, "call" if legal.call_amount else "check")

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
    results: tuple[Result, ...]
    actor: TournamentActor

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
) -> Report:
    """Run one tournament with `players` bots to its end; `engine` is a ledger at head."""
    tid = f"sim-{seed}-{players}-{fmt}"
    names = [f"bot{seed}-{n:05d}" for n in range(players)]
    before = total_balance(engine, CURRENCY)
    fund_players(engine, names, (buy_in + fee) * 4, tid)
    began = time.perf_counter()  # funding the bots is set-up, not the tournament
    clock = Clock()
    clock.advance(START)
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
    bots = Bots(random.Random(seed + 1), check_every)
    actor = TournamentActor(config, clock, ledger, random.Random(seed + 2), bots)
    bots.actor = actor
    try:
        actor.open()
        for name in names:
            pump.wait(actor.register(name))
        registered = time.perf_counter()
        while actor.status in ("registering", "running") and bots.hands < max_hands:
            pump.run_ready()
            calls = clock.getDelayedCalls()
            if actor.cashier.in_flight or not calls:
                # Money settles at the simulated instant it was asked for: deterministic runs.
                f, args, kwargs = pump.calls.get(timeout=60)
                f(*args, **kwargs)
            else:
                clock.advance(max(0.0, calls[0].getTime() - clock.seconds()))
        while not actor.idle():
            f, args, kwargs = pump.calls.get(timeout=60)
            f(*args, **kwargs)
        pump.wait(actor.pending())
        played = time.perf_counter()
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
        results=tuple(actor.results),
        actor=actor,
    )
