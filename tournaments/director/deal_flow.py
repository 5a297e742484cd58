"""The T-13 deal as a state machine: requests, a pause, a proposal, answers by a deadline.

Pure: every step takes the `DealFlow` and what the actor knows (`Situation`: the remaining
players and their chips, the prizes still to award, whether the final table is reached) and,
for answers, `now` in seconds; it returns a `DealStep`: the new flow and what the actor does.

    OPEN --every remaining player asked--> PAUSING (action PAUSE: every table stops after its hand)
    PAUSING --propose (system or staff)--> PROPOSED (action ANSWER: figures shown to all)
    PROPOSED --everyone accepts before the deadline--> DONE (action PAY)
    PROPOSED --one rejects, or the deadline passes--> OPEN (action RESUME)

Eligibility (`verify_eligible`): the tournament allows deals (`DealSettings.allowed`), at most
`max_players` remain (default 9), at least 2, and the final table is reached; else
`deal_not_allowed`. After an accepted deal no other deal is made (`deal_not_allowed`).

The proposal is computed when the tables are paused (`propose`), from the stacks then: by
`deals.propose_deal` (ICM or chip-chop, the setting's amount left to play for taken from the
first prize), or a staff member's custom split, which must share exactly the prize money dealt
(the prizes still to award less the amount left to play for) and give nobody less than the
next payout (`deals.bust_prize`), else `bad_deal`. Custom amounts are whole cents chosen by
the staff: nothing is rounded, nothing goes to the house.

Answers: `accept` and `reject` before the deadline (`now + answer_seconds` at the proposal);
an answer at or after it is `deal_expired`. Silence is a rejection: `expire(now)` at the
deadline ends the proposal. A rejection returns to OPEN with every request cleared (a new deal
needs every player to ask again) and says RESUME: play goes on exactly as it was — the flow
touches no stack, blind or button; the actor keeps them. Each rejection is kept in
`rejections` (who, or nobody for silence, and when).

Acceptance records the deal (`DealRecord`: its id, how it was made, every player's chips and
figure, the rounding, the amount left to play for, when) for the tournament's results, and
`deal_payments` gives the moves: each amount from the prize pool to its player at once, shared
with the player's stakers when a `StakingBook` is given (T-17, `staking.split_payment`), the
rounding to the house (T-7). The amount left to play for stays in the pool; `remaining_prizes`
is the prize table the tournament then plays for (first place: that amount; nothing else), and
the tournament ends with the deal when it is 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from tournaments.director import errors
from tournaments.director.deals import (
    MAX_ICM_PLAYERS,
    Deal,
    DealMethod,
    bust_prize,
    deal_moves,
    propose_deal,
)
from tournaments.director.errors import DirectorError
from tournaments.director.money import MoneyMove, prize_pool, wallet
from tournaments.director.staking import StakingBook, split_payment


class DealPhase(StrEnum):
    """Where the deal stands (T-13)."""

    OPEN = "open"  # requests are being collected
    PAUSING = "pausing"  # every remaining player asked: tables stop after their current hand
    PROPOSED = "proposed"  # figures shown, answers awaited until the deadline
    DONE = "done"  # accepted and paid; no further deal


class DealAction(StrEnum):
    """What the actor does after a step."""

    WAIT = "wait"  # nothing changes for play
    PAUSE = "pause"  # pause every table between hands, then call `propose`
    ANSWER = "answer"  # show the proposal to all and ask each player to answer
    RESUME = "resume"  # play resumes exactly as it was
    PAY = "pay"  # post `deal_payments`; play on for `remaining_prizes`, or end


class DealKind(StrEnum):
    """How a proposal was made."""

    ICM = "icm"
    CHIP_CHOP = "chip_chop"
    CUSTOM = "custom"  # a staff member's split


@dataclass(frozen=True, slots=True)
class DealSettings:
    """A tournament's deal settings (T-13)."""

    allowed: bool = False
    max_players: int = 9
    method: DealMethod = DealMethod.ICM
    left_to_play_for: int = 0  # cents taken from the first prize, paid by the final result
    answer_seconds: float = 60.0

    def __post_init__(self) -> None:
        """Refuse settings no deal could follow."""
        if self.max_players < 2 or self.answer_seconds <= 0 or self.left_to_play_for < 0:
            raise DirectorError(
                errors.BAD_PAYOUT_SETTINGS,
                "deals need max_players >= 2, answer_seconds > 0, left_to_play_for >= 0",
            )
        if self.method is DealMethod.ICM and self.max_players > MAX_ICM_PLAYERS:
            raise DirectorError(
                errors.BAD_PAYOUT_SETTINGS, f"ICM deals are offered for {MAX_ICM_PLAYERS} at most"
            )


