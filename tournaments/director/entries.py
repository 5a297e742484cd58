"""Re-entry, rebuy and add-on (T-4), bust-outs, and the prize pool with its overlay (T-5, T-6).

Same shape as `registration.py`: `verify_…` raises a `DirectorError` with a stable code,
`can_…` answers cheaply, the action returns a `Decision` with the new state and the money
moves. Chips given are tournament chips and never money.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.director.money import HOUSE_OVERLAY, MoneyMove, house, moves, prize_pool
from tournaments.director.registration import (
    Clock,
    Decision,
    Funding,
    Period,
    PlayerEntries,
    RegistrationSettings,
    RegistrationState,
    bounty_part,
    entry_moves,
    is_full,
    late_registration_open,
    source_account,
)


def _record(state: RegistrationState, player: str) -> PlayerEntries:
    """The player's record, or `not_registered`."""
    record = state.players.get(player)
    if record is None:
        raise DirectorError(errors.NOT_REGISTERED, "not registered")
    return record


def _period(period: Period, clock: Clock, used: int, what: str) -> None:
    """T-4: offered, open now, and not used up."""
    if period.max_times <= 0:
        raise DirectorError(errors.NOT_ALLOWED, f"this tournament has no {what}")
    if not clock.started or not period.open_at(clock.level_index):
        raise DirectorError(errors.PERIOD_CLOSED, f"the {what} period is closed")
    if used >= period.max_times:
        raise DirectorError(errors.LIMIT_REACHED, f"{what} limit of {period.max_times} reached")


def _funds(balance: int, period: Period) -> None:
    """T-4: the funds must be in the account at that moment."""
    needed = period.buy_in + period.fee
    if balance < needed:
        raise DirectorError(errors.INSUFFICIENT_FUNDS, f"needs {needed}, has {balance}")


def bust(state: RegistrationState, player: str) -> RegistrationState:
    """The state once `player` has no chips left (they may re-enter, T-4)."""
    record = _record(state, player)
    return replace(state, players={**state.players, player: replace(record, alive=False)})


def verify_reentry(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    balance: int,
) -> None:
    """Raise why `player` cannot re-enter now (T-4, T-5: re-entries are entries)."""
    record = _record(state, player)
    if record.alive:
        raise DirectorError(errors.STILL_IN_PLAY, "re-entry is for a busted player")
    _period(settings.reentry, clock, record.entries - 1, "re-entry")
    if is_full(settings, state):
        raise DirectorError(errors.TOURNAMENT_FULL, "the maximum number of entries is reached")
    if state.late_closed is not None or not late_registration_open(settings, state, clock):
        raise DirectorError(errors.REGISTRATION_CLOSED, "late registration is closed")
    _funds(balance, settings.reentry)


def reenter(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    balance: int,
    funding: Funding = Funding.CASH,
) -> Decision:
    """T-4: a new entry for a busted player, with a new starting stack."""
    verify_reentry(settings, state, clock, player, balance)
    record = state.players[player]
    updated = replace(record, entries=record.entries + 1, alive=True)
    decision = _purchase(settings, state, player, funding, "reentry", settings.reentry, updated)
    new_state = replace(decision.state, entries=state.entries + 1)
    chips = settings.reentry.chips or settings.starting_stack
    return replace(decision, state=new_state, chips=chips)


def verify_rebuy(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    stack: int,
    balance: int,
) -> None:
    """Raise why `player` with `stack` chips cannot rebuy now (T-4)."""
    record = _record(state, player)
    _period(settings.rebuy, clock, record.rebuys, "rebuy")
    if settings.rebuy.max_stack is not None and stack > settings.rebuy.max_stack:
        raise DirectorError(errors.STACK_TOO_BIG, f"rebuys need at most {settings.rebuy.max_stack}")
    _funds(balance, settings.rebuy)


def rebuy(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    stack: int,
    balance: int,
    funding: Funding = Funding.CASH,
) -> Decision:
    """T-4: buy the rebuy's chips; a busted player who rebuys is back in (chips at the table)."""
    verify_rebuy(settings, state, clock, player, stack, balance)
    record = state.players[player]
    updated = replace(record, rebuys=record.rebuys + 1, alive=True)
    return _purchase(settings, state, player, funding, "rebuy", settings.rebuy, updated)


