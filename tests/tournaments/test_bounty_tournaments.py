"""Bounty tournaments played to the end with bots (T-14): every knockout paid to the cent.

Each format (deferred progressive, classic knockout, progressive knockout) over a 9-player
sit-and-go and a 500-entry re-entry MTT, through the real director, tables, ledger and store
(SQLite, a fake clock, seeded RNGs). Each run checks:

- the ledger: the bounty pool took each entry's (and re-entry's) starting bounty in the entry's
  own transfer and ends empty; what it paid to wallets is what came in less the T-7 rounding of
  split pots; `ledger check` passes; every wallet is what was deposited, less what was paid in,
  plus prizes and bounties;
- per player, the bounty money won equals a reference computed HERE from the knockout records
  (who knocked out whom, in which hand, the places), with the rules of T-14 written out again
  (not by calling tournaments/director/bounties.py), including the bubble of the deferred
  format and the re-entries' fresh bounties.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from twisted.internet.task import Clock

from pokerroom.jobs import JobContext, JobSettings, RefundsJob, job_run, run_blocking
from pokerroom.ledger import LedgerService, make_engine, upgrade
from pokerroom.ledger.db import in_transaction, read
from pokerroom.ledger.kinds import AccountKind
from pokerroom.ledger.reports import check_ledger, total_balance
from pokerroom.ledger.schema import accounts, journal, postings
from tournaments import store
from tournaments.actor.tournament import TournamentActor
from tournaments.config import make_config
from tournaments.director import entries as director_entries
from tournaments.director.bounties import BountyFormat, BountyKind, BountyPayment
from tournaments.ops.simulation import START, Pump, fund_players
from tournaments.results import Result
from tournaments.tables.floor import Players
from tournaments.tables.knockouts import HandResult
from tournaments.tables.table import TournamentTable
from tournaments.templates import load_structures

USD = "USD"
BUY_IN, FEE, SHARE_BPS = 1006, 100, 5000
START_BOUNTY = BUY_IN * SHARE_BPS // 10_000  # 503: odd, so halves and splits leave cents
KINDS = {
    "deferred": BountyKind.DEFERRED,
    "classic": BountyKind.CLASSIC,
    "pko": BountyKind.PROGRESSIVE,
}


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    eng = make_engine(f"sqlite:///{tmp_path / 'bounty.sqlite'}")
    upgrade(eng)
    try:
        yield eng
    finally:
        eng.dispose()


class Bots(Players):
    """Every seat, at once: all-in 4 %, fold to a bet 45 %, else check or call; busted bots
    re-enter while they may (T-4), unless the money is near. Keeps every hand's knockouts."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.actor: TournamentActor | None = None
        self.knockouts: list[tuple[str, tuple[str, ...]]] = []  # (busted, winners) per knockout
        self.told: list[tuple[BountyPayment, int, str]] = []
        self.chip_errors: list[str] = []

    def turn(self, table: TournamentTable, entry: str) -> None:
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
        if sum(result.start_stacks.values()) != sum(result.end_stacks.values()):
            self.chip_errors.append(result.hand_id)
        for knockout in result.knockouts:
            self.knockouts.append((knockout.entry, knockout.busted_by))

    def bounty_won(self, payment: BountyPayment, bounty: int, hand_id: str) -> None:
        """What the players are told (`bounty_won`): kept for the checks."""
        self.told.append((payment, bounty, hand_id))

    def finished(self, result: Result) -> None:
        actor = self.actor
        if actor is None or result.prize or actor.status != "running":
            return
        if len(actor.alive) <= actor.paid_places() + 30:
            # Not near the money: an entry in flight when the money is reached lands after the
            # bubble and moves every place decided before it by one (T-5); the bounty book then
            # pays its own bounty at once, but the reference here reads the final places.
            return
        clock = actor.director_clock()
        if director_entries.can_reenter(actor.settings, actor.state, clock, result.entry, 10**9):
            actor.reenter(result.entry).addErrback(lambda _: None)


@dataclass
class Run:
    """A finished tournament and what the test needs of it."""

    actor: TournamentActor
    bots: Bots
    funded: int
    names: list[str]
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)


