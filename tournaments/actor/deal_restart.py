"""T-13 deals across a restart (T-18): the deal in the making is stored while it is open, and the
players of one that a restart voided hear it once each, when they are back at their tables.

- `stored(...)` / `cleared(...)`: the writes of `tournaments.deal_pending` (the proposal as it
  was put to the players; "" once it is accepted, rejected or expired). The proposal's write
  comes before anyone hears of it; the clearing of an accepted deal is in the unit of its
  transfer (one transaction: a crash between the two cannot be).
- `RestartNotice`: after a resume the deal is void (the start-up cleared the column in its
  own transaction, `tournaments.ops.recovery`); each of its players gets `deal_result` with
  outcome `restart` once, after their table snapshots when they log in again (at the resume
  nobody is connected: the server recovers before it listens).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from pokerroom.protocol.staking_messages import DealResult
from pokerroom.protocol.tournament_messages import DealFigure
from tournaments.actor.recorder import Op
from tournaments.director.deal_flow import Proposal
from tournaments.store.deal_pending import PendingDeal, clear_deal_pending, save_deal_pending

#: `deal_result.outcome` of a deal in the making that a restart voided (docs/PROTOCOL.md).
RESTART = "restart"


def pending(proposal: Proposal, proposed_by: str, now: float) -> PendingDeal:
    """The proposal as stored while it is open."""
    deal = proposal.deal
    return PendingDeal(
        deal_id=proposal.deal_id,
        kind=proposal.kind.value,
        proposed_by=proposed_by,
        players=proposal.players,
        stacks=proposal.stacks,
        amounts=deal.amounts,
        left_to_play_for=deal.reserved,
        rounding=deal.rounding,
        proposed_at_ms=round(now * 1000),
        deadline_ms=round(proposal.deadline * 1000),
    )


def stored(tournament_id: str, proposal: Proposal, proposed_by: str, now: float) -> Op:
    """The write of the deal in the making (before its players hear of it)."""
    deal = pending(proposal, proposed_by, now)
    return partial(save_deal_pending, tournament_id=tournament_id, deal=deal)


def cleared(tournament_id: str) -> Op:
    """The write that says no deal is in the making any more."""
    return partial(clear_deal_pending, tournament_id=tournament_id)


class RestartNotice:
    """The players of the deal a restart voided who have not been told yet."""

    def __init__(self, tournament_id: str, tell: Callable[[Iterable[str], Any], None]) -> None:
        self.tournament_id = tournament_id
        self.tell = tell
        self.message: DealResult | None = None
        self.untold: set[str] = set()

    def voided(self, deal: PendingDeal) -> None:
        """T-18 resume: `deal` was in the making at the crash; it is void."""
        self.message = DealResult(
            tournament_id=self.tournament_id,
            deal_id=deal.deal_id,
            outcome=RESTART,
            rejected_by=None,
            figures=[
                DealFigure(player=p, chips=c, amount=a)
                for p, c, a in zip(deal.players, deal.stacks, deal.amounts, strict=True)
            ],
        )
        self.untold = set(deal.players)

    def reconnected(self, player: str) -> None:
        """`player` logged in again: the void deal, if they have not heard it yet."""
        if self.message is not None and player in self.untold:
            self.untold.discard(player)
            self.tell([player], self.message)
