"""Registration, unregistration and late registration (T-1, T-2, T-3, T-5).

Each action has a check that raises a `DirectorError` with a stable code, a cheap `can_`
form, and the action, which returns a `Decision`: the new state and the money moves for
the actor to post (ARCH rule 2). Time comes in a `Clock`: `now`, whether the tournament has
actually started (the operator may delay it, T-1) and the level index from `level_at`.
Re-entry, rebuy, add-on and the prize pool are in `entries.py`.

T-14: in a bounty tournament `bounty_share_bps` of each entry's (and re-entry's) buy-in is its
starting bounty: it goes to the tournament's bounty pool in the entry's own transfer, and only
the rest of the buy-in is prize pool (`collected`). Rebuys and add-ons carry no bounty.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.director.money import (
    HOUSE_FEES,
    TICKET,
    Account,
    MoneyMove,
    bounty_pool,
    house,
    moves,
    prize_pool,
    tdollars,
    wallet,
)


class Funding(StrEnum):
    """How an entry was paid (T-3)."""

    CASH = "cash"
    TDOLLARS = "tdollars"
    TICKET = "ticket"  # a seat won in a satellite or a freeroll


class TicketRefund(StrEnum):
    """T-3: what a ticket holder gets on unregistering."""

    REFUSE = "refuse"
    RETURN_TICKET = "return_ticket"


class LateClose(StrEnum):
    """Why late registration closed (T-5)."""

    TIME = "time"
    MONEY = "money"  # the guarantee no longer applies
    MAX_ENTRIES = "max_entries"


@dataclass(frozen=True, slots=True)
class Period:
    """A re-entry, rebuy or add-on period (T-4): open for levels from_level..until_level-1."""

    max_times: int = 0  # per player; 0: not offered
    from_level: int = 0
    until_level: int = 0
    buy_in: int = 0  # to the prize pool
    fee: int = 0  # to the house
    chips: int = 0
    max_stack: int | None = None  # rebuy: only at or below this many chips

    def open_at(self, level_index: int) -> bool:
        """The period is open at this level."""
        return self.max_times > 0 and self.from_level <= level_index < self.until_level


@dataclass(frozen=True, slots=True)
class RegistrationSettings:
    """What the lobby announces for one tournament; money in minor units, chips in chips."""

    tournament_id: str
    buy_in: int  # T-2: to the prize pool
    fee: int  # T-2: to the house
    opens_at: float
    starts_at: float
    starting_stack: int
    unregister_close_seconds: int = 300  # T-3
    late_registration_levels: int = 0  # T-5: open through the end of this level
    max_entries: int | None = None
    guarantee: int = 0  # T-6
    ticket_refund: TicketRefund = TicketRefund.REFUSE
    bounty_share_bps: int = 0  # T-14: the part of each entry's buy-in that is its bounty
    reentry: Period = field(default_factory=Period)
    rebuy: Period = field(default_factory=Period)
    addon: Period = field(default_factory=Period)


@dataclass(frozen=True, slots=True)
class Clock:
    """Where the tournament stands in time."""

    now: float
    started: bool = False
    level_index: int = 0


@dataclass(frozen=True, slots=True)
class PlayerEntries:
    """One player's entries, rebuys and add-ons; `alive` while they have chips in play."""

    funding: Funding
    ticket_id: str = ""
    entries: int = 1
    rebuys: int = 0
    addons: int = 0
    alive: bool = True


@dataclass(frozen=True, slots=True)
class RegistrationState:
    """Who is registered and what the prize pool collected."""

    players: Mapping[str, PlayerEntries] = field(default_factory=dict)
    entries: int = 0  # every entry, re-entries included (T-6)
    collected: int = 0  # buy-ins paid into the prize pool
    late_closed: LateClose | None = None
    guarantee_dropped: bool = False  # T-5
    serial: int = 0  # decisions taken; part of every idempotency key (P-2)

    def key(self, tournament_id: str, action: str, player: str) -> str:
        """The idempotency key of the next decision: unique, and the same if it is repeated."""
        return f"{tournament_id}:{self.serial + 1}:{action}:{player}"