def play(
    engine: Engine,
    fmt: str,
    players: int,
    seed: int,
    *,
    sit_and_go: bool,
    margin: int = 1,
    bots: Bots | None = None,
    rng: random.Random | None = None,
    until: Callable[[TournamentActor], bool] | None = None,
) -> Run:
    """One bounty tournament, bots in every seat, to its end (the loop of `simulate`);
    hand-for-hand from `margin` players before the money; `rng` deals (a rigged deck);
    `until` stops it between hands, every decision so far stored (a crash, for T-18)."""
    tid = f"b-{fmt}-{players}-{seed}"
    names = [f"{fmt[0]}{seed}-{n:04d}" for n in range(players)]
    funded = (BUY_IN + FEE) * 4
    fund_players(engine, names, funded, tid)
    began = time.perf_counter()
    clock = Clock()
    clock.advance(START)
    pump = Pump()
    ledger = LedgerService(pump, engine)
    ledger.startService()
    config = make_config(
        tid,
        load_structures()["turbo"],
        buy_in=BUY_IN,
        fee=FEE,
        starts_at=START + 60,
        fmt="freezeout" if sit_and_go else "reentry",
        late_registration_levels=0 if sit_and_go else 4,
        max_entries=players if sit_and_go else None,
        sit_and_go=sit_and_go,
        between_hands_seconds=30.0,
        bounty=BountyFormat(SHARE_BPS, KINDS[fmt]),
    )
    config = replace(config, hand_for_hand_margin=margin)
    bots = bots or Bots(random.Random(seed + 1))
    actor = TournamentActor(config, clock, ledger, rng or random.Random(seed + 2), bots)
    bots.actor = actor
    try:
        actor.open()
        for name in names:
            pump.wait(actor.register(name))
        while actor.status in ("registering", "running"):
            if until is not None and actor.idle() and not actor.cashier.in_flight and until(actor):
                break
            pump.run_ready()
            calls = clock.getDelayedCalls()
            if actor.cashier.in_flight or not calls:
                f, args, kwargs = pump.calls.get(timeout=60)
                f(*args, **kwargs)
            else:
                clock.advance(max(0.0, calls[0].getTime() - clock.seconds()))
        while not actor.idle() or actor.cashier.in_flight:
            f, args, kwargs = pump.calls.get(timeout=60)
            f(*args, **kwargs)
        pump.wait(actor.pending())
    finally:
        ledger.stopService()
    actor.floor.stop()
    failures = [key for key, _ in actor.payouts.failures]
    assert actor.bounties is not None
    failures += [key for key, _ in actor.bounties.failures]
    return Run(actor, bots, funded, names, time.perf_counter() - began, failures)


# --------------------------------------------------------------------------- the reference


def reference(
    results: list[Result], kind: BountyKind, paid_places: int
) -> tuple[dict[str, int], int]:
    """Bounty money won per player, and the cents rounded to the house, from the knockout
    records alone: T-14 as the rule text says it, T-9 order inside a hand (lowest finisher
    first), the bubble before the first knockout whose place is paid (or after the hand that
    reached the money). Players enter with START_BOUNTY; a re-entry starts afresh."""
    winners = [r for r in results if not r.busted_by and not r.hand_id]
    knocked = [r for r in results if r.busted_by]
    totals: dict[str, int] = {}  # the bounty on each head (absent: a fresh entry's)
    won: dict[str, int] = defaultdict(int)
    rounding = 0
    burst = False

    def head(player: str) -> int:
        return totals.setdefault(player, START_BOUNTY)

    def still_in_after(batch: int) -> list[str]:
        """Players with chips after `batch`: a later knockout of theirs, or a winner."""
        later = {r.entry for r in knocked if r.batch > batch}
        return sorted(later | {w.entry for w in winners})

    def bubble(batch: int, before_group: bool, group: list[Result]) -> None:
        nonlocal burst
        burst = True
        if kind is not BountyKind.DEFERRED:
            return
        alive = set(still_in_after(batch))
        if before_group:  # the busted of this and later groups of the hand are still in
            alive |= {r.entry for r in group}
            alive |= {r.entry for r in knocked if r.batch == batch and r.place < group[0].place}
        for player in sorted(alive):
            won[player] += head(player)
            totals[player] = 0

    batches = sorted({r.batch for r in knocked})
    for batch in batches:
        hand = [r for r in knocked if r.batch == batch]
        places = sorted({r.place for r in hand}, reverse=True)  # lowest finisher first
        for place in places:
            group = [r for r in hand if r.place == place]
            if not burst and place <= paid_places:
                bubble(batch, True, group)
            for r in sorted(group, key=lambda r: r.entry):
                bounty = totals.pop(r.entry, START_BOUNTY)
                beneficiaries = sorted(set(r.busted_by))
                each = bounty // len(beneficiaries)
                rounding += bounty - each * len(beneficiaries)
                for w in beneficiaries:
                    if kind is BountyKind.CLASSIC or (kind is BountyKind.DEFERRED and burst):
                        won[w] += each
                    elif kind is BountyKind.DEFERRED:
                        totals[w] = head(w) + each
                    else:  # PKO: half now rounded down, the rest (odd cent) on the head
                        won[w] += each // 2
                        totals[w] = head(w) + each - each // 2
        if not burst and min(places) - 1 <= paid_places:
            bubble(batch, False, [])
    for w in winners:  # T-8: the bounty on one's own head
        won[w.entry] += totals.get(w.entry, START_BOUNTY)
    return {p: n for p, n in won.items() if n}, rounding


