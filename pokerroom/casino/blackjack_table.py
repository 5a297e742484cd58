"""BlackjackTable: the casino table of blackjack (BJ-), with its decision turns on the clock.

Betting is the round games' (K-2 … K-5: `CasinoTable`); a box (`box:N`) belongs to the first
player who confirms a bet on it. When the window closes the core's `BlackjackRound` deals
(BJ-5); the table then runs the insurance window (BJ-6, `insurance_s`) and one turn per hand
(`decision_s`, BJ-16), each on the injected clock; a timer that runs out decides the default
(`round.timeout()`: insurance declined, the hand stands; K-10). A decision that adds a stake
(double, split, insurance) is checked first, then its stake is posted wallet → the round's
in_play keyed by the client's key with its bet row (K-4, L-2), and only then applied; the clock
waits meanwhile and no other decision is taken. When the round is over it settles in the one
transaction of every casino round (L-3); a void returns every stake, doubles and splits
included (K-7, L-5), as does the restart recovery. In `cancel_mode = "partial"` (BJ-19) the
table records the round's progress on its row after every move (`RoundStore.progress`, not
waited for: K-6, a move not recorded did not happen) and a void cancels the round by BJ-19
instead, from the progress in memory or, after a crash, from the row (`pokerroom.casino.cancel`);
each player then hears their own settlement after the void.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pokerroom.casino import codes
from pokerroom.casino import events as ev
from pokerroom.casino.actor import CasinoTable
from pokerroom.casino.core import errors
from pokerroom.casino.core.blackjack import INSURANCE, OVER, BlackjackRound
from pokerroom.casino.core.blackjack_rules import PARTIAL
from pokerroom.casino.core.cards import names
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.core.results import Bet, settlement
from pokerroom.casino.games import BlackjackGame, Settled, shoe_audit
from pokerroom.casino.round_state import RoundState, refusal
from pokerroom.casino.rounds import RoundStore
from pokerroom.casino.store import Voided
from pokerroom.casino.table_config import SETTLING, CasinoListener, CasinoTableConfig
from pokerroom.ledger.transfers import Transfer

#: Decisions that add a stake (K-4: funds first), and the core's name for it.
STAKED = {"double": "double", "split": "split", "insure": "insure"}
ACTIONS = ("hit", "stand", "double", "split", "surrender")


class BlackjackTable(CasinoTable):
    """A blackjack table (module doc)."""

    def __init__(
        self,
        config: CasinoTableConfig,
        *,
        game: BlackjackGame,
        clock: Any,
        store: RoundStore,
        listener: CasinoListener,
        new_id: Callable[[str], str] | None = None,
    ) -> None:
        extra = {} if new_id is None else {"new_id": new_id}
        super().__init__(config, game=game, clock=clock, store=store, listener=listener, **extra)
        self.blackjack = game
        self.hand: BlackjackRound | None = None
        self.deciding = False
        self._told = 0  # events of the round already told
        self._armed: tuple[str, tuple[int, int] | None] | None = None
        self._claims: dict[str, dict[str, str]] = {}  # round id -> box spot -> player
        self._decisions: list[dict[str, Any]] = []  # RNG-9: the round's decisions, timed

    # ------------------------------------------------------------------ boxes
    def _claim(self, found: RoundState, player: str, draft: dict[str, int]) -> None:
        claims = self._claims.setdefault(found.round_id, {})
        for spot in draft:
            owner = claims.get(spot)
            if owner is not None and owner != player:
                raise CasinoError(codes.BOX_TAKEN, f"{spot} is {owner}'s this round")
        for spot in draft:
            claims[spot] = player

    # ------------------------------------------------------------------ the deal
    def _draw(self, current: RoundState) -> None:
        if self.round is not current or self.phase != SETTLING or current.ending:
            return
        boxes: dict[str, Bet] = {}
        for placed in current.bets:  # chips on one box are one bet (K-5)
            found = boxes.get(placed.spot)
            stake = placed.stake + (found.stake if found else 0)
            boxes[placed.spot] = Bet(placed.player, placed.spot, stake)
        self._claims.pop(current.round_id, None)
        if not boxes:
            current.ending = True
            self._post_settlement(current, {}, Settled(settlement([])))
            return
        try:
            self.hand = BlackjackRound(
                self.blackjack.rules, list(boxes.values()), self.blackjack.shoe_now()
            )
        except Exception as exc:  # a malfunction (the shoe ran out, …): K-7
            self.log.exception("blackjack_deal_failed", round=current.round_id)
            current.ending = True
            self._void(current, f"malfunction: {type(exc).__name__}")
            return
        self._told = 0
        self._armed = None
        self._decisions = []
        self._next(current)

    def _tell_moves(self, current: RoundState, hand: BlackjackRound) -> None:
        for event in hand.events[self._told :]:
            move = ev.BlackjackMove(
                self.table_id,
                current.round_id,
                event.kind,
                event.box,
                event.hand,
                tuple(names(event.cards).split()) if event.cards else (),
                event.stake,
            )
            self.listener.tell(self.audience | self._owners(hand), move)
        self._told = len(hand.events)

    def _owners(self, hand: BlackjackRound) -> set[str]:
        return {box.player for box in hand.boxes}

    def _next(self, current: RoundState) -> None:
        """Tell what happened; settle a round that is over, else arm the clock of who decides."""
        hand = self.hand
        if hand is None or self.round is not current:
            return
        self._tell_moves(current, hand)
        self._record(current, hand)
        if hand.phase == OVER:
            current.ending = True
            self._cancel_timer()
            try:
                settled = Settled(hand.settle(self.config.max_win))
            except Exception as exc:
                self.log.exception("blackjack_settle_failed", round=current.round_id)
                self._void(current, f"malfunction: {type(exc).__name__}")
                return
            record = {
                "dealer": names(hand.dealer),
                "boxes": {
                    str(box.number): [names(h.cards) for h in box.hands] for box in hand.boxes
                },
            }
            audit = {
                **shoe_audit(self.blackjack.shoe_now(), self.blackjack.start),
                "decisions": list(self._decisions),
            }  # RNG-9: the hole card is in `dealt`; kept on the row, never told
            self.hand = None
            self._post_settlement(current, record, settled, audit)
            return
        armed = (hand.phase, hand.turn)
        if armed == self._armed:
            return  # the same window or turn: its clock runs on
        self._armed = armed
        insurance = hand.phase == INSURANCE
        seconds = self.blackjack.insurance_s if insurance else self.blackjack.decision_s
        deadline = self.now_ms() + int(seconds * 1000)
        self._later(seconds, lambda: self._expired(current))
        if insurance:
            for box in hand.boxes:
                if not box.insurance_decided:
                    actions = ("insure", "decline") + (
                        ("even_money",) if hand.can_take_even_money(box.number) else ()
                    )
                    due = ev.DecisionDue(
                        self.table_id, current.round_id, box.number, 0, box.player, actions,
                        deadline,
                    )  # fmt: skip
                    self.listener.tell(self.audience | {box.player}, due)
            return
        turn = hand.turn
        assert turn is not None
        number, index = turn
        owner = next(box.player for box in hand.boxes if box.number == number)
        offered = tuple(a for a in ACTIONS if getattr(hand, f"can_{a}")(number))
        due = ev.DecisionDue(
            self.table_id, current.round_id, number, index, owner, offered, deadline
        )
        self.listener.tell(self.audience | {owner}, due)

    def _expired(self, current: RoundState) -> None:
        """BJ-16, K-10: the default decision (insurance declined, the hand stands)."""
        hand = self.hand
        if hand is None or self.round is not current or self.deciding:
            return
        self._armed = None
        self._decided(None, None, "timeout")
        hand.timeout()
        self._next(current)

    # ------------------------------------------------------------------ decisions
    def decide(
        self, player: str, box: int, action: str, key: str | None = None
    ) -> Deferred[None] | None:
        """A decision of `player` for `box`: checked, its stake posted first if it adds one,
        then applied; None when applied at once, else a Deferred that fires once applied."""
        hand, current = self.hand, self.round
        if hand is None or current is None or hand.phase == OVER or current.ending:
            raise CasinoError(errors.WRONG_PHASE, "no blackjack decision now")
        if self.deciding:
            raise CasinoError(codes.DECISION_PENDING, "a decision's stake is being posted")
        owner = next((b.player for b in hand.boxes if b.number == box), None)
        if owner != player:
            raise CasinoError(errors.NOT_YOUR_TURN, f"box {box} is not {player}'s")
        apply = self._action(hand, action)
        if action not in STAKED:
            index = self._index(hand, box)
            apply(box)
            self._decided(player, (box, index), action)
            self._next(current)
            return None
        check = getattr(hand, f"can_{action}")
        if not check(box):
            apply(box)  # raises the core's stable code
        if not key:
            raise CasinoError(codes.MISSING_KEY, "a decision that adds a stake needs a key")
        stake = hand.stake_for(STAKED[action], box)
        spot = f"box:{box}:{action}"
        self.deciding = True
        self._cancel_timer()  # the clock waits for the ledger
        posted = self.store.place(
            current.round_id, player, self.config.currency, [(spot, stake)], key, self.now_ms()
        )
        current.inflight.append(posted)

        def applied(transfer: Transfer) -> None:
            self.deciding = False
            if transfer.replayed:  # P-2: the key posted another request (a confirmation or an
                # earlier decision of the same amount): nothing moved now, so nothing applies
                if self.hand is hand and self.round is current:
                    self._armed = None
                    self._next(current)  # the turn's clock starts again
                raise CasinoError(codes.KEY_REUSED, "this key was used for another request")
            current.bets.append(Bet(player, spot, stake))
            if self.hand is hand and self.round is current and not current.ending:
                index = self._index(hand, box)
                apply(box)  # (a void under way returns this stake with the others)
                self._decided(player, (box, index), action)
                self._armed = None
                self._next(current)

        def refused(failure: Failure) -> Failure:
            self.deciding = False
            if self.hand is hand and self.round is current:
                self._armed = None
                self._next(current)  # the turn's clock starts again
            return refusal(failure)

        return posted.addCallbacks(applied, refused)

    def _index(self, hand: BlackjackRound, box: int) -> int:
        """The hand of `box` that decides now (0 in the insurance window)."""
        turn = hand.turn
        return turn[1] if turn is not None and turn[0] == box else 0

    def _decided(self, player: str | None, where: tuple[int, int] | None, action: str) -> None:
        """RNG-9: a decision applied (or the clock's default, `timeout`) with its time."""
        entry: dict[str, Any] = {"at_ms": self.now_ms(), "action": action}
        if where is not None:
            entry.update(player=player, box=where[0], hand=where[1])
        self._decisions.append(entry)

    def _action(self, hand: BlackjackRound, action: str) -> Callable[[int], object]:
        table: dict[str, Callable[[int], object]] = {
            "hit": hand.hit,
            "stand": hand.stand,
            "double": hand.double,
            "split": hand.split,
            "surrender": hand.surrender,
            "insure": hand.insure,
            "decline": hand.decline_insurance,
            "even_money": hand.take_even_money,
        }
        found = table.get(action)
        if found is None:
            raise CasinoError(errors.NOT_ALLOWED, f"no blackjack decision {action!r}")
        return found

    # ------------------------------------------------------------------ BJ-19
    def _progress(self, hand: BlackjackRound | None) -> dict[str, Any] | None:
        """The round's record for BJ-19 with the table's K-12 cap and K-13 threshold, or None
        when the table returns every stake of a cancelled round (`void`, BJ-18)."""
        if hand is None or self.blackjack.rules.cancel_mode != PARTIAL:
            return None
        return {
            **hand.progress(),
            "max_win": self.config.max_win,
            "review_at": self.config.review_at,
        }

    def _record(self, current: RoundState, hand: BlackjackRound) -> None:
        record = self._progress(hand)
        if record is None:
            return

        def lost(failure: Failure) -> None:
            self.log.error(
                "blackjack_progress_unrecorded",
                round=current.round_id,
                error=failure.getErrorMessage(),
            )

        self.store.progress(current.round_id, record).addErrback(lost)

    def _void(self, current: RoundState, reason: str, progress: Any = None) -> Deferred[Voided]:
        if progress is None and self.round is current:
            progress = self._progress(self.hand)
        self.hand = None
        self.deciding = False
        self._claims.pop(current.round_id, None)
        voided = super()._void(current, reason, progress)

        def tell_own(result: Voided) -> Voided:
            done = result.settlement
            if done is None:
                return result
            for player, own in ev.own_settlements(
                self.table_id, current.round_id, done, result.held
            ):
                self.listener.tell([player], own)
            return result

        return voided.addCallback(tell_own)
