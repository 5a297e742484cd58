"""T-13 deals on the tournament actor: requests, the pause, the proposal, answers, the payment.

The state machine and the arithmetic are the director's (`deal_flow`, `deals`: exact ICM,
chip-chop, the floor, the amount left to play for). Here they meet the tables, the clock and
the ledger:

- `request`: a remaining player asks (the tournament allows deals, at most `max_players`
  left, the final table reached: else `deal_not_allowed`); every remaining player hears
  `deal_requested`. Once everyone has asked, the floor holds: every table stops after its
  hand, and the level clock stands still (`Floor.hold`).
- When no hand is running, the system proposes (ICM or chip-chop by the setting, from the
  stacks then, the prizes not yet awarded): `deal_proposal` with every player's figure to all,
  and a timer on the injected clock at the deadline. A staff member may put a custom split
  instead (`propose_custom`; the admin command calls it).
- `accept` / `reject` before the deadline; silence is a rejection at the deadline
  (`deal_result` expired). A rejection releases the floor: play resumes exactly as it was
  (the same stacks, buttons, level and time left in it).
- Everyone accepted: ONE unit of the recorder pays the deal — one transfer from the prize
  pool (each amount, shared with the player's stakers, T-17; the T-7 rest to house rounding)
  with the deal's row, each player's prize so far and the prize table played for afterwards
  (the amount left to play for to first place, nothing to the other places still to award).
  Then the tournament ends (places by chips at the deal) or plays on for the rest.

The deal in the making is stored while it is open (`deal_restart`): a restart voids it, and
its players hear `deal_result` `restart` when they log in again (T-18).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from twisted.internet.interfaces import IDelayedCall

from pokerroom.protocol.staking_messages import DealProposal, DealRequested, DealResult, DealState
from pokerroom.protocol.tournament_messages import DealFigure, DealView
from tournaments import store
from tournaments.actor import deal_restart
from tournaments.actor.recorder import Op
from tournaments.director import deal_flow as rules
from tournaments.director import errors
from tournaments.director.deal_flow import (
    DealAction,
    DealFlow,
    DealKind,
    DealPhase,
    DealRecord,
    DealSettings,
    DealStep,
    Proposal,
    Situation,
)
from tournaments.director.deals import Deal, deal_moves
from tournaments.director.errors import DirectorError
from tournaments.director.payouts import PrizeTable
from tournaments.store import stake_store
from tournaments.store.deal_pending import PendingDeal

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from tournaments.actor.cashier import Cashier
    from tournaments.actor.durable import Durable
    from tournaments.actor.payout_runner import PayoutRunner
    from tournaments.actor.stakes import Stakes
    from tournaments.config import TournamentConfig
    from tournaments.tables.floor import Floor, Players

SYSTEM = "system"


class DealHost(Protocol):
    """What a deal reads of its tournament, the prizes it changes, and how it ends it."""

    prizes: PrizeTable | None  # The prize table, once fixed (T-6).

    tid: str  # The tournament's id.
    cashier: Cashier  # The tournament's ledger keys and transfers.
    config: TournamentConfig  # The tournament's config.
    clock: IReactorTime  # The injected clock.
    durable: Durable  # The tournament's stored writes (T-18).
    floor: Floor  # The tournament's tables.
    players: Players  # Who is told what.
    payouts: PayoutRunner  # The pool's movements.
    stakes: Stakes  # The tournament's staking (T-17).
    alive: dict[str, int]  # Entry -> entry number, for players with chips.
    status: str  # registering, running, finished or cancelled.
    satellite_seats: int | None  # T-8: a satellite ends at this many players.
    log: Any  # The tournament's logger.

    def end(self, order: Sequence[str] | None = None) -> None:
        """T-13: the deal ended the tournament: the players left finish in `order`."""
        ...

    def watch_level(self) -> None:
        """T-11: the level clock runs again (after the deal's pause)."""
        ...

    def stop_watching(self) -> None:
        """No more level wake-ups."""
        ...


class DealMaker:
    """The deal of one tournament's actor (see the module docstring)."""

    def __init__(self, actor: DealHost) -> None:
        self.actor = actor
        settings = getattr(actor.config, "deals", None)
        self.flow = DealFlow(settings if isinstance(settings, DealSettings) else DealSettings())
        self.proposed_by = SYSTEM
        self._expiry: IDelayedCall | None = None
        self._custom: tuple[int, ...] | None = None
        #: Every deal message sent: (players, message) — what the players were told.
        self.told: list[tuple[tuple[str, ...], Any]] = []
        self.failures: list[tuple[str, str]] = []
        #: T-18: the players of a deal a restart voided, told when they log in again.
        self.restart = deal_restart.RestartNotice(actor.tid, self._tell)
        actor.floor.on_held = self._paused

    # ------------------------------------------------------------------ reading

    @property
    def record(self) -> DealRecord | None:
        """The accepted deal, if one was made."""
        return self.flow.record

    def state(self) -> DealState:
        """Where the deal stands, for the answers."""
        flow = self.flow
        proposal = flow.proposal
        return DealState(
            phase=flow.phase.value,
            deal_id=None if proposal is None else proposal.deal_id,
            asked=sorted(flow.requests),
            accepted=[] if proposal is None else sorted(proposal.accepted),
        )

    def view(self) -> DealView | None:
        """The accepted deal as the results show it."""
        record = self.flow.record
        if record is None:
            return None
        return DealView(
            deal_id=record.deal_id,
            kind=record.kind.value,
            figures=_figures(record.players, record.stacks, record.amounts),
            rounding=record.rounding,
            left_to_play_for=record.left_to_play_for,
            accepted_at_ms=round(record.accepted_at * 1000),
        )

    def situation(self) -> Situation:
        """The remaining players with their chips (by table and seat), the prizes not yet
        awarded (first place first), and whether the final table is reached."""
        actor = self.actor
        if actor.status != "running":
            raise DirectorError(errors.DEAL_NOT_ALLOWED, "the tournament is not running")
        if actor.satellite_seats is not None or actor.payouts.seats is not None:
            raise DirectorError(errors.DEAL_NOT_ALLOWED, "a satellite's prizes are seats")
        table = actor.prizes
        if table is None:
            raise DirectorError(errors.DEAL_NOT_ALLOWED, "the prizes are not fixed yet (T-6)")
        tables = actor.floor.tables
        stacks = tuple(
            (entry, tables[t].kept_stack(entry))
            for t in sorted(tables)
            for _, entry in sorted(tables[t].seats.items())
            if entry in actor.alive
        )
        left = len(actor.alive)
        prizes = tuple(table.prize(place) for place in range(1, min(left, table.paid_places) + 1))
        final = len(tables) == 1 and len(stacks) == left
        return Situation(stacks, prizes, final)

    # ------------------------------------------------------------------ the players' requests

    def request(self, player: str) -> DealState:
        """T-13: `player` asks for a deal; the last one to ask pauses every table."""
        situation = self.situation()
        step = rules.request_deal(self.flow, situation, player)
        asked = player not in self.flow.requests
        self._step(step, situation)
        if asked and step.flow.phase is not DealPhase.DONE:
            waiting = [p for p in situation.players if p not in step.flow.requests]
            self._tell(
                situation.players,
                DealRequested(
                    tournament_id=self.actor.tid,
                    player=player,
                    asked=sorted(step.flow.requests & set(situation.players)),
                    waiting=waiting,
                ),
            )
        return self.state()

    def accept(self, player: str, deal_id: str) -> DealState:
        """T-13: `player` accepts the proposal `deal_id` (before its deadline)."""
        self._current(deal_id)
        self._step(rules.accept(self.flow, player, self._now()))
        return self.state()

    def reject(self, player: str, deal_id: str) -> DealState:
        """T-13: `player` rejects: no deal; play resumes exactly as it was."""
        self._current(deal_id)
        self._step(rules.reject(self.flow, player, self._now()))
        return self.state()

    def propose_custom(self, amounts: Sequence[int], by: str) -> DealState:
        """T-13, the staff: a custom split (one amount per remaining player, in the order of
        `situation().stacks`) put to the players instead of the system's proposal, once every
        player has asked (`no_deal` before); it must share exactly the money dealt and give
        nobody less than the next payout (`bad_deal`)."""
        flow = self.flow
        if flow.phase is DealPhase.PROPOSED and flow.proposal is not None:
            withdrawn = flow.proposal
            if self.actor.floor.in_hand:
                raise DirectorError(errors.NO_DEAL, "a hand is still running")
            situation = self.situation()
            pausing = replace(flow, phase=DealPhase.PAUSING, proposal=None)
            step = rules.propose(pausing, situation, self._now(), custom=tuple(amounts))
            self._cancel_expiry()
            self._tell_result(withdrawn, "withdrawn", None)
        else:
            if flow.phase is not DealPhase.PAUSING:
                raise DirectorError(errors.NO_DEAL, "not every remaining player asked for a deal")
            if self.actor.floor.in_hand:
                self._custom = tuple(amounts)  # proposed once the running hands are over
                self.proposed_by = by
                return self.state()
            situation = self.situation()
            step = rules.propose(flow, situation, self._now(), custom=tuple(amounts))
        self.proposed_by = by
        self._step(step, situation)
        return self.state()

    def _current(self, deal_id: str) -> None:
        proposal = self.flow.proposal
        if self.flow.phase is not DealPhase.PROPOSED or proposal is None:
            raise DirectorError(errors.NO_DEAL, "no deal is waiting for an answer")
        if proposal.deal_id != deal_id:
            raise DirectorError(errors.NO_DEAL, f"deal {deal_id} is not the one proposed")

    # ------------------------------------------------------------------ the actor's events

    def after_knockouts(self) -> None:
        """At a hand end with knockouts: requests of players gone are dropped; the pause
        follows who is left (everyone left asked: pause; a deal no longer possible: resume)."""
        if not self.flow.settings.allowed or not self.flow.requests:
            return  # the usual case: nothing to look at
        if self.actor.status != "running" or self.flow.phase not in (
            DealPhase.OPEN,
            DealPhase.PAUSING,
        ):
            return
        try:
            situation = self.situation()
        except DirectorError:
            return
        self._step(rules.refresh(self.flow, situation), situation)

    def _paused(self) -> None:
        """The floor holds and no hand is running: put the deal to the players."""
        if self.flow.phase is not DealPhase.PAUSING:
            return
        try:
            situation = self.situation()
        except DirectorError:
            self._release()
            return
        step = rules.refresh(self.flow, situation)
        if step.action is DealAction.RESUME or step.flow.phase is not DealPhase.PAUSING:
            self._step(step, situation)
            return
        self.flow = step.flow
        custom, self._custom = self._custom, None
        if custom is None:
            self.proposed_by = SYSTEM
        try:
            proposed = rules.propose(self.flow, situation, self._now(), custom=custom)
        except DirectorError as exc:  # a custom split no longer fits: the system's instead
            self.failures.append(("proposal", str(exc)))
            self.proposed_by = SYSTEM
            proposed = rules.propose(self.flow, situation, self._now())
        self._step(proposed, situation)

    def _expired(self) -> None:
        """The deadline: silence is a rejection."""
        self._expiry = None
        self._step(rules.expire(self.flow, self._now()))

    # ------------------------------------------------------------------ steps

    def _now(self) -> float:
        return self.actor.clock.seconds()

    def _step(self, step: DealStep, situation: Situation | None = None) -> None:
        """Apply a step of the flow: what the actor does next."""
        before = self.flow
        self.flow = step.flow
        action = step.action
        if action is DealAction.PAUSE:
            self.actor.floor.hold()
            if not self.actor.floor.in_hand:
                self._paused()
        elif action is DealAction.ANSWER:
            self._proposed(situation)
        elif action is DealAction.RESUME:
            self._cancel_expiry()
            proposal = before.proposal
            if proposal is not None and before.phase is DealPhase.PROPOSED:
                rejection = step.flow.rejections[-1]
                outcome = "expired" if rejection.by is None else "rejected"
                self.actor.durable.write(deal_restart.cleared(self.actor.tid))
                self._tell_result(proposal, outcome, rejection.by)
            self._release()
        elif action is DealAction.PAY:
            self._cancel_expiry()
            self._pay()

    def _proposed(self, situation: Situation | None) -> None:
        """`deal_proposal` to every player of it; the deadline's timer."""
        proposal = self.flow.proposal
        assert proposal is not None
        self._cancel_expiry()
        delay = max(0.0, proposal.deadline - self._now())
        self._expiry = self.actor.clock.callLater(delay, self._expired)
        now, tid = self._now(), self.actor.tid  # stored before anyone hears of it (T-18)
        self.actor.durable.write(deal_restart.stored(tid, proposal, self.proposed_by, now))
        self.actor.log.info(
            "deal_proposed", deal=proposal.deal_id, kind=proposal.kind.value,
            figures=proposal.deal.amounts,
        )  # fmt: skip
        self._tell(
            proposal.players,
            DealProposal(
                tournament_id=self.actor.tid,
                deal_id=proposal.deal_id,
                kind=proposal.kind.value,
                proposed_by=self.proposed_by,
                figures=_figures(proposal.players, proposal.stacks, proposal.deal.amounts),
                left_to_play_for=proposal.deal.reserved,
                rounding=proposal.deal.rounding,
                deadline_ms=round(proposal.deadline * 1000),
            ),
        )

    def _release(self) -> None:
        """Play resumes exactly as it was; the level clock runs again."""
        actor = self.actor
        if actor.floor.held:
            actor.floor.release()
            actor.stop_watching()
            actor.watch_level()

    def _cancel_expiry(self) -> None:
        if self._expiry is not None and self._expiry.active():
            self._expiry.cancel()
        self._expiry = None

    def _tell(self, players: Iterable[str], message: Any) -> None:
        """A deal message to players, once what comes before it is stored (rule 14)."""
        listed = tuple(players)
        self.told.append((listed, message))
        outbox = getattr(self.actor.players, "outbox", None)
        if outbox is not None:
            outbox.send_all(listed, message)

    def _tell_result(self, proposal: Proposal, outcome: str, by: str | None) -> None:
        self._tell(
            proposal.players,
            DealResult(
                tournament_id=self.actor.tid,
                deal_id=proposal.deal_id,
                outcome=outcome,
                rejected_by=by,
                figures=_figures(proposal.players, proposal.stacks, proposal.deal.amounts),
            ),
        )

    # ------------------------------------------------------------------ the payment

    def _pay(self) -> None:
        """T-13: everyone accepted: paid at once, shared with stakers; then the rest or the end."""
        actor = self.actor
        record = self.flow.record
        proposal = self.flow.proposal
        assert record is not None and proposal is not None and actor.prizes is not None
        key = actor.cashier.key("deal", "table", record.deal_id)
        deal = Deal(record.amounts, record.rounding, record.left_to_play_for)
        moves, ops = actor.stakes.share(
            deal_moves(actor.tid, record.deal_id, record.players, deal), key, "deal"
        )
        table = after_deal(actor.prizes, len(record.players), record.left_to_play_for)
        payouts = actor.payouts
        row = stake_store.DealRow(
            record.deal_id, record.kind.value, record.players, record.stacks, record.amounts,
            record.rounding, record.left_to_play_for, self.proposed_by,
            round(record.accepted_at * 1000), key,
        )  # fmt: skip
        writes: list[Op] = [
            partial(stake_store.save_deal, tournament_id=actor.tid, deal=row),
            partial(
                store.save_prizes,
                tournament_id=actor.tid,
                prizes=table,
                overlay_posted=payouts.overlay,
            ),
            deal_restart.cleared(actor.tid),  # no deal in the making: in the same unit
            *ops,
        ]
        for player, amount in zip(record.players, record.amounts, strict=True):
            entry_no = actor.alive.get(player, 1)
            writes.append(
                partial(
                    store.update_entry,
                    tournament_id=actor.tid,
                    player=player,
                    entry_no=entry_no,
                    prize=amount,
                )
            )
            payouts.credited[player] = payouts.credited.get(player, 0) + amount
        payouts.paid_total += sum(record.amounts)
        payouts.rounding_total += record.rounding
        actor.prizes = table
        actor.log.info("deal_made", deal=record.deal_id, amounts=record.amounts)
        with actor.durable.batch():
            paid = actor.durable.money(moves, key, "prize", writes)
            paid.addErrback(self._failed, key)
            self._tell_result(proposal, "made", None)
            if record.left_to_play_for:
                self._release()
            else:  # the deal ends the tournament: places by chips at the deal
                ranked = sorted(
                    zip(record.players, record.stacks, strict=True), key=lambda p: (-p[1], p[0])
                )
                actor.floor.held = False
                actor.end([player for player, _ in ranked])

    def _failed(self, failure: Any, key: str) -> None:
        """The deal's transfer was refused (the pool holds it: a bug); kept for the staff."""
        self.failures.append((key, str(failure.value)))
        self.actor.log.error("deal_transfer_failed", key=key, error=str(failure.value))

    def restore(self, deals: Sequence[stake_store.DealRow]) -> None:
        """T-18 resume: a deal already made stands (no other is made); its amounts count as
        the players' prizes so far."""
        if not deals:
            return
        row = deals[-1]
        record = DealRecord(
            row.deal_id, DealKind(row.kind), row.players, row.stacks, row.amounts, row.rounding,
            row.left_to_play_for, row.accepted_at_ms / 1000,
        )  # fmt: skip
        self.flow = replace(
            self.flow, phase=DealPhase.DONE, record=record, serial=int(row.deal_id or 0)
        )
        self.proposed_by = row.proposed_by
        for player, amount in zip(row.players, row.amounts, strict=True):
            credited = self.actor.payouts.credited
            credited[player] = credited.get(player, 0) + amount

    def voided(self, deal: PendingDeal | None) -> None:
        """T-18 resume: the deal in the making at the crash is void (never applied; its id is
        not used again); its players are told when they log in again (`restart`)."""
        if deal is not None:
            serial = int(deal.deal_id) if deal.deal_id.isdigit() else 0
            self.flow = replace(self.flow, serial=max(self.flow.serial, serial))
            self.restart.voided(deal)


def after_deal(table: PrizeTable, players: int, left_to_play_for: int) -> PrizeTable:
    """The prize table played for after a deal among `players`: first place the amount left to
    play for, the other places of the deal nothing more; places already awarded unchanged; the
    pool and its T-7 rest as before (the deal's own rest was paid with it). T-18 reads it."""
    places = max(players, table.paid_places)
    amounts = tuple(
        (left_to_play_for if place == 1 else 0) if place <= players else table.prize(place)
        for place in range(1, places + 1)
    )
    return PrizeTable(table.pool, amounts, table.rounding)


def _figures(
    players: Sequence[str], stacks: Sequence[int], amounts: Sequence[int]
) -> list[DealFigure]:
    return [
        DealFigure(player=p, chips=c, amount=a)
        for p, c, a in zip(players, stacks, amounts, strict=True)
    ]