# --------------------------------------------------------------------------- the checks


def balance(engine: Engine, kind: AccountKind, owner: str) -> int:
    query = sa.select(accounts.c.balance).where(
        accounts.c.kind == kind.value, accounts.c.owner == owner, accounts.c.currency == USD
    )
    return int(read(engine, lambda conn: conn.execute(query).scalar()) or 0)


def bounty_paid_to_wallets(engine: Engine, tid: str) -> dict[str, int]:
    """From the journal: what the tournament's bounty transfers credited to each wallet."""
    query = (
        sa.select(accounts.c.owner, sa.func.sum(postings.c.amount))
        .select_from(postings.join(journal).join(accounts))
        .where(
            journal.c.kind == "bounty",
            journal.c.reference == f"tournament:{tid}",
            accounts.c.kind == "wallet",
        )
        .group_by(accounts.c.owner)
    )
    return {owner: int(n) for owner, n in read(engine, lambda conn: list(conn.execute(query)))}


def check_run(engine: Engine, run: Run, kind: BountyKind) -> None:
    actor, book = run.actor, run.actor.bounties
    assert book is not None
    tid = actor.tid
    assert actor.status == "finished" and not run.failures and not run.bots.chip_errors
    entries = actor.state.entries
    assert book.state.paid_in == entries * START_BOUNTY  # every entry and re-entry
    assert balance(engine, AccountKind.BOUNTY_POOL, tid) == 0
    assert book.state.in_play == 0 and book.state.balanced
    paid = bounty_paid_to_wallets(engine, tid)
    assert paid == book.won
    assert sum(paid.values()) + book.state.rounding == entries * START_BOUNTY
    # The records: the hands' knockouts are the results' (who knocked out whom).
    records = sorted(run.bots.knockouts)
    assert records == sorted((r.entry, r.busted_by) for r in actor.results if r.busted_by)
    assert actor.prizes is not None
    expected, rounding = reference(list(actor.results), kind, actor.prizes.paid_places)
    assert book.won == expected
    assert book.state.rounding == rounding
    # Every wallet: deposited - paid in + prizes + bounties.
    spent: dict[str, int] = defaultdict(int)
    for player, record in actor.state.players.items():
        spent[player] = record.entries * (BUY_IN + FEE)
    prizes: dict[str, int] = defaultdict(int)
    for r in actor.results:
        prizes[r.entry] += r.prize
    for name in run.names:
        wallet = balance(engine, AccountKind.WALLET, name)
        assert wallet == run.funded - spent[name] + prizes[name] + book.won.get(name, 0), name
    assert check_ledger(engine).ok and total_balance(engine, USD) == 0
    assert balance(engine, AccountKind.HOUSE_ROUNDING, "house") >= book.state.rounding


@pytest.mark.parametrize("fmt", sorted(KINDS))
def test_nine_player_sit_and_go_pays_every_bounty(engine: Engine, fmt: str) -> None:
    """T-14 in each format over a 9-player sit-and-go (3 paid: the bubble at the 4th)."""
    run = play(engine, fmt, 9, seed=41, sit_and_go=True)
    check_run(engine, run, KINDS[fmt])
    book = run.actor.bounties
    assert book is not None
    reasons = {payment.reason.value for _, payment in book.paid}
    if fmt == "deferred":
        assert "bubble" in reasons  # every total still in play paid when the money is reached
    if fmt == "pko":
        (winner,) = [r.entry for r in run.actor.results if r.place == 1]
        assert any(p.reason.value == "end" and p.entry == winner for _, p in book.paid)