@dataclass(frozen=True, slots=True)
class Decision:
    """What an action decided: the new state, the chips to give, the money to move."""

    action: str
    player: str
    state: RegistrationState
    moves: tuple[MoneyMove, ...] = ()
    chips: int = 0
    ticket_returned: str = ""
    bounty: int = 0  # T-14: the starting bounty this entry brought (to the bounty pool)
    collected: int = 0  # what the decision added to the prize pool's `collected` (< 0: back)


def source_account(player: str, funding: Funding, ticket_id: str = "") -> Account:
    """Where an entry's money comes from, and where a refund goes back to (T-3)."""
    if funding is Funding.TDOLLARS:
        return tdollars(player)
    if funding is Funding.TICKET:
        return Account(TICKET, ticket_id)
    return wallet(player)


def bounty_part(settings: RegistrationSettings, buy_in: int) -> int:
    """T-14/T-7: the starting bounty of an entry of `buy_in`, rounded down (the rest is pool).

    The same amount as `bounties.starting_bounty(buy_in, BountyFormat(bounty_share_bps))`.
    """
    return buy_in * settings.bounty_share_bps // 10_000


def entry_moves(
    settings: RegistrationSettings,
    source: Account,
    buy_in: int,
    fee: int,
    key: str,
    bounty: int = 0,
) -> tuple[MoneyMove, ...]:
    """T-2: the buy-in to the prize pool and the fee to the house; T-14: the `bounty` part of
    the buy-in to the bounty pool, in the same transfer."""
    tid = settings.tournament_id
    return moves(
        MoneyMove("buy_in", source, prize_pool(tid), buy_in - bounty, f"{key}:buy_in"),
        MoneyMove("buy_in", source, bounty_pool(tid), bounty, f"{key}:bounty"),
        MoneyMove("fee", source, house(HOUSE_FEES), fee, f"{key}:fee"),
    )


def late_registration_open(
    settings: RegistrationSettings, state: RegistrationState, clock: Clock
) -> bool:
    """T-5: after the start, until its last level ends, unless closed early."""
    return (
        clock.started
        and state.late_closed is None
        and clock.level_index < settings.late_registration_levels
        and not is_full(settings, state)
    )


def registration_open(
    settings: RegistrationSettings, state: RegistrationState, clock: Clock
) -> bool:
    """T-3/T-5: from the opening time to the start, then during late registration."""
    if not clock.started:
        return clock.now >= settings.opens_at
    return late_registration_open(settings, state, clock)


def is_full(settings: RegistrationSettings, state: RegistrationState) -> bool:
    """The maximum number of entries is reached."""
    return settings.max_entries is not None and state.entries >= settings.max_entries


def _funds(balance: int, needed: int, funding: Funding) -> None:
    """T-4: the funds must be in the account now (a ticket covers its own entry)."""
    if funding is not Funding.TICKET and balance < needed:
        raise DirectorError(errors.INSUFFICIENT_FUNDS, f"needs {needed}, has {balance}")


def verify_register(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    funding: Funding,
    balance: int,
) -> None:
    """Raise the reason `player` cannot register now, if any (T-3, T-5)."""
    if player in state.players:
        raise DirectorError(errors.ALREADY_REGISTERED, "already registered; re-enter instead")
    if is_full(settings, state):
        raise DirectorError(errors.TOURNAMENT_FULL, "the maximum number of entries is reached")
    if not clock.started and clock.now < settings.opens_at:
        raise DirectorError(errors.REGISTRATION_NOT_OPEN, "registration is not open yet")
    if not registration_open(settings, state, clock):
        raise DirectorError(errors.REGISTRATION_CLOSED, "registration is closed")
    _funds(balance, settings.buy_in + settings.fee, funding)


def can_register(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    funding: Funding,
    balance: int,
) -> bool:
    """Whether `register` would succeed."""
    try:
        verify_register(settings, state, clock, player, funding, balance)
    except DirectorError:
        return False
    return True


def register(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    funding: Funding = Funding.CASH,
    balance: int = 0,
    ticket_id: str = "",
) -> Decision:
    """Register `player`: the buy-in to the pool, the fee to the house (T-2, T-3, T-5)."""
    verify_register(settings, state, clock, player, funding, balance)
    key = state.key(settings.tournament_id, "register", player)
    bounty = bounty_part(settings, settings.buy_in)
    source = source_account(player, funding, ticket_id)
    paid = entry_moves(settings, source, settings.buy_in, settings.fee, key, bounty)
    record = PlayerEntries(funding, ticket_id)
    pool_part = settings.buy_in - bounty
    new_state = replace(
        state,
        players={**state.players, player: record},
        entries=state.entries + 1,
        collected=state.collected + pool_part,
        serial=state.serial + 1,
    )
    return Decision(
        "register", player, new_state, paid, settings.starting_stack, bounty=bounty,
        collected=pool_part,
    )  # fmt: skip