@dataclass(frozen=True, slots=True)
class Situation:
    """What the actor knows when a step is taken: remaining players, chips, prizes to award."""

    stacks: tuple[tuple[str, int], ...]  # (player, chips) of every remaining player
    prizes: tuple[int, ...]  # the prizes still to award, first place first, cents
    final_table: bool

    @property
    def players(self) -> tuple[str, ...]:
        """The remaining players."""
        return tuple(player for player, _ in self.stacks)


@dataclass(frozen=True, slots=True)
class Proposal:
    """A deal put to the players: each player's figure, shown to all, and the deadline."""

    deal_id: str
    kind: DealKind
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    deal: Deal  # amounts in the order of `players`, rounding, amount left to play for
    deadline: float
    accepted: frozenset[str] = frozenset()

    @property
    def figures(self) -> tuple[tuple[str, int], ...]:
        """(player, amount) for every remaining player."""
        return tuple(zip(self.players, self.deal.amounts, strict=True))


@dataclass(frozen=True, slots=True)
class DealRecord:
    """An accepted deal, as the tournament's results record it (T-13)."""

    deal_id: str
    kind: DealKind
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    amounts: tuple[int, ...]
    rounding: int
    left_to_play_for: int
    accepted_at: float

    @property
    def figures(self) -> tuple[tuple[str, int], ...]:
        """(player, amount) for every player of the deal."""
        return tuple(zip(self.players, self.amounts, strict=True))

    @property
    def remaining_prizes(self) -> tuple[int, ...]:
        """The prizes the tournament still plays for: the amount left to play for, or none."""
        return (self.left_to_play_for,) if self.left_to_play_for else ()


@dataclass(frozen=True, slots=True)
class Rejection:
    """A proposal that failed: who rejected it (None: silence at the deadline) and when."""

    deal_id: str
    by: str | None
    at: float


@dataclass(frozen=True, slots=True)
class DealFlow:
    """The deal state of one tournament."""

    settings: DealSettings
    phase: DealPhase = DealPhase.OPEN
    requests: frozenset[str] = frozenset()
    proposal: Proposal | None = None
    record: DealRecord | None = None
    rejections: tuple[Rejection, ...] = ()
    serial: int = 0  # proposals made; names them


@dataclass(frozen=True, slots=True)
class DealStep:
    """The flow after a step and what the actor does."""

    flow: DealFlow
    action: DealAction


def verify_eligible(settings: DealSettings, situation: Situation) -> None:
    """Raise `deal_not_allowed` unless a deal may be made now (T-13 settings)."""
    players = len(situation.stacks)
    if not settings.allowed:
        raise DirectorError(errors.DEAL_NOT_ALLOWED, "this tournament does not allow deals")
    if not situation.final_table:
        raise DirectorError(errors.DEAL_NOT_ALLOWED, "deals start at the final table")
    if not 2 <= players <= settings.max_players:
        raise DirectorError(
            errors.DEAL_NOT_ALLOWED,
            f"a deal needs 2 to {settings.max_players} players remaining, not {players}",
        )