@pytest.mark.parametrize("fmt", sorted(KINDS))
def test_five_hundred_entry_reentry_mtt_pays_every_bounty(engine: Engine, fmt: str) -> None:
    """T-14 in each format over a 500-player re-entry MTT: re-entries bring fresh bounties,
    hand-for-hand rounds (from 12 players before the money) settle the knockouts of every table
    together, in T-9 order across tables."""
    run = play(engine, fmt, 500, seed=42, sit_and_go=False, margin=12)
    check_run(engine, run, KINDS[fmt])
    actor = run.actor
    assert actor.state.entries > 500  # re-entries, each with its own starting bounty
    tables_per_batch: dict[int, set[int]] = defaultdict(set)
    hands_per_batch: dict[int, set[str]] = defaultdict(set)
    for r in actor.results:
        if r.busted_by:
            hands_per_batch[r.batch].add(r.hand_id)
            tables_per_batch[r.batch].add(int(r.hand_id.split(":")[1]))
    assert any(len(t) > 1 for t in tables_per_batch.values())  # a hand-for-hand round
    assert any(
        len([r for r in actor.results if r.batch == b and r.busted_by]) > len(h)
        for b, h in hands_per_batch.items()
    )  # several knockouts in one hand at one table


# --------------------------------------------------------------------------- rigged hands

BOARD = ("2h", "7c", "9s", "Jd", "Qh")  # no pair, no straight, at most two of a suit
LOSERS = {("3c", "4d"), ("5c", "6d"), ("3h", "4s")}  # high card Q-J-9-7-4 / -6 / -4
ACES = (("As", "Ks"), ("Ad", "Kd"), ("Ac", "Kc"))  # each A-K-Q-J-9: they tie, beating both


class RiggedDeck(random.Random):
    """A seeded RNG whose next full-deck shuffles give these hole cards (in dealing order) and
    this board; everything else (seats, later hands) is the seed's."""

    def __init__(self, seed: int, holes: list[tuple[str, str]]) -> None:
        super().__init__(seed)
        self.holes = holes

    def shuffle(self, x: list[str]) -> None:  # type: ignore[override]
        if self.holes and len(x) == 52:
            dealt = [card for pair in self.holes for card in pair] + list(BOARD)
            rest = [card for card in x if card not in dealt]
            x[:] = rest + dealt[::-1]  # the engine deals from the end of the deck
            self.holes = []
            return
        super().shuffle(x)


class Script(Bots):
    """The first hand by the cards: A-K holders in `callers` call, the low hands shove, the
    rest fold; then bots as usual."""

    def __init__(self, rng: random.Random, callers: set[str]) -> None:
        super().__init__(rng)
        self.callers = callers
        self.scripted = True

    def turn(self, table: TournamentTable, entry: str) -> None:
        hand = table.hand
        assert hand is not None
        if not self.scripted:
            super().turn(table, entry)
            return
        legal = hand.legal_actions(hand.actor)
        assert legal is not None
        cards = tuple(hand.holes[hand.actor] or ())
        if cards in LOSERS and legal.max_raise_to is not None:
            table.act(entry, "raise", legal.max_raise_to)
        elif cards in LOSERS or cards[0] in self.callers:
            table.act(entry, "call" if legal.call_amount else "check")
        else:
            table.act(entry, "fold" if legal.can_fold else "check")

    def hand_ended(self, table: TournamentTable, result: HandResult) -> None:
        self.scripted = False
        super().hand_ended(table, result)


def first_settlement(engine: Engine, tid: str) -> dict[tuple[str, str], int]:
    """The postings of the tournament's first bounty settlement, by (kind, owner)."""
    key = f"tourney:{tid}:bounty:settlement:1"
    query = (
        sa.select(accounts.c.kind, accounts.c.owner, postings.c.amount)
        .select_from(postings.join(journal).join(accounts))
        .where(journal.c.idempotency_key == key)
    )
    rows = read(engine, lambda conn: list(conn.execute(query)))
    return {(kind, owner): int(amount) for kind, owner, amount in rows}


