"""Money the director decides to move, as values for the actor to post to the ledger (P-2).

The director never talks to the ledger. It returns `MoneyMove`s: one balanced transfer
each (`amount` minor units from `source` to `destination`), with a transfer kind and an
idempotency key derived from the tournament and the decision, so that repeating a
decision cannot repeat a movement. Account kinds are the ledger's (`pokerroom.ledger.kinds`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

HOUSE = "house"
WALLET = "wallet"
TDOLLARS = "tdollars"
PRIZE_POOL = "prize_pool"
HOUSE_FEES = "house_fees"
HOUSE_OVERLAY = "house_overlay"
HOUSE_ROUNDING = "house_rounding"
BOUNTY_POOL = "bounty_pool"  # a tournament's bounties (T-14)
STAKING_ESCROW = "staking_escrow"  # buyers' money held until settlement (T-17)
TICKET = "ticket"  # a tournament ticket's value held until used; owner = the ticket id


@dataclass(frozen=True, slots=True)
class Account:
    """A ledger account by kind and owner (the actor adds the currency)."""

    kind: str
    owner: str


@dataclass(frozen=True, slots=True)
class MoneyMove:
    """One transfer to post: `amount` > 0 from `source` to `destination`."""

    kind: str  # the ledger transfer kind: buy_in, fee, refund, overlay, prize, rounding
    source: Account
    destination: Account
    amount: int
    key: str  # idempotency key (P-2)


def wallet(player: str) -> Account:
    """A player's cash."""
    return Account(WALLET, player)


def tdollars(player: str) -> Account:
    """A player's tournament money, T$ (T-16)."""
    return Account(TDOLLARS, player)


def prize_pool(tournament_id: str) -> Account:
    """A tournament's prize pool (T-2, T-6)."""
    return Account(PRIZE_POOL, tournament_id)


def bounty_pool(tournament_id: str) -> Account:
    """A tournament's bounty pool (T-14)."""
    return Account(BOUNTY_POOL, tournament_id)


def staking_escrow(tournament_id: str) -> Account:
    """A tournament's staking escrow: buyers' money held until settlement (T-17)."""
    return Account(STAKING_ESCROW, tournament_id)


def house(kind: str) -> Account:
    """One of the house accounts: fees (T-2), overlay (T-6), rounding (T-7)."""
    return Account(kind, HOUSE)


def moves(*candidates: MoneyMove | None) -> tuple[MoneyMove, ...]:
    """The moves worth posting: no zero amounts, no placeholders."""
    return tuple(m for m in candidates if m is not None and m.amount > 0)


def prize_moves(
    tournament_id: str, prizes: Mapping[str, int], rounding: int = 0
) -> tuple[MoneyMove, ...]:
    """Pay prizes from the pool to wallets, and the rounding rest to the house (T-7)."""
    pool = prize_pool(tournament_id)
    paid: list[MoneyMove | None] = [
        MoneyMove("prize", pool, wallet(player), amount, f"{tournament_id}:prize:{player}")
        for player, amount in sorted(prizes.items())
    ]
    paid.append(
        MoneyMove("rounding", pool, house(HOUSE_ROUNDING), rounding, f"{tournament_id}:rounding")
    )
    return moves(*paid)


def total(moved: Iterable[MoneyMove], account: Account) -> int:
    """Net amount `moved` brings into `account` (negative when it leaves)."""
    net = 0
    for move in moved:
        if move.destination == account:
            net += move.amount
        if move.source == account:
            net -= move.amount
    return net