def eligible(settings: DealSettings, situation: Situation) -> bool:
    """Whether a deal may be made now."""
    try:
        verify_eligible(settings, situation)
    except DirectorError:
        return False
    return True


def _not_done(flow: DealFlow) -> None:
    """One deal per tournament: after an accepted deal the rest is played for."""
    if flow.phase is DealPhase.DONE:
        raise DirectorError(errors.DEAL_NOT_ALLOWED, "a deal has been made")


def _everyone_asked(flow: DealFlow, situation: Situation) -> bool:
    """Whether every remaining player has asked."""
    return set(situation.players) <= flow.requests


def request_deal(flow: DealFlow, situation: Situation, player: str) -> DealStep:
    """T-13: `player` asks for a deal; when every remaining player has, the tables pause."""
    _not_done(flow)
    verify_eligible(flow.settings, situation)
    if player not in situation.players:
        raise DirectorError(errors.NOT_IN_DEAL, f"{player} is not among the remaining players")
    if flow.phase is not DealPhase.OPEN:
        return DealStep(flow, DealAction.WAIT)  # a deal is already under way
    asked = replace(flow, requests=flow.requests | {player})
    if _everyone_asked(asked, situation):
        return DealStep(replace(asked, phase=DealPhase.PAUSING), DealAction.PAUSE)
    return DealStep(asked, DealAction.WAIT)


def cancel_request(flow: DealFlow, player: str) -> DealStep:
    """A player takes back their request before a proposal; a pause for it is lifted."""
    if flow.phase not in (DealPhase.OPEN, DealPhase.PAUSING) or player not in flow.requests:
        return DealStep(flow, DealAction.WAIT)
    left = replace(flow, requests=flow.requests - {player}, phase=DealPhase.OPEN)
    return DealStep(left, DealAction.RESUME if flow.phase is DealPhase.PAUSING else DealAction.WAIT)


def refresh(flow: DealFlow, situation: Situation) -> DealStep:
    """At a hand end: requests of players gone are dropped; the pause follows who is left."""
    if flow.phase not in (DealPhase.OPEN, DealPhase.PAUSING):
        return DealStep(flow, DealAction.WAIT)
    kept = replace(flow, requests=flow.requests & set(situation.players))
    ready = eligible(flow.settings, situation) and _everyone_asked(kept, situation)
    if flow.phase is DealPhase.PAUSING and not ready:
        return DealStep(replace(kept, phase=DealPhase.OPEN), DealAction.RESUME)
    if flow.phase is DealPhase.OPEN and ready:
        return DealStep(replace(kept, phase=DealPhase.PAUSING), DealAction.PAUSE)
    return DealStep(kept, DealAction.WAIT)


def propose(
    flow: DealFlow, situation: Situation, now: float, custom: Sequence[int] | None = None
) -> DealStep:
    """T-13: the tables are paused: put the system's deal, or a staff `custom` split, to all.

    `custom` is one amount per remaining player, in the order of `situation.stacks`.
    """
    if flow.phase is not DealPhase.PAUSING:
        raise DirectorError(errors.NO_DEAL, "a deal is proposed once every player has asked")
    verify_eligible(flow.settings, situation)
    if not _everyone_asked(flow, situation):
        raise DirectorError(errors.NO_DEAL, "not every remaining player has asked for a deal")
    stacks = tuple(chips for _, chips in situation.stacks)
    reserve = flow.settings.left_to_play_for
    method = flow.settings.method
    system = propose_deal(stacks, situation.prizes, method, reserve)
    if custom is None:
        deal, kind = system, DealKind(method.value)
    else:
        deal, kind = _custom(stacks, situation.prizes, reserve, custom), DealKind.CUSTOM
    serial = flow.serial + 1
    offered = Proposal(
        str(serial),
        kind,
        situation.players,
        stacks,
        deal,
        now + flow.settings.answer_seconds,
    )
    return DealStep(
        replace(flow, phase=DealPhase.PROPOSED, proposal=offered, serial=serial),
        DealAction.ANSWER,
    )