def verify_addon(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    balance: int,
) -> None:
    """Raise why `player` cannot take an add-on now (T-4)."""
    record = _record(state, player)
    if not record.alive:
        raise DirectorError(errors.NOT_ALLOWED, "an add-on is for a player still in")
    _period(settings.addon, clock, record.addons, "add-on")
    _funds(balance, settings.addon)


def addon(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    balance: int,
    funding: Funding = Funding.CASH,
) -> Decision:
    """T-4: buy the add-on's chips."""
    verify_addon(settings, state, clock, player, balance)
    record = state.players[player]
    updated = replace(record, addons=record.addons + 1)
    return _purchase(settings, state, player, funding, "addon", settings.addon, updated)


def _purchase(
    settings: RegistrationSettings,
    state: RegistrationState,
    player: str,
    funding: Funding,
    what: str,
    period: Period,
    updated: PlayerEntries,
) -> Decision:
    """Buy a period's chips (T-4): buy-in to the pool and fee to the house under one new key;
    a re-entry's bounty part (T-14: a new starting bounty) to the bounty pool, same transfer."""
    key = state.key(settings.tournament_id, what, player)
    bounty = bounty_part(settings, period.buy_in) if what == "reentry" else 0
    source = source_account(player, funding)
    paid = entry_moves(settings, source, period.buy_in, period.fee, key, bounty)
    pool_part = period.buy_in - bounty
    new_state = replace(
        state,
        players={**state.players, player: updated},
        collected=state.collected + pool_part,
        serial=state.serial + 1,
    )
    return Decision(what, player, new_state, paid, period.chips, bounty=bounty, collected=pool_part)


def _passes(check: Callable[[], None]) -> bool:
    """True when `check` raises no DirectorError."""
    try:
        check()
    except DirectorError:
        return False
    return True


def can_reenter(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    balance: int,
) -> bool:
    """Whether `reenter` would succeed."""
    return _passes(lambda: verify_reentry(settings, state, clock, player, balance))


def can_rebuy(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    stack: int,
    balance: int,
) -> bool:
    """Whether `rebuy` would succeed."""
    return _passes(lambda: verify_rebuy(settings, state, clock, player, stack, balance))


def can_addon(
    settings: RegistrationSettings,
    state: RegistrationState,
    clock: Clock,
    player: str,
    balance: int,
) -> bool:
    """Whether `addon` would succeed."""
    return _passes(lambda: verify_addon(settings, state, clock, player, balance))


@dataclass(frozen=True, slots=True)
class PrizePool:
    """T-6: what entries paid, the overlay the house adds, and the pool to pay out."""

    collected: int
    guarantee: int
    overlay: int

    @property
    def total(self) -> int:
        """The pool the prize table shares."""
        return self.collected + self.overlay


def prize_pool_status(settings: RegistrationSettings, state: RegistrationState) -> PrizePool:
    """T-6 (T-5): the guarantee tops the pool up unless late registration closed at the money."""
    guarantee = 0 if state.guarantee_dropped else settings.guarantee
    return PrizePool(state.collected, guarantee, max(0, guarantee - state.collected))


def pool_is_final(settings: RegistrationSettings, state: RegistrationState, clock: Clock) -> bool:
    """T-6: fixed once registration, re-entry, rebuy and add-on periods have all closed."""
    if not clock.started or late_registration_open(settings, state, clock):
        return False
    periods = (settings.reentry, settings.rebuy, settings.addon)
    return all(p.max_times == 0 or clock.level_index >= p.until_level for p in periods) and (
        state.late_closed is not None or clock.level_index >= settings.late_registration_levels
    )


def overlay_moves(
    settings: RegistrationSettings, state: RegistrationState, clock: Clock
) -> tuple[MoneyMove, ...]:
    """T-6: once the pool is final, the house overlay account tops up a short guarantee."""
    if not pool_is_final(settings, state, clock):
        return ()
    pool = prize_pool_status(settings, state)
    key = f"{settings.tournament_id}:overlay"
    source = house(HOUSE_OVERLAY)
    return moves(
        MoneyMove("overlay", source, prize_pool(settings.tournament_id), pool.overlay, key)
    )
