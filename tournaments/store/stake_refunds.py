"""T-17 in the T-18 refund job: the buyers of a seller's action share the seller's refund.

`apply_stakes` turns the refund plan's rows (`pokerroom.jobs.refunds.plan_rows`) into the rows
paid with staking, each still ONE ledger transfer (so a buyer's part is paid in the same
transaction as the seller's, exactly once, under the row's key):

- **not started** (T-18.1, as T-17 says of an unregistration): every purchase comes back from
  the staking escrow, exactly its price (`stake:<stake id>` rows of the buyers); the seller's
  own refund is their own money back and is not shared;
- **started**: a seller's escrow still held (`hold_until_result`, or a crash between the start
  and its payment) is paid to the seller (`stake_release`): their result is a refund in money;
  and every part of a seller's refund paid to their wallet is split with their buyers, as
  `staking.split_amount` splits a prize (each buyer `floor(amount × bps / 10,000)`, the seller
  `floor(amount × unsold / 10,000)`, the rest to house rounding, T-7). A part paid back as a
  ticket or as T$ (a ticket entry's fee) is a seat's value, not money, and is not shared.

`record_paid` runs in the transaction that marks the rows paid: stakes refunded or released,
and each buyer's part written as a payout row (the stake's result).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy.engine import Connection

from pokerroom.ledger.kinds import AccountKind, AccountRef
from tournaments import store
from tournaments.director.money import HOUSE, HOUSE_ROUNDING, STAKING_ESCROW, WALLET
from tournaments.director.refunds import RefundPhase
from tournaments.director.staking import split_amount
from tournaments.store import stake_store

STAKE_PREFIX = "stake:"  # a buyer's refunded purchase: `stake:<stake id>`
RELEASE = "stake_release"  # a seller's held escrow, paid to them


def _ref(kind: str, owner: str, currency: str) -> str:
    return str(AccountRef(AccountKind(kind), owner, currency))


def apply_stakes(
    tournament_id: str,
    currency: str,
    phase: RefundPhase,
    rows: Sequence[store.RefundRow],
    staking: stake_store.StakingRows,
    row_key: Callable[[str, str], str],
) -> tuple[store.RefundRow, ...]:
    """The refund rows with T-17 applied (see the module docstring); `row_key(player,
    component)` is the ledger key of a new row."""
    live = [r for r in staking.stakes if r.status in (stake_store.HELD, stake_store.PAID)]
    if not live:
        return tuple(rows)
    escrow = _ref(STAKING_ESCROW, tournament_id, currency)
    if phase is RefundPhase.NOT_STARTED:
        back = [
            store.RefundRow(
                r.stake.buyer,
                f"{STAKE_PREFIX}{r.stake.stake_id}",
                r.stake.price,
                escrow,
                ((_ref(WALLET, r.stake.buyer, currency), r.stake.price),),
                row_key(r.stake.buyer, f"{STAKE_PREFIX}{r.stake.stake_id}"),
            )
            for r in live
        ]
        return (*rows, *back)
    shares: dict[str, dict[str, int]] = {}
    held: dict[str, int] = {}
    for r in live:
        stake = r.stake
        mine = shares.setdefault(stake.seller, {})
        mine[stake.buyer] = mine.get(stake.buyer, 0) + stake.share_bps
        if r.status == stake_store.HELD:
            held[stake.seller] = held.get(stake.seller, 0) + stake.price
    shared = [_shared(row, shares.get(row.player), currency) for row in rows]
    released = [
        store.RefundRow(
            seller,
            RELEASE,
            amount,
            escrow,
            ((_ref(WALLET, seller, currency), amount),),
            row_key(seller, RELEASE),
        )
        for seller, amount in sorted(held.items())
    ]
    return (*shared, *released)


def _shared(row: store.RefundRow, shares: dict[str, int] | None, currency: str) -> store.RefundRow:
    """One refund component of a seller, its wallet part split with their buyers (T-17)."""
    own = _ref(WALLET, row.player, currency)
    if not shares or row.player == store.HOUSE_ROW:
        return row
    destinations: dict[str, int] = {}
    for account, amount in row.destinations:
        if account != own:
            destinations[account] = destinations.get(account, 0) + amount
            continue
        split = split_amount(amount, shares)
        parts = [(own, split.seller)]
        parts += [(_ref(WALLET, buyer, currency), part) for buyer, part in split.buyers]
        parts.append((_ref(HOUSE_ROUNDING, HOUSE, currency), split.rounding))
        for target, part in parts:
            if part > 0:
                destinations[target] = destinations.get(target, 0) + part
    if sum(destinations.values()) != row.amount:
        raise store.StoreError(f"{row.player}: a shared {row.component} does not add up")
    return store.RefundRow(
        row.player,
        row.component,
        row.amount,
        row.source,
        tuple(destinations.items()),
        row.ledger_key,
    )


def record_paid(
    conn: Connection, tournament_id: str, rows: Sequence[store.RefundRow], now_ms: int
) -> None:
    """In the transaction that marks `rows` paid: purchases refunded, held escrow released,
    and each buyer's part of a seller's refund written as the stake's result."""
    payouts: list[stake_store.PayoutRow] = []
    for row in rows:
        if row.player == store.HOUSE_ROW:
            continue
        if row.component.startswith(STAKE_PREFIX):
            stake_store.settle_stakes(
                conn,
                tournament_id,
                stake_store.REFUNDED,
                now_ms,
                stake_ids=[row.component.removeprefix(STAKE_PREFIX)],
            )
            continue
        if row.component == RELEASE:
            stake_store.settle_stakes(
                conn, tournament_id, stake_store.PAID, now_ms, sellers=[row.player]
            )
            continue
        for account, amount in row.destinations:
            ref = AccountRef.parse(account)
            if ref.kind is AccountKind.WALLET and ref.owner != row.player and amount > 0:
                payouts.append(
                    stake_store.PayoutRow(
                        f"{row.ledger_key}:stake:{ref.owner}",
                        row.player,
                        ref.owner,
                        amount,
                        "refund",
                        now_ms,
                    )
                )
    stake_store.add_payouts(conn, tournament_id, payouts)