def _custom(
    stacks: Sequence[int], prizes: Sequence[int], reserve: int, amounts: Sequence[int]
) -> Deal:
    """A staff split: one amount each, summing to the money dealt, none below the floor."""
    dealt = sum(prizes) - reserve
    floor = bust_prize(len(stacks), prizes)
    if len(amounts) != len(stacks):
        raise DirectorError(errors.BAD_DEAL, f"{len(stacks)} amounts, one per player")
    if sum(amounts) != dealt:
        raise DirectorError(errors.BAD_DEAL, f"the amounts must add up to {dealt}")
    if any(amount < floor for amount in amounts):
        raise DirectorError(errors.BAD_DEAL, f"nobody may get less than the next payout {floor}")
    return Deal(tuple(amounts), 0, reserve)


def _answering(flow: DealFlow, player: str, now: float) -> Proposal:
    """The proposal `player` may answer at `now`."""
    proposal = flow.proposal
    if flow.phase is not DealPhase.PROPOSED or proposal is None:
        raise DirectorError(errors.NO_DEAL, "no deal is waiting for an answer")
    if now >= proposal.deadline:
        raise DirectorError(errors.DEAL_EXPIRED, "the time to answer is over")
    if player not in proposal.players:
        raise DirectorError(errors.NOT_IN_DEAL, f"{player} is not part of this deal")
    return proposal


def accept(flow: DealFlow, player: str, now: float) -> DealStep:
    """T-13: `player` accepts; when every player has, the deal is made and paid."""
    proposal = _answering(flow, player, now)
    agreed = replace(proposal, accepted=proposal.accepted | {player})
    if set(agreed.players) > agreed.accepted:
        return DealStep(replace(flow, proposal=agreed), DealAction.WAIT)
    record = DealRecord(
        proposal.deal_id,
        proposal.kind,
        proposal.players,
        proposal.stacks,
        proposal.deal.amounts,
        proposal.deal.rounding,
        proposal.deal.reserved,
        now,
    )
    made = replace(flow, phase=DealPhase.DONE, proposal=agreed, record=record)
    return DealStep(made, DealAction.PAY)


def _rejected(flow: DealFlow, proposal: Proposal, by: str | None, now: float) -> DealStep:
    """Back to collecting requests; play resumes exactly as it was."""
    back = replace(
        flow,
        phase=DealPhase.OPEN,
        requests=frozenset(),
        proposal=None,
        rejections=(*flow.rejections, Rejection(proposal.deal_id, by, now)),
    )
    return DealStep(back, DealAction.RESUME)


def reject(flow: DealFlow, player: str, now: float) -> DealStep:
    """T-13: `player` rejects: no deal, play resumes as it was."""
    return _rejected(flow, _answering(flow, player, now), player, now)


def expire(flow: DealFlow, now: float) -> DealStep:
    """T-13: at the deadline silence is a rejection; before it nothing happens."""
    proposal = flow.proposal
    if flow.phase is not DealPhase.PROPOSED or proposal is None or now < proposal.deadline:
        return DealStep(flow, DealAction.WAIT)
    return _rejected(flow, proposal, None, now)


def deal_payments(
    tournament_id: str, record: DealRecord, book: StakingBook | None = None
) -> tuple[MoneyMove, ...]:
    """T-13: the accepted deal paid at once from the pool, shared with stakers (T-17), T-7 rest."""
    paid = deal_moves(
        tournament_id,
        record.deal_id,
        record.players,
        Deal(record.amounts, record.rounding, record.left_to_play_for),
    )
    if book is None:
        return paid
    shared: list[MoneyMove] = []
    pool = prize_pool(tournament_id)
    for move in paid:
        player = move.destination.owner
        if move.destination == wallet(player) and book.shares(player):
            shared += split_payment(
                book, player, move.amount, kind=move.kind, source=pool, key=move.key
            )
        else:
            shared.append(move)
    return tuple(shared)
