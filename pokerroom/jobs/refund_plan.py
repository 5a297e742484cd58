"""The plan of the `refunds` job (pure): a cancelled tournament's stored state turned into
`tournament_refunds` rows, each with its source, destinations and ledger key (P-2).

`pokerroom.jobs.refunds` says where the money goes (T-3, T-16, T-17, T-18) and runs the plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from pokerroom.ledger.kinds import AccountKind, AccountRef
from tournaments import store
from tournaments.director.money import (
    HOUSE_FEES,
    HOUSE_OVERLAY,
    HOUSE_ROUNDING,
    TICKET,
    Account,
    bounty_pool,
    house,
    prize_pool,
    tdollars,
    wallet,
)
from tournaments.director.refunds import (
    FeeRefund,
    RefundPhase,
    RefundPlan,
    outage_refunds,
)
from tournaments.director.registration import Funding
from tournaments.store import stake_store
from tournaments.store.stake_refunds import apply_stakes

PRIZE_COMPONENTS = ("pool_equal_share", "pool_chip_share", "next_prize")
ROUNDING = "rounding"  # house row: T-7, what the per-player round-downs leave
OVERLAY = "overlay"  # house row: T-18's guarantee clause, the overlay goes back


def refund_key(tournament_id: str, player: str, component: str) -> str:
    """The idempotency key of one refund component (P-2)."""
    return f"t:{tournament_id}:refund:{player}:{component}"


def account_ref(account: Account, currency: str) -> str:
    """The ledger account reference of a director account in `currency`."""
    return str(AccountRef(AccountKind(account.kind), account.owner, currency))


# --------------------------------------------------------------------------- the plan (pure)


@dataclass(frozen=True, slots=True)
class TournamentPlan:
    """One tournament's refunds: the plan and its ledger rows."""

    tournament_id: str
    currency: str
    reason: str
    phase: RefundPhase
    plan: RefundPlan | None
    rows: tuple[store.RefundRow, ...]


def plan_rows(
    stopped: store.StoppedTournament, staking: stake_store.StakingRows | None = None
) -> TournamentPlan:
    """T-18's plan for the stored state, as one row per transfer to make (no I/O); with the
    tournament's stakes, T-17 applied (`tournaments.store.stake_refunds`: buyers share a seller's
    refund in the same transfer, purchases back before the start, held escrow released)."""
    record = stopped.record
    tid, currency = record.id, record.currency
    plan = outage_refunds(stopped.state, record.fee_refund)
    by_player: dict[str, list[store.Payment]] = {}
    for payment in stopped.payments:
        by_player.setdefault(payment.player, []).append(payment)
    rows: list[store.RefundRow] = []
    for refund in plan.refunds:
        payments = by_player.get(refund.player, [])
        live = stopped.live_entry.get(refund.player)
        for component, amount in refund.components():
            if amount <= 0:
                continue
            source, destinations = route(
                tid, plan.phase, record.fee_refund, refund.player, component, amount, payments, live
            )
            rows.append(
                store.RefundRow(
                    refund.player,
                    component,
                    amount,
                    account_ref(source, currency),
                    tuple((account_ref(a, currency), n) for a, n in destinations),
                    refund_key(tid, refund.player, component),
                )
            )
    pool = prize_pool(tid)
    overlay = min(plan.overlay_returned, record.overlay_posted)
    rounding = plan.house_rounding
    if plan.phase is RefundPhase.IN_THE_MONEY and record.prizes is not None:
        rounding += record.prizes.rounding  # T-7: the prize table's own rest, still in the pool
    for component, amount, target in (
        (ROUNDING, rounding, house(HOUSE_ROUNDING)),
        (OVERLAY, overlay, house(HOUSE_OVERLAY)),
    ):
        if amount > 0:
            rows.append(
                store.RefundRow(
                    store.HOUSE_ROW,
                    component,
                    amount,
                    account_ref(pool, currency),
                    ((account_ref(target, currency), amount),),
                    refund_key(tid, store.HOUSE_ROW, component),
                )
            )
    reason = record.cancel_reason or ""
    if staking is not None:
        rows = list(
            apply_stakes(tid, currency, plan.phase, rows, staking, partial(refund_key, tid))
        )
    return TournamentPlan(tid, currency, reason, plan.phase, plan, tuple(rows))


def route(
    tid: str,
    phase: RefundPhase,
    fee_refund: FeeRefund,
    player: str,
    component: str,
    amount: int,
    payments: Sequence[store.Payment],
    live_entry: int | None,
) -> tuple[Account, list[tuple[Account, int]]]:
    """The source of one component and where it goes (see the module docstring)."""
    if component in PRIZE_COMPONENTS:
        return prize_pool(tid), [(wallet(player), amount)]
    if component == "bounty" and phase is not RefundPhase.NOT_STARTED:
        return bounty_pool(tid), [(wallet(player), amount)]
    source: Account
    if component == "fee":
        source = house(HOUSE_FEES)
        if phase is RefundPhase.NOT_STARTED or fee_refund is FeeRefund.ALL_ENTRIES:
            parts = [(p, p.fee) for p in payments]
        else:
            parts = [(p, p.fee) for p in payments if p.entry_no == live_entry]
    elif component == "buy_in":
        source = prize_pool(tid)
        parts = [(p, p.buy_in) for p in payments]
    elif component == "bounty":
        source = bounty_pool(tid)
        parts = [(p, p.bounty) for p in payments]
    else:
        raise store.StoreError(f"{player}: unknown refund component {component!r}")
    destinations: dict[Account, int] = {}
    for payment, part in parts:
        if part > 0:
            target = paid_back_to(phase, player, payment)
            destinations[target] = destinations.get(target, 0) + part
    if sum(destinations.values()) != amount:
        raise store.StoreError(
            f"{player}: {component} of {amount} does not match the purchases that paid it"
        )
    return source, list(destinations.items())


def paid_back_to(phase: RefundPhase, player: str, payment: store.Payment) -> Account:
    """Money paid in goes back where it came from (T-3); a part of a ticket comes as T$ (T-16)."""
    if payment.funding is Funding.TDOLLARS:
        return tdollars(player)
    if payment.funding is Funding.TICKET:
        if phase is RefundPhase.NOT_STARTED:
            return Account(TICKET, payment.ticket_id)
        return tdollars(player)
    return wallet(player)