@pytest.mark.parametrize("winners", [2, 3])
@pytest.mark.parametrize("fmt", sorted(KINDS))
def test_a_split_knockout_pot_splits_the_bounty_rounded_down(
    engine: Engine, fmt: str, winners: int
) -> None:
    """T-14/T-7: a knockout pot split by 2 or 3 winners splits the 5.03 bounty equally, rounded
    down (2.51 each + 0.01, or 1.67 each + 0.02 to the house rounding account); PKO halves each
    share (1.25 paid + 1.26 on the head; 0.83 + 0.84); the winners are told."""
    holes = [("3c", "4d"), *ACES]
    callers = {pair[0] for pair in ACES[:winners]}
    bots = Script(random.Random(5), callers)
    run = play(engine, fmt, 4, seed=50 + winners, sit_and_go=True, bots=bots,
               rng=RiggedDeck(7, holes))  # fmt: skip
    actor = run.actor
    book = actor.bounties
    assert book is not None
    (busted,) = [r for r in actor.results if r.batch == 1]
    assert busted.place == 4 and len(busted.busted_by) == winners
    each, rest = divmod(START_BOUNTY, winners)
    assert rest > 0  # odd cents: the test can see where they go
    paid = {"classic": each, "pko": each // 2, "deferred": 0}[fmt]
    moved = first_settlement(engine, actor.tid)
    for winner in busted.busted_by:
        assert moved.get(("wallet", winner), 0) == paid
    assert moved[("house_rounding", "house")] == rest
    assert moved[("bounty_pool", actor.tid)] == -(paid * winners + rest)
    told = [(p.entry, p.paid, p.added) for p, _, hand in bots.told if hand == busted.hand_id]
    assert sorted(told) == sorted((w, paid, each - paid) for w in busted.busted_by)
    check_run(engine, run, KINDS[fmt])


@pytest.mark.parametrize("fmt", sorted(KINDS))
def test_simultaneous_knockouts_at_one_table_settle_in_t9_order(engine: Engine, fmt: str) -> None:
    """T-9/T-14: two players busted in one hand by the same winner: both bounties to the winner
    (PKO: half of each paid at once). Four entries pay two places, so in deferred format the
    hand reaches the money: the bubble then pays the winner the two bounties plus their own, and
    the other player still in their own."""
    holes = [("3c", "4d"), ("5c", "6d"), *ACES[:2]]
    bots = Script(random.Random(5), {"As"})
    run = play(engine, fmt, 4, seed=60, sit_and_go=True, bots=bots, rng=RiggedDeck(7, holes))
    actor = run.actor
    book = actor.bounties
    assert book is not None
    knocked = [r for r in actor.results if r.batch == 1]
    assert sorted(r.place for r in knocked) == [3, 4] and len({r.busted_by for r in knocked}) == 1
    (winner,) = knocked[0].busted_by
    moved = first_settlement(engine, actor.tid)
    if fmt == "classic":
        assert moved[("wallet", winner)] == 2 * START_BOUNTY
    elif fmt == "pko":
        assert moved[("wallet", winner)] == 2 * (START_BOUNTY // 2)
    else:
        (other,) = set(actor.state.players) - {winner} - {r.entry for r in knocked}
        assert moved[("wallet", winner)] == 3 * START_BOUNTY  # the bubble: all on their head
        assert moved[("wallet", other)] == START_BOUNTY
    check_run(engine, run, KINDS[fmt])


@pytest.mark.parametrize("fmt", ["pko", "classic"])
def test_three_knockouts_in_one_hand_tell_the_bounty_after_each(engine: Engine, fmt: str) -> None:
    """T-14, PROTOCOL.md `bounty_won.bounty`: one player busts three in one hand; each message
    says the receiver's bounty right after THAT knockout (PKO: 5.03 + 2.52 per knockout, so
    7.55, 10.07, 12.59 — not 12.59 three times; classic: the bounty never grows)."""
    holes = [("3c", "4d"), ("5c", "6d"), ("3h", "4s"), ACES[0], ACES[1]]
    bots = Script(random.Random(5), {"As"})
    run = play(engine, fmt, 5, seed=70, sit_and_go=True, bots=bots, rng=RiggedDeck(7, holes))
    actor = run.actor
    knocked = [r for r in actor.results if r.batch == 1]
    assert len(knocked) == 3 and len({r.busted_by for r in knocked}) == 1
    (winner,) = knocked[0].busted_by
    hand = knocked[0].hand_id
    told = [(p.entry, p.source, p.paid, bounty) for p, bounty, h in bots.told if h == hand]
    assert [entry for entry, *_ in told] == [winner] * 3
    share = START_BOUNTY - START_BOUNTY // 2 if fmt == "pko" else 0
    assert [bounty for *_, bounty in told] == [START_BOUNTY + n * share for n in (1, 2, 3)]
    paid = START_BOUNTY // 2 if fmt == "pko" else START_BOUNTY
    assert [p for _, _, p, _ in told] == [paid] * 3  # the amounts paid were right before too
    check_run(engine, run, KINDS[fmt])


# --------------------------------------------------------------------------- T-18


@pytest.mark.parametrize(
    ("fmt", "phase"),
    [("deferred", "before"), ("deferred", "after"), ("pko", "before"), ("pko", "after")],
)
def test_outage_refunds_give_back_the_current_bounties(
    engine: Engine, fmt: str, phase: str
) -> None:
    """T-18 with T-14: the tournament stops between hands (a crash: everything decided so far
    is stored) before or after the bubble and is cancelled for the outage; the refund job pays
    every remaining player their current bounty (as stored with each settlement) out of the
    bounty pool, which ends empty; after a deferred bubble no bounty is left to give back."""
    players = 60

    def stop(actor: TournamentActor) -> bool:
        paid = actor.paid_places()
        left = len(actor.alive)
        return left <= paid + 8 if phase == "before" else left <= paid - 2

    run = play(engine, fmt, players, seed=70, sit_and_go=False, until=stop)
    actor = run.actor
    book = actor.bounties
    assert book is not None and actor.status == "running"
    assert book.state.bubble_burst is (phase == "after")
    current = dict(book.state.totals)
    assert set(current) == set(actor.alive)
    tid = actor.tid
    now = round(actor.clock.seconds() * 1000)

    def outage(conn: sa.Connection) -> None:
        assert store.mark_interrupted(conn, tid, now)
        assert store.mark_cancelled(conn, tid, store.CancelReason.OUTAGE, now + 1)

    in_transaction(engine, outage)
    stopped = read(engine, lambda conn: store.load_stopped(conn, tid))
    assert {p.player: p.bounty for p in stopped.state.remaining} == current
    pool_before = balance(engine, AccountKind.BOUNTY_POOL, tid)
    assert pool_before == sum(current.values())
    ctx = JobContext(lambda: START + 86_400, JobSettings(batch=50))
    report = run_blocking(engine, job_run(RefundsJob(), "test:1", ctx))
    assert report.outcome == "ok" and report.tournaments == (tid,), report.errors
    rows = read(engine, lambda conn: store.load_refunds(conn, tid))
    bounties = {r.player: r.amount for r in rows if r.component == "bounty"}
    assert bounties == {p: n for p, n in current.items() if n}
    if fmt == "deferred" and phase == "after":
        assert bounties == {}
    else:
        assert sum(bounties.values()) > 0
    assert balance(engine, AccountKind.BOUNTY_POOL, tid) == 0
    assert check_ledger(engine).ok and total_balance(engine, USD) == 0


@pytest.mark.parametrize("fmt", ["deferred", "pko"])
def test_a_resumed_bounty_tournament_keeps_every_bounty(tmp_path: Path, fmt: str) -> None:
    """T-18 resume with T-14: killed with a hand in progress, back within the window: the
    bounties are rebuilt from the store (every head's total, the bubble, what was won) and the
    tournament plays to the end; the bounty pool pays out exactly what came in (less T-7
    rounding), to the cent, across both processes."""
    from tests.tournaments.actor_harness import Room
    from tests.tournaments.test_durable import Restart, Staller, advance, crashed_mtt

    room = Room(tmp_path)
    try:
        bots = Staller(random.Random(7))
        fmt_setting = BountyFormat(SHARE_BPS, KINDS[fmt])
        actor = crashed_mtt(room, bots, f"r{fmt}", bounty=fmt_setting)
        start = actor.settings.buy_in * SHARE_BPS // 10_000
        while actor.status == "running" and len(actor.alive) > 12:
            advance(room, actor)
        book = actor.bounties
        assert book is not None and book.state.paid_out + book.state.in_play > 0
        bots.stalling = True
        while not any(t.hand_running for t in actor.floor.tables.values()):
            advance(room, actor)
        room.wait(actor.pending())
        before = dict(book.state.totals)
        bots2 = Staller(random.Random(8))
        restart = Restart(room, 120.0, bots2)
        (choice,) = restart.recovery.choices
        assert choice.action == "resumed"
        again = restart.scheduler.actors[actor.tid]
        bots2.actor = again
        resumed = again.bounties
        assert resumed is not None
        assert resumed.state.totals == before  # every head as of the last completed hands
        assert resumed.won == book.won and resumed.state.balanced
        room.run_to_end(again)
        assert again.status == "finished"
        pool = AccountKind.BOUNTY_POOL
        assert balance(room.engine, pool, actor.tid) == 0
        paid = bounty_paid_to_wallets(room.engine, actor.tid)
        assert paid == resumed.won
        assert sum(paid.values()) + resumed.state.rounding == 27 * start
        assert check_ledger(room.engine).ok and total_balance(room.engine, USD) == 0
    finally:
        room.close()
