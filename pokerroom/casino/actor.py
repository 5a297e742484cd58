"""CasinoTable: one round-game table (baccarat, progressive, dragon tiger, roulette, sic bo).

One round for every player at the table (K-1): the round's row is written, the betting window
runs on the injected clock (K-2), players place chips into a draft and confirm it (K-3); each
confirmation is checked against the limits (K-5) and posted wallet → the round's `in_play`
keyed by the client's key, with its bet rows (K-4, L-2, P-2). When the window closes the table
waits for the confirmations already sent, draws once (K-20), settles through the core with the
per-round cap (K-12) and posts ONE transaction keyed by the round id with the round's record
(L-3, RNG-9); only then does it tell the result (persist, then tell). Any failure after the
close is a malfunction: the round is voided (every stake back, L-5) and the table closes until
staff reopen it (K-7). At start the table voids every round of its own left open by a crash.
A table with no player is idle: no round opens until someone joins. Before a round's row is
written the table reads the house bankroll (the ledger's read lane): a round opens only while the
bankroll holds the K-12 maximum win times the players seated; otherwise the table waits
(`waiting_for_bankroll`, one warning) and reads again one round's length later, opening as soon
as the bankroll covers it. A table without a K-12 cap has no bound and does not wait.

The actor owns its parts and calls them; they never call it back (ARCH rule 13): the game
(`games.RoundGame`), the persistence (`rounds.RoundStore`) and a `CasinoListener`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog
from twisted.internet.defer import Deferred, DeferredList
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.python.failure import Failure

from pokerroom.casino import codes, money
from pokerroom.casino import events as ev
from pokerroom.casino import table_config as tc
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.core.results import Bet
from pokerroom.casino.games import RoundGame, Settled
from pokerroom.casino.round_state import Answer, Confirmed, RoundState, refusal
from pokerroom.casino.rounds import RoundStore
from pokerroom.casino.store import RoundRow, Voided
from pokerroom.ledger.transfers import Transfer

log = structlog.get_logger("pokerroom.casino")


class CasinoTable:
    """A round-game casino table (module doc)."""

    def __init__(
        self,
        config: tc.CasinoTableConfig,
        *,
        game: RoundGame,
        clock: IReactorTime,
        store: RoundStore,
        listener: tc.CasinoListener,
        new_id: Callable[[str], str] = tc.new_round_id,
    ) -> None:
        self.config = config
        self.game = game
        self.clock = clock
        self.store = store
        self.listener = listener
        self.new_id = new_id
        self.phase = tc.STOPPED
        self.round: RoundState | None = None
        self.players: set[str] = set()
        self.observers: set[str] = set()
        self.pool = 0
        self.closed_reason = ""
        self.closing = False
        #: Each player's confirmed bets of the last settled round (K-3: Rebet).
        self.last_bets: dict[str, list[tuple[str, int]]] = {}
        self._timer: IDelayedCall | None = None
        self.log = log.bind(table=config.table_id, game=config.game)

    # ------------------------------------------------------------------ life

    @property
    def table_id(self) -> str:
        """The table's id."""
        return self.config.table_id

    @property
    def audience(self) -> set[str]:
        """Who receives the table's public events."""
        return self.players | self.observers

    def now_ms(self) -> int:
        """The injected clock in milliseconds."""
        return int(self.clock.seconds() * 1000)

    def start(self) -> Deferred[tuple[Voided, ...]]:
        """Void rounds a crash left open (K-7), read the pool, open the first round."""
        recovered = self.store.recover(self.table_id, self.now_ms())

        def pool(voided: tuple[Voided, ...]) -> Deferred[tuple[Voided, ...]]:
            if voided:
                self.log.warning(
                    "casino_rounds_voided_at_start", rounds=[v.round_id for v in voided]
                )
            read = self.store.balance(money.pool(self.table_id, self.config.currency))

            def opened(balance: int) -> tuple[Voided, ...]:
                self.pool = balance
                self.phase = tc.BETWEEN
                self._open()
                return voided

            return read.addCallback(opened)

        return recovered.addCallback(pool)

    def stop(self) -> None:
        """Stop the timers (the round, if any, stays open: the next start voids it)."""
        self._cancel_timer()
        self.phase = tc.STOPPED

    def _cancel_timer(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None

    def _later(self, seconds: float, call: Callable[[], None]) -> None:
        self._cancel_timer()
        self._timer = self.clock.callLater(seconds, call)

    # ------------------------------------------------------------------ players

    def join(self, player: str) -> None:
        """Sit at the table; the first player makes an idle table open a round."""
        self.observers.discard(player)
        self.players.add(player)
        if self.phase in (tc.BETWEEN, tc.WAITING) and self.round is None and self._timer is None:
            self._open()

    def observe(self, player: str) -> None:
        """Watch the table without betting."""
        if player not in self.players:
            self.observers.add(player)

    def leave(self, player: str) -> None:
        """Leave: unconfirmed chips are dropped; confirmed bets still settle (K-9)."""
        self.players.discard(player)
        self.observers.discard(player)
        if self.round is not None:
            self.round.drafts.pop(player, None)

    def _betting_round(self, player: str) -> RoundState:
        if player not in self.players:
            raise CasinoError(codes.NOT_AT_TABLE, f"{player} is not at {self.table_id}")
        if self.phase == tc.CLOSED:
            raise CasinoError(codes.TABLE_CLOSED, f"{self.table_id} is closed")
        found = self.round
        if self.phase != tc.BETTING or found is None or self.now_ms() >= found.closes_ms:
            raise CasinoError(codes.BETTING_CLOSED, "no bets now (K-2)")
        return found

    def place(self, player: str, spot: str, stake: int) -> dict[str, int]:
        """Add chips to the player's draft (K-3); the draft is returned. Nothing moves yet."""
        found = self._betting_round(player)
        if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
            raise CasinoError("invalid_stake", f"stake {stake!r} is not positive")
        if not isinstance(spot, str) or (
            self.game.spots is not None and spot not in self.game.spots
        ):
            raise CasinoError("unknown_spot", f"no {spot!r} at this table")
        spot = self.game.spot_name(spot)  # K-5: one position, one bet, however it is spelt
        found.drafts.setdefault(player, []).append((spot, stake))
        return found.draft(player)

    def clear(self, player: str) -> None:
        """Drop the player's unconfirmed chips (K-3)."""
        self._betting_round(player).drafts.pop(player, None)

    def undo(self, player: str) -> dict[str, int]:
        """Take back the last unconfirmed chip (K-3); the draft is returned."""
        found = self._betting_round(player)
        chips = found.drafts.get(player)
        if not chips:
            raise CasinoError(codes.NO_DRAFT, "no unconfirmed chip to take back (K-3)")
        chips.pop()
        return found.draft(player)

    def double(self, player: str) -> dict[str, int]:
        """Double the unconfirmed chips, and only them (K-3); the draft is returned."""
        found = self._betting_round(player)
        chips = found.drafts.get(player)
        if not chips:
            raise CasinoError(codes.NO_DRAFT, "no unconfirmed chip to double (K-3)")
        chips.extend(list(chips))
        return found.draft(player)

    def rebet(self, player: str) -> dict[str, int]:
        """Place the player's confirmed bets of the last settled round as a new draft (K-3)."""
        found = self._betting_round(player)
        last = self.last_bets.get(player)
        if not last:
            raise CasinoError(codes.NO_DRAFT, "no bet of the last round to place again (K-3)")
        found.drafts[player] = list(last)
        return found.draft(player)

    def confirm(self, player: str, key: str) -> Deferred[Confirmed]:
        """Confirm the draft (K-3): limits (K-5), then wallet → in_play keyed by `key` (L-2)."""
        if not isinstance(key, str) or not key:
            raise CasinoError(codes.MISSING_KEY, "a confirmation needs a key (P-2)")
        current = self.round
        if current is not None and (player, key) in current.answers:
            return current.answers[(player, key)].wait()  # P-2: the same answer again
        found = self._betting_round(player)
        draft = found.draft(player)
        if not draft:
            raise CasinoError(codes.NO_DRAFT, "no unconfirmed chips (K-3)")
        for spot, stake in draft.items():
            self.game.check(Bet(player, spot, found.on_spot(player, spot) + stake), found.in_shoe)
        self._claim(found, player, draft)
        del found.drafts[player]
        bets = tuple(draft.items())
        posted = self.store.place(
            found.round_id, player, self.config.currency, bets, key, self.now_ms()
        )
        answer = Answer()
        first = answer.wait()

        def done(transfer: Transfer) -> None:
            if not transfer.replayed:
                found.bets.extend(Bet(player, spot, stake) for spot, stake in bets)
            staked = found.staked(player)
            answer.give(Confirmed(found.round_id, bets, staked, transfer.replayed))

        def refused(failure: Failure) -> None:
            if found is self.round and self.phase == tc.BETTING:  # K-3: the chips stay a draft
                found.drafts[player] = list(bets) + found.drafts.get(player, [])
            found.answers.pop((player, key), None)
            answer.fail(refusal(failure))

        found.answers[(player, key)] = answer
        found.inflight.append(posted)
        posted.addCallbacks(done, refused)
        return first

    def _claim(self, found: RoundState, player: str, draft: dict[str, int]) -> None:
        """A game's further check of a confirmation (blackjack: a box is one player's)."""

    # ------------------------------------------------------------------ rounds

    def exposure(self) -> int | None:
        """The most the bankroll can pay in the next round (K-12), or None: no cap."""
        return tc.round_exposure(self.config, len(self.players))

    def _open(self) -> None:
        self._timer = None
        if self.phase not in (tc.BETWEEN, tc.WAITING) or not self.players:  # idle without players
            return
        if self.exposure() is None:
            self._open_round()
            return
        waited = self.phase == tc.WAITING
        self.phase = tc.OPENING
        read = self.store.balance(money.bankroll(self.config.currency))

        def checked(balance: int | None) -> None:
            if self.phase != tc.OPENING or self.round is not None:
                return  # stopped meanwhile
            if self.closing:  # staff closed the table during the read
                self.closing = False
                self.phase = tc.CLOSED
                return
            if not self.players:  # everyone left during the read: idle
                self.phase = tc.WAITING if waited else tc.BETWEEN
                return
            need = self.exposure() or 0  # who is seated now, as the row is written
            if balance is not None and balance >= need:
                self.phase = tc.BETWEEN
                if waited:
                    self.log.info("casino_bankroll_covers", bankroll=balance, needed=need)
                    self.listener.tell(self.audience, ev.TableState(self.table_id, True, ""))
                self._open_round()
                return
            self.phase = tc.WAITING
            if not waited:
                self.log.warning(
                    "casino_waiting_for_bankroll",
                    bankroll=balance,
                    needed=need,
                    players=len(self.players),
                )
                self.listener.tell(self.audience, ev.TableState(self.table_id, False, tc.WAITING))
            self._later(self.game.window_s + self.config.between_s, self._open)

        def unread(failure: Failure) -> None:
            self.log.error("casino_bankroll_unread", error=failure.getErrorMessage())
            checked(None)

        read.addCallbacks(checked, unread)

    def _open_round(self) -> None:
        try:
            in_shoe = self.game.open_round()
        except CasinoError as exc:
            self._close_table(f"cannot open a round: {exc.code}")
            return
        now = self.now_ms()
        window_ms = int(self.game.window_s * 1000)
        current = RoundState(self.new_id(self.table_id), in_shoe, now + window_ms)
        self.round = current
        self.phase = tc.OPENING
        row = RoundRow(
            current.round_id,
            self.table_id,
            self.config.game,
            self.config.currency,
            now,
            now + window_ms,
        )

        def opened(_: None) -> None:
            if self.phase != tc.OPENING or self.round is not current:
                return
            self.phase = tc.BETTING
            current.closes_ms = self.now_ms() + window_ms
            self._later(self.game.window_s, self._close_betting)
            self.listener.tell(
                self.audience,
                ev.BettingOpened(self.table_id, current.round_id, current.closes_ms, in_shoe),
            )

        def failed(failure: Failure) -> None:
            self.log.error("casino_round_not_opened", error=failure.getErrorMessage())
            self.round = None
            self._close_table("the round could not be recorded")

        self.store.open_round(row).addCallbacks(opened, failed)

    def _close_betting(self) -> None:
        current = self.round
        if self.phase != tc.BETTING or current is None:
            return
        self.phase = tc.SETTLING
        current.drafts.clear()  # K-3: chips never confirmed never reach the ledger
        self.listener.tell(self.audience, ev.BettingClosed(self.table_id, current.round_id))
        waiting = DeferredList(list(current.inflight), consumeErrors=True)
        waiting.addCallback(lambda _: self._draw(current))

    def _draw(self, current: RoundState) -> None:
        if self.round is not current or self.phase != tc.SETTLING or current.ending:
            return
        current.ending = True
        try:
            outcome, record = self.game.draw()  # once (K-20), after the close (RNG-2)
            settled = self.game.settle(current.bets, outcome, self.config.max_win, self.pool)
        except Exception as exc:  # a malfunction of the house's side: K-7
            self.log.exception("casino_draw_failed", round=current.round_id)
            self._void(current, f"malfunction: {type(exc).__name__}")
            return
        audit = {**record.pop("audit", {}), "pool": self.pool}  # RNG-9: the row's only
        self._post_settlement(current, record, settled, audit)

    def _post_settlement(
        self,
        current: RoundState,
        record: dict[str, Any],
        settled: Settled,
        audit: dict[str, Any] | None = None,
    ) -> None:
        """The round's one transaction with its record (L-3; RNG-9: `audit`, with the K-12 cap,
        kept on the row, never told); then tell (persist, then tell)."""
        try:
            legs = money.settlement(
                current.round_id,
                self.table_id,
                self.config.currency,
                settled,
                self.config.review_at,
            )
        except Exception as exc:  # a malfunction of the house's side: K-7
            self.log.exception("casino_settlement_unbalanced", round=current.round_id)
            self._void(current, f"malfunction: {type(exc).__name__}")
            return
        held = self._held(settled)
        summary = {
            "paid": {t.player: t.paid for t in settled.settlement.players},
            "staked": {t.player: t.staked for t in settled.settlement.players},
            "capped": {t.player: t.capped for t in settled.settlement.players if t.capped},
            "held": sorted(held),
            "pool_delta": settled.pool_delta,
        }
        kept = {**(audit or {}), "max_win": self.config.max_win}
        posted = self.store.settle(
            current.round_id, self.config.currency, legs, record, summary, self.now_ms(), kept
        )

        def failed(failure: Failure) -> None:
            self.log.error(
                "casino_settlement_failed", round=current.round_id, error=failure.getErrorMessage()
            )
            self._void(current, "malfunction: the settlement was refused")

        posted.addCallbacks(lambda _: self._settled(current, record, settled, held), failed)

    def _held(self, settled: Settled) -> set[str]:
        review_at = self.config.review_at
        return {
            t.player
            for t in settled.settlement.players
            if t.jackpot > 0 or (review_at is not None and t.winnings >= review_at)
        }

    def _settled(
        self, current: RoundState, record: dict[str, Any], settled: Settled, held: set[str]
    ) -> None:
        self.pool += settled.pool_delta
        done = settled.settlement
        self.last_bets = {}
        for placed in current.bets:
            self.last_bets.setdefault(placed.player, []).append((placed.spot, placed.stake))
        totals = tuple(ev.PlayerTotal(t.player, t.staked, t.paid) for t in done.players)
        self.listener.tell(
            self.audience, ev.RoundResult(self.table_id, current.round_id, record, totals)
        )
        for player, own in ev.own_settlements(self.table_id, current.round_id, done, held):
            self.listener.tell([player], own)
        self.round = None
        if self.phase != tc.SETTLING:
            return
        if self.closing:
            self.closing = False
            self.phase = tc.CLOSED
        else:
            self.phase = tc.BETWEEN
            self._later(self.config.between_s, self._open)

    # ------------------------------------------------------------------ voids and staff

    def _void(self, current: RoundState, reason: str, progress: Any = None) -> Deferred[Voided]:
        self._cancel_timer()
        self.game.void()  # K-8: a new shoe
        self.phase = tc.CLOSED  # K-7: closed until staff reopen it
        self.closed_reason = reason
        self.closing = False
        current.drafts.clear()
        voided = self.store.void(current.round_id, reason, self.now_ms(), progress)  # BJ-19

        def told(result: Voided) -> Voided:
            if self.round is current:
                self.round = None
            self.listener.tell(
                self.audience,
                ev.RoundVoided(self.table_id, current.round_id, reason, bool(result.settlement)),
            )
            self.listener.tell(self.audience, ev.TableState(self.table_id, False, reason))
            return result

        def lost(failure: Failure) -> Failure:  # the round stays open: the next start voids it
            self.log.error(
                "casino_void_failed", round=current.round_id, error=failure.getErrorMessage()
            )
            return failure

        return voided.addCallbacks(told, lost)

    def void_round(self, reason: str) -> Deferred[Voided]:
        """Staff: void the current round (K-7) once its confirmations are in; the table closes."""
        current = self.round
        if current is None or current.ending or self.phase not in (tc.BETTING, tc.SETTLING):
            raise CasinoError(codes.NO_ROUND, "no round to void (or its settlement is under way)")
        current.ending = True
        self.phase = tc.SETTLING  # nothing more is taken or drawn
        self._cancel_timer()
        current.drafts.clear()
        waiting = DeferredList(list(current.inflight), consumeErrors=True)
        return waiting.addCallback(lambda _: self._void(current, reason))

    def close(self, reason: str) -> None:
        """Staff: close the table; a round under way still settles, no new round opens."""
        self._close_table(reason)

    def hold(self) -> None:
        """Open no new round, tell nothing (a cluster node hands the table over)."""
        self._close_table("handing over", tell=False)

    def _close_table(self, reason: str, tell: bool = True) -> None:
        self.closed_reason = reason
        if self.phase in (tc.OPENING, tc.BETTING, tc.SETTLING):
            self.closing = True  # after this round
        else:
            self._cancel_timer()
            self.phase = tc.CLOSED
        if tell:
            self.listener.tell(self.audience, ev.TableState(self.table_id, False, reason))

    def reopen(self) -> None:
        """Staff: open the table again; a round opens at once."""
        if self.phase != tc.CLOSED:
            return
        self.closed_reason = ""
        self.closing = False
        self.phase = tc.BETWEEN
        self.listener.tell(self.audience, ev.TableState(self.table_id, True, ""))
        self._open()
