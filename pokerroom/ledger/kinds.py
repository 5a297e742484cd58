"""Account kinds and transfer kinds, and the identifier form of an account."""

from __future__ import annotations

import re
from contextlib import suppress
from dataclasses import dataclass, field
from enum import StrEnum

from pokerroom.ledger.errors import (
    InvalidCurrency,
    InvalidKind,
    InvalidOwner,
    UnknownAccount,
)

CURRENCY_RE = re.compile(r"^[A-Z][A-Z0-9]{1,7}$")
MAX_OWNER = 128
HOUSE = "house"


class AccountKind(StrEnum):
    """What an account holds; every kind but EXTERNAL can never go below zero."""

    WALLET = "wallet"  # a player's cash
    TDOLLARS = "tdollars"  # a player's tournament money, T$ (T-16)
    HOUSE_RAKE = "house_rake"  # C-11
    HOUSE_FEES = "house_fees"  # tournament fees, T-2
    HOUSE_ROUNDING = "house_rounding"  # what rounding down leaves over, T-7
    HOUSE_OVERLAY = "house_overlay"  # tops up guarantees, T-6; funded by the operator
    SEAT_ESCROW = "seat_escrow"  # chips on a cash table, owner = table/seat/player
    PRIZE_POOL = "prize_pool"  # a tournament's prize pool, T-2 and T-6
    BOUNTY_POOL = "bounty_pool"  # a bounty tournament's bounties, T-14
    STAKING_ESCROW = "staking_escrow"  # money buyers paid for action, held until settlement, T-17
    TICKET = "ticket"  # a tournament seat won or given (T-3, T-16): its value, owner = ticket id
    HOUSE_EXPIRED = "house_expired"  # what tickets held when they expired unused (T-16)
    CASINO_IN_PLAY = "casino_in_play"  # a casino round's stakes, owner = round id (L-1)
    CASINO_BANKROLL = "casino_bankroll"  # the house's casino wins and losses (L-1, L-3)
    CASINO_JACKPOT = "casino_jackpot"  # a progressive table's jackpot pool, owner = table (PB-5)
    CASINO_JACKPOT_SEED = "casino_jackpot_seed"  # funds the pool's reset (PB-8)
    HELD = "held"  # a player's casino win awaiting staff review (K-13, PB-11)
    EXTERNAL = "external"  # the world outside: deposits and withdrawals; may go negative


class TransferKind(StrEnum):
    """Why money moved; stored on every journal entry."""

    DEPOSIT = "deposit"
    WITHDRAWAL = "withdrawal"
    BUY_IN = "buy_in"
    CASH_OUT = "cash_out"
    HAND_SETTLEMENT = "hand_settlement"
    RAKE = "rake"
    FEE = "fee"
    PRIZE = "prize"
    BOUNTY = "bounty"
    OVERLAY = "overlay"
    ROUNDING = "rounding"
    STAKE = "stake"
    REFUND = "refund"
    CORRECTION = "correction"
    CASINO_BET = "casino_bet"  # a confirmed casino bet: wallet -> the round's in_play (L-2)
    CASINO_SETTLEMENT = "casino_settlement"  # a casino round settled (L-3)
    CASINO_VOID = "casino_void"  # a casino round voided: every stake back (L-5)
    CASINO_RELEASE = "casino_release"  # staff release a reviewed casino win: held -> wallet (K-13)
    HOUSE_FUNDING = "house_funding"  # the operator funds a house account, or takes money back
    TRANSFER = "transfer"


NEGATIVE_ALLOWED = frozenset({AccountKind.EXTERNAL})


def check_currency(currency: object) -> str:
    """Return `currency` if it is a valid currency code, else raise `invalid_currency`."""
    if not isinstance(currency, str) or not CURRENCY_RE.match(currency):
        raise InvalidCurrency(f"bad currency code {currency!r}")
    return currency


def account_kind(kind: object) -> AccountKind:
    """Coerce to an AccountKind or raise `invalid_kind`."""
    if isinstance(kind, str):
        with suppress(ValueError):
            return AccountKind(kind)
    raise InvalidKind(f"unknown account kind {kind!r}")


def transfer_kind(kind: object) -> TransferKind:
    """Coerce to a TransferKind or raise `invalid_kind`."""
    if isinstance(kind, str):
        with suppress(ValueError):
            return TransferKind(kind)
    raise InvalidKind(f"unknown transfer kind {kind!r}")


@dataclass(frozen=True, slots=True)
class AccountRef:
    """Names an account by kind, owner and currency: `wallet:alice:USD`."""

    kind: AccountKind
    owner: str
    currency: str
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", account_kind(self.kind))
        if not isinstance(self.owner, str) or not self.owner or len(self.owner) > MAX_OWNER:
            raise InvalidOwner(f"bad account owner {self.owner!r}")
        check_currency(self.currency)
        # Refs are dict keys on the hot path; Enum.__hash__ is slow, so hash once.
        object.__setattr__(self, "_hash", hash((self.kind.value, self.owner, self.currency)))

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return f"{self.kind.value}:{self.owner}:{self.currency}"

    @classmethod
    def parse(cls, text: str) -> AccountRef:
        """Parse `kind:owner:currency`; the owner may itself contain colons."""
        kind, sep, rest = text.partition(":")
        owner, sep2, currency = rest.rpartition(":")
        if not sep or not sep2:
            raise UnknownAccount(f"account {text!r} is not of the form kind:owner:currency")
        return cls(account_kind(kind), owner, currency)


def wallet(player: str, currency: str) -> AccountRef:
    """A player's cash wallet."""
    return AccountRef(AccountKind.WALLET, player, currency)


def house(kind: AccountKind, currency: str) -> AccountRef:
    """One of the house's accounts (rake, fees, rounding, overlay)."""
    return AccountRef(kind, HOUSE, currency)


def external(currency: str, owner: str = "world") -> AccountRef:
    """The edge account that mirrors deposits and withdrawals."""
    return AccountRef(AccountKind.EXTERNAL, owner, currency)