def verify_unregister(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    *,
    starts_when_full: bool = False,
) -> None:
    """Raise the reason `player` cannot unregister now, if any (T-3).

    A tournament that starts when full (a sit-and-go) has no start time to close before: it
    starts the moment its last seat is taken, so it may be left until then."""
    record = state.players.get(player)
    if record is None:
        raise DirectorError(errors.NOT_REGISTERED, "not registered")
    deadline = settings.starts_at - settings.unregister_close_seconds
    if clock.started or (not starts_when_full and clock.now >= deadline):
        raise DirectorError(errors.UNREGISTER_CLOSED, "unregistration closed before the start")
    if record.funding is Funding.TICKET and settings.ticket_refund is TicketRefund.REFUSE:
        raise DirectorError(errors.TICKET_NOT_REFUNDABLE, "an entry by ticket cannot unregister")


def unregister(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    *,
    starts_when_full: bool = False,
) -> Decision:
    """T-3: give back buy-in and fee (a ticket goes back as the ticket); a tournament that
    starts when full may be left until it starts (`verify_unregister`)."""
    verify_unregister(settings, state, clock, player, starts_when_full=starts_when_full)
    record = state.players[player]
    players = dict(state.players)
    del players[player]
    bounty = bounty_part(settings, settings.buy_in) * record.entries
    pool_part = settings.buy_in * record.entries - bounty
    new_state = replace(
        state,
        players=players,
        entries=state.entries - record.entries,
        collected=state.collected - pool_part,
        serial=state.serial + 1,
    )
    key = state.key(settings.tournament_id, "unregister", player)
    back = refund_moves(settings, player, record, key)
    ticket = record.ticket_id if record.funding is Funding.TICKET else ""
    return Decision(
        "unregister", player, new_state, back, ticket_returned=ticket, bounty=-bounty,
        collected=-pool_part,
    )  # fmt: skip


def refund_moves(
    settings: RegistrationSettings, player: str, record: PlayerEntries, key: str
) -> tuple[MoneyMove, ...]:
    """Buy-in, bounty part and fee of every entry back to where they came from (T-3, T-14,
    T-18 not started)."""
    target = source_account(player, record.funding, record.ticket_id)
    tid = settings.tournament_id
    bounty = bounty_part(settings, settings.buy_in) * record.entries
    buy_in = settings.buy_in * record.entries - bounty
    return moves(
        MoneyMove("refund", prize_pool(tid), target, buy_in, f"{key}:buy_in"),
        MoneyMove("refund", bounty_pool(tid), target, bounty, f"{key}:bounty"),
        MoneyMove("refund", house(HOUSE_FEES), target, settings.fee * record.entries, f"{key}:fee"),
    )


def cancel_before_start(
    settings: RegistrationSettings, state: RegistrationState
) -> tuple[MoneyMove, ...]:
    """T-1/T-18.1: a cancelled tournament that never started gives everyone buy-in and fee."""
    key = f"{settings.tournament_id}:cancel"
    return tuple(
        move
        for player, record in sorted(state.players.items())
        for move in refund_moves(settings, player, record, f"{key}:{player}")
    )


def close_late_registration(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    players_left: int,
    paid_places: int,
) -> Decision | None:
    """T-5: close late registration at its time, at the money (guarantee dropped), or when full."""
    if state.late_closed is not None or not clock.started:
        return None
    if clock.level_index >= settings.late_registration_levels:
        reason = LateClose.TIME
    elif players_left <= paid_places:
        reason = LateClose.MONEY
    elif is_full(settings, state):
        reason = LateClose.MAX_ENTRIES
    else:
        return None
    dropped = state.guarantee_dropped or reason is LateClose.MONEY
    new_state = replace(state, late_closed=reason, guarantee_dropped=dropped)
    return Decision(f"late_registration_closed:{reason.value}", "", new_state)
