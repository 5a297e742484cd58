"""One hand of poker as a pure state machine: checked actions in, frozen events out.

Every action has three forms (docs/ARCHITECTURE.md rule 2): `verify_x` raises an
`EngineError` with a stable code and changes nothing, `can_x` answers yes or no,
and `x` applies the action and appends events to `log`.
"""

from __future__ import annotations

from enum import IntEnum

import pokerroom.engine.errors as errors
import pokerroom.engine.events as ev
from pokerroom.engine.cards import CARD_SET
from pokerroom.engine.config import HandConfig
from pokerroom.engine.errors import EngineError
from pokerroom.engine.evaluation import rank_hand
from pokerroom.engine.legal import LegalActions
from pokerroom.engine.pots import SidePot, apportion, build_pots, rake_for, split_evenly
from pokerroom.engine.variants import Betting


class Phase(IntEnum):
    """What the hand waits for next."""

    DEAL_HOLE = 0
    BETTING = 1
    DEAL_BOARD = 2
    SHOWDOWN = 3
    OVER = 4


class Hand:
    """The state of one hand; see `HandConfig` for the player order.

    With a `deck` (a shuffled list of cards, dealt from its end), cards are dealt
    and the showdown is resolved without being asked; without one (replaying a
    history), the caller deals with `deal_hole` / `deal_board` and shows or mucks.
    """

    def __init__(self, config: HandConfig, deck: list[str] | None = None) -> None:
        self.config = config
        self.variant = config.variant
        self.n = n = config.player_count
        self.deck = deck
        self.stacks = list(config.starting_stacks)
        self.bets = [0] * n
        self.contrib = [0] * n  # everything put in this hand, antes and dead posts included
        self.dead = [0] * n  # the antes and dead posts alone: nobody's bet (C-4)
        self.folded = [False] * n
        self.live = n  # players not folded
        self.holes: list[tuple[str, ...] | None] = [None] * n
        self.board: list[str] = []
        self.seen: set[str] = set()
        self.shown: set[int] = set()
        self.mucked: set[int] = set()
        self._ranks: dict[int, int] = {}
        self._pot_cache: list[SidePot] | None = None
        self.log: list[ev.Event] = []
        self.street = 0  # 0 preflop, 1 flop, 2 turn, 3 river
        self.phase = Phase.DEAL_HOLE
        self.actor = -1
        self.current_bet = 0
        self.street_min = 0  # the smallest bet or raise increment on this street
        self.last_raise = 0  # the largest bet or raise increment on this street so far
        self.bet_count = 0
        self.acted: set[int] = set()
        self.short_all_ins: list[int] = []
        self.to_act: list[int] = []
        self.last_aggressor = -1
        self.showdown_done = False
        self._post_forced_bets()
        if deck is not None:
            self._auto_deal_holes()

    # ------------------------------------------------------------------ forced bets

    def _post(self, player: int, amount: int) -> int:
        """Move up to `amount` of the player's stack into the pot; return what moved."""
        if amount > self.stacks[player]:
            amount = self.stacks[player]
        self.stacks[player] -= amount
        self.contrib[player] += amount
        return amount

    def _post_forced_bets(self) -> None:
        """Antes, dead posts, then live blinds and posts (C-2, C-4)."""
        cfg = self.config
        log = self.log
        antes = [self._post(i, ante) if ante else 0 for i, ante in enumerate(cfg.antes)]
        if cfg.ante_trimming and antes:
            # Antes are live money trimmed to the second-largest ante (PHH ante trimming).
            top = max(antes)
            second = sorted(antes)[-2]
            if top > second:
                leader = antes.index(top)
                self.stacks[leader] += top - second
                self.contrib[leader] -= top - second
                antes[leader] = second
        for i, posted in enumerate(antes):
            if posted:
                if not cfg.ante_trimming:
                    self.dead[i] += posted
                log.append(ev.AntePosted(i, posted))
        for i, dead in enumerate(cfg.dead_posts):
            if dead:
                posted = self._post(i, dead)
                self.dead[i] += posted
                log.append(ev.DeadPosted(i, posted))
        lives = cfg.live_posts or (0,) * self.n
        for i, (blind, live) in enumerate(zip(cfg.blinds_or_straddles, lives, strict=True)):
            amount = blind if blind > live else live
            if amount:
                posted = self._post(i, amount)
                self.bets[i] = posted
                log.append(ev.BlindPosted(i, posted))
        self.current_bet = max(self.bets)

    # ------------------------------------------------------------------ dealing

    def _check_new_cards(self, cards: tuple[str, ...]) -> None:
        """Raise unless every card is real, distinct and not dealt yet."""
        for card in cards:
            if card not in CARD_SET:
                raise EngineError(errors.BAD_CARDS, f"{card!r} is not a card")
        if len(set(cards)) != len(cards) or self.seen.intersection(cards):
            raise EngineError(errors.CARD_ALREADY_DEALT, f"{''.join(cards)} repeats a dealt card")

    def verify_deal_hole(self, player: int, cards: tuple[str, ...]) -> None:
        """Raise unless `cards` can be dealt to `player` now."""
        if self.phase is not Phase.DEAL_HOLE:
            raise EngineError(errors.NOT_DEALING, "hole cards are not being dealt now")
        self._check_player(player)
        if self.holes[player] is not None:
            raise EngineError(errors.CARD_ALREADY_DEALT, f"player {player} already has cards")
        if len(cards) != self.variant.hole_cards:
            raise EngineError(
                errors.WRONG_CARD_COUNT,
                f"{self.variant.code} deals {self.variant.hole_cards} hole cards",
            )
        self._check_new_cards(cards)

    def deal_hole(self, player: int, cards: tuple[str, ...]) -> None:
        """Deal a player's hole cards."""
        self.verify_deal_hole(player, cards)
        self._give_hole(player, tuple(cards))
        if all(h is not None for h in self.holes):
            self._start_betting()

    def _give_hole(self, player: int, cards: tuple[str, ...]) -> None:
        self.holes[player] = cards
        self.seen.update(cards)
        self.log.append(ev.HoleDealt(player, cards))

    def _auto_deal_holes(self) -> None:
        deck = self.deck
        assert deck is not None
        count = self.variant.hole_cards
        for player in range(self.n):
            cards = tuple(deck.pop() for _ in range(count))
            self._give_hole(player, cards)
        self._start_betting()

    def verify_deal_board(self, cards: tuple[str, ...]) -> None:
        """Raise unless `cards` are the next board cards."""
        if self.phase is not Phase.DEAL_BOARD:
            raise EngineError(errors.NOT_DEALING, "the board is not being dealt now")
        want = self.variant.board_deals[self.street + 1]
        if len(cards) != want:
            raise EngineError(errors.WRONG_CARD_COUNT, f"this street deals {want} board cards")
        self._check_new_cards(cards)

    def deal_board(self, cards: tuple[str, ...]) -> None:
        """Deal the next street's board cards."""
        self.verify_deal_board(cards)
        self._give_board(tuple(cards))

    def _give_board(self, cards: tuple[str, ...]) -> None:
        self.street += 1
        self.board.extend(cards)
        self.seen.update(cards)
        self.log.append(ev.BoardDealt(self.street, cards))
        self._start_betting()

    # ------------------------------------------------------------------ betting rounds

    def _start_betting(self) -> None:
        """Open the betting round of the current street, or skip it if nobody can bet.

        The players still to act are a queue: it starts at the opener and, after a
        bet or raise, holds everyone else with chips behind, in turn from the raiser.
        """
        n = self.n
        cfg = self.config
        if self.street:
            self.bets = [0] * n
            self.current_bet = 0
            opener = 0
        else:
            blinds = cfg.blinds_or_straddles
            bets = self.bets
            # The opener sits after the largest positional blind (ties: the later seat).
            top = max(range(n), key=lambda i: (bets[i] if blinds[i] else 0, i))
            opener = (top + 1) % n
        if self.variant.betting is Betting.FIXED_LIMIT:
            self.street_min = cfg.small_bet if self.street < 2 else cfg.big_bet
        else:
            self.street_min = cfg.min_bet
        self.last_raise = 0
        self.bet_count = 0
        self.acted = set()
        self.short_all_ins = []
        self.last_aggressor = -1
        self.phase = Phase.BETTING
        totals = sorted(self.bets[i] + self.stacks[i] for i in range(n) if not self.folded[i])
        second = totals[-2]
        queue = []
        for k in range(n):
            i = (opener + k) % n
            # Skip the folded, the all-in, and anyone already covered (nothing left to risk).
            if not self.folded[i] and self.stacks[i] and second > self.bets[i]:
                queue.append(i)
        self.to_act = queue
        if not queue or (len(queue) == 1 and self.bets[queue[0]] >= self.current_bet):
            self._end_betting_round()
        else:
            self.actor = queue[0]

    def _after_action(self) -> None:
        """Pass the turn on, or close the round when nobody is left to act."""
        queue = self.to_act
        if not queue or self.live <= 1:
            self._end_betting_round()
        else:
            self.actor = queue[0]

    def _live_count(self) -> int:
        return self.live

    def _end_betting_round(self) -> None:
        """Close the round: return an uncalled bet, then a showdown, the next street or the end.

        Once no more betting is possible (the last round is over, or at most one
        live player has chips behind), hands are shown before the rest of the
        board is dealt, as in PHH histories.
        """
        self.actor = -1
        self._return_uncalled()
        if self._live_count() == 1:
            self._finish()
            return
        last_street = self.street == len(self.variant.board_deals) - 1
        if not self.showdown_done and (last_street or not self._more_betting_possible()):
            self.phase = Phase.SHOWDOWN
            if self.deck is not None:
                self.resolve_showdown()
            return
        self._next_street_or_finish()

    def _more_betting_possible(self) -> bool:
        able = 0
        for i in range(self.n):
            if not self.folded[i] and self.stacks[i] > 0:
                able += 1
        return able > 1

    def _next_street_or_finish(self) -> None:
        if self.street == len(self.variant.board_deals) - 1:
            self._finish()
            return
        self.phase = Phase.DEAL_BOARD
        if self.deck is not None:
            deck = self.deck
            self._give_board(
                tuple(deck.pop() for _ in range(self.variant.board_deals[self.street + 1]))
            )

    def _return_uncalled(self) -> None:
        """Give back the part of the largest bet that nobody matched."""
        bets = self.bets
        top = max(bets)
        if top == 0:
            return
        leader = bets.index(top)
        second = max(b for i, b in enumerate(bets) if i != leader)
        if top > second:
            excess = top - second
            bets[leader] -= excess
            self.contrib[leader] -= excess
            self.stacks[leader] += excess
            self.log.append(ev.BetReturned(leader, excess))

    # ------------------------------------------------------------------ checks shared by actions

    def _check_player(self, player: int) -> None:
        if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < self.n:
            raise EngineError(errors.UNKNOWN_PLAYER, f"no player {player!r} in this hand")

    def _check_turn(self, player: int) -> None:
        if self.phase is not Phase.BETTING:
            if self.phase is Phase.OVER:
                raise EngineError(errors.HAND_OVER, "the hand is over")
            raise EngineError(errors.NOT_BETTING, "no betting round is open")
        self._check_player(player)
        if player != self.actor:
            raise EngineError(errors.NOT_YOUR_TURN, f"it is player {self.actor}'s turn")

    # ------------------------------------------------------------------ fold

    def verify_fold(self, player: int) -> None:
        """Raise unless `player` may fold now (only when facing a bet)."""
        self._check_turn(player)
        if self.bets[player] >= self.current_bet:
            raise EngineError(errors.FOLD_NOT_NEEDED, "checking is free; fold is not needed")

    def can_fold(self, player: int) -> bool:
        """Whether `player` may fold now."""
        return (
            self.phase is Phase.BETTING
            and player == self.actor
            and self.bets[player] < self.current_bet
        )

    def fold(self, player: int) -> None:
        """Fold: the player gives up the hand and what they have put in."""
        self.verify_fold(player)
        self.to_act.pop(0)
        self.acted.add(player)
        self.folded[player] = True
        self.live -= 1
        self.log.append(ev.Folded(player))
        self._after_action()

    # ------------------------------------------------------------------ check or call

    def verify_check_or_call(self, player: int) -> None:
        """Raise unless `player` may check or call now."""
        self._check_turn(player)

    def can_check_or_call(self, player: int) -> bool:
        """Whether `player` may check or call now."""
        return self.phase is Phase.BETTING and player == self.actor

    def call_amount(self, player: int) -> int:
        """What `player` must add to call (0 means a check; capped by the stack, C-9)."""
        owed = self.current_bet - self.bets[player]
        if owed <= 0:
            return 0
        stack = self.stacks[player]
        return owed if owed < stack else stack

    def check_or_call(self, player: int) -> None:
        """Check, or call the current bet (all-in for less if the stack is short)."""
        if type(player) is not int or player < 0 or player != self.actor:  # -1: no actor
            self.verify_check_or_call(player)
        amount = self.call_amount(player)
        if amount:
            self.stacks[player] -= amount
            self.bets[player] += amount
            self.contrib[player] += amount
        self.to_act.pop(0)
        self.acted.add(player)
        self.log.append(ev.CheckedOrCalled(player, amount))
        self._after_action()

    # ------------------------------------------------------------------ bet or raise

    def raise_bounds(self, player: int) -> tuple[int, int] | None:
        """The smallest and largest legal bet-or-raise totals for `player`, or None if none."""
        if self.phase is not Phase.BETTING or player != self.actor:
            return None
        return self._raise_bounds(player) if self._raise_refusal(player) is None else None

    def _raise_refusal(self, player: int) -> EngineError | None:
        """Why `player` (whose turn it is) may not bet or raise at all, or None if they may."""
        bets = self.bets
        current = self.current_bet
        owed = self.call_amount(player)
        if owed < self.last_raise:
            return EngineError(errors.RAISE_NOT_REOPENED, "a short all-in cannot be raised")
        cap = self.config.max_bets_per_street
        if (
            self.variant.betting is Betting.FIXED_LIMIT
            and cap is not None
            and self.bet_count >= cap
        ):
            return EngineError(errors.BETTING_CAPPED, "the betting is capped on this street")
        if (
            self.short_all_ins
            and sum(self.short_all_ins) < self.last_raise
            and player in self.acted
        ):
            return EngineError(
                errors.RAISE_NOT_REOPENED, "a short all-in did not reopen the betting"
            )
        if self.stacks[player] <= current - bets[player]:
            return EngineError(errors.INSUFFICIENT_CHIPS, "not enough chips to raise; call all-in")
        for i in range(self.n):
            if i != player and not self.folded[i] and self.stacks[i] + bets[i] > current:
                return None
        return EngineError(errors.NOTHING_TO_RAISE, "every other player is all-in or covered")

    def _raise_bounds(self, player: int) -> tuple[int, int]:
        bets = self.bets
        current = self.current_bet
        all_in_to = bets[player] + self.stacks[player]
        low = (self.last_raise if self.last_raise > self.street_min else self.street_min) + current
        if low > all_in_to:
            low = all_in_to
        betting = self.variant.betting
        if betting is Betting.NO_LIMIT:
            return low, all_in_to
        if betting is Betting.FIXED_LIMIT:
            return low, low
        pot_to = 2 * current - bets[player] + sum(self.contrib)
        high = pot_to if pot_to > low else low
        return low, high if high < all_in_to else all_in_to

    def verify_bet_or_raise(self, player: int, to: int) -> None:
        """Raise unless `player` may make their bet this round total `to` chips."""
        self._check_turn(player)
        if not isinstance(to, int) or isinstance(to, bool) or to <= 0:
            raise EngineError(errors.INVALID_AMOUNT, f"{to!r} is not a positive whole amount")
        refusal = self._raise_refusal(player)
        if refusal is not None:
            raise refusal
        low, high = self._raise_bounds(player)
        if to > self.bets[player] + self.stacks[player]:
            raise EngineError(errors.INSUFFICIENT_CHIPS, f"only {self.stacks[player]} chips behind")
        if to < low:
            if self.variant.betting is Betting.FIXED_LIMIT:
                raise EngineError(errors.NOT_FIXED_LIMIT_SIZE, f"the bet must be to {low}")
            raise EngineError(errors.BELOW_MIN_RAISE, f"the minimum is to {low}")
        if to > high:
            if self.variant.betting is Betting.POT_LIMIT:
                raise EngineError(errors.ABOVE_POT_LIMIT, f"the pot limit is to {high}")
            raise EngineError(errors.NOT_FIXED_LIMIT_SIZE, f"the bet must be to {high}")

    def can_bet_or_raise(self, player: int, to: int | None = None) -> bool:
        """Whether `player` may bet or raise now (to `to`, if given)."""
        if to is None:
            return self.raise_bounds(player) is not None
        try:
            self.verify_bet_or_raise(player, to)
        except EngineError:
            return False
        return True

    def bet_or_raise(self, player: int, to: int) -> None:
        """Bet or raise so that the player's bet this round totals `to`.

        A raise of at least the last full raise reopens the betting to everyone; a
        short all-in does not, unless short all-ins in a row add up to a full raise.
        """
        self.verify_bet_or_raise(player, to)
        n = self.n
        added = to - self.bets[player]
        self.stacks[player] -= added
        self.bets[player] = to
        self.contrib[player] += added
        increment = to - self.current_bet
        self.current_bet = to
        stacks = self.stacks
        folded = self.folded
        self.to_act = [
            i for i in ((player + k) % n for k in range(1, n)) if not folded[i] and stacks[i]
        ]
        if increment >= self.last_raise:
            self.acted = {player}
        else:
            self.acted.add(player)
        if increment > self.last_raise:
            self.last_raise = increment
        self.bet_count += 1
        if stacks[player]:
            self.short_all_ins = []
        else:
            self.short_all_ins.append(increment)
        if sum(self.short_all_ins) >= self.last_raise:
            self.short_all_ins = []
        self.last_aggressor = player
        self.log.append(ev.BetOrRaised(player, to, added, stacks[player] == 0))
        self._after_action()

    # ------------------------------------------------------------------ moving on

    def legal_actions(self, player: int) -> LegalActions | None:
        """What `player` may do now, or None if it is not their turn."""
        bounds = self.raise_bounds(player)
        if self.phase is not Phase.BETTING or player != self.actor:
            return None
        return LegalActions(
            player=player,
            can_fold=self.bets[player] < self.current_bet,
            call_amount=self.call_amount(player),
            min_raise_to=bounds[0] if bounds else None,
            max_raise_to=bounds[1] if bounds else None,
        )

    # ------------------------------------------------------------------ showdown

    def _in_showdown(self) -> list[int]:
        return [i for i in range(self.n) if not self.folded[i]]

    def verify_show(self, player: int, cards: tuple[str, ...] | None = None) -> None:
        """Raise unless `player` may show (the cards they hold, if `cards` is given)."""
        self._verify_showdown_turn(player)
        if cards is not None and tuple(cards) != self.holes[player]:
            raise EngineError(errors.BAD_CARDS, "those are not the player's hole cards")

    def _verify_showdown_turn(self, player: int) -> None:
        if self.phase is Phase.OVER:
            raise EngineError(errors.HAND_OVER, "the hand is over")
        if self.phase is not Phase.SHOWDOWN:
            raise EngineError(errors.NOT_SHOWDOWN, "there is no showdown now")
        self._check_player(player)
        if self.folded[player] or player in self.shown or player in self.mucked:
            raise EngineError(errors.ALREADY_SHOWN, f"player {player} has nothing left to show")

    def show(self, player: int, cards: tuple[str, ...] | None = None) -> None:
        """Show a hand at showdown."""
        self.verify_show(player, cards)
        self._show(player)
        self._maybe_end_showdown()

    def _show(self, player: int) -> None:
        hole = self.holes[player]
        assert hole is not None
        self.shown.add(player)
        self.log.append(ev.HandShown(player, hole))

    def muck(self, player: int) -> None:
        """Throw a hand away unseen at showdown; it can win nothing."""
        self._verify_showdown_turn(player)
        self.mucked.add(player)
        self.log.append(ev.HandMucked(player))
        self._maybe_end_showdown()

    def _maybe_end_showdown(self) -> None:
        if all(i in self.shown or i in self.mucked for i in self._in_showdown()):
            self.showdown_done = True
            self._next_street_or_finish()

    def showdown_order(self) -> list[int]:
        """Who shows first: the last aggressor of the last round, then clockwise."""
        start = self.last_aggressor if self.last_aggressor >= 0 else 0
        order = [(start + k) % self.n for k in range(self.n)]
        return [i for i in order if not self.folded[i]]

    def resolve_showdown(self) -> None:
        """Show or muck every remaining hand in order: a hand shows if it can still win a pot.

        When the board is not complete (a player is all-in), every hand is shown.
        """
        if self.phase is not Phase.SHOWDOWN:
            raise EngineError(errors.NOT_SHOWDOWN, "there is no showdown now")
        order = [i for i in self.showdown_order() if i not in self.shown and i not in self.mucked]
        if self.street < len(self.variant.board_deals) - 1:
            for i in order:
                self._show(i)
        else:
            pots = self._pots()
            best_shown: dict[int, int] = {}  # pot index -> best rank shown so far
            for i in order:
                rank = self._rank(i)
                eligible = [k for k, pot in enumerate(pots) if i in pot.eligible]
                if any(k not in best_shown or rank <= best_shown[k] for k in eligible):
                    self._show(i)
                    for k in eligible:
                        if k not in best_shown or rank < best_shown[k]:
                            best_shown[k] = rank
                else:
                    self.mucked.add(i)
                    self.log.append(ev.HandMucked(i))
        self._maybe_end_showdown()

    def _pots(self) -> list[SidePot]:
        """The main pot (with all dead money) and side pots, from the bets made.

        Betting is over when this is asked, so the answer is kept for the award.
        """
        if self._pot_cache is None:
            dead = self.dead
            bets = [c - d for c, d in zip(self.contrib, dead, strict=True)]
            self._pot_cache = build_pots(bets, [not f for f in self.folded], sum(dead))
        return self._pot_cache

    def _rank(self, player: int) -> int:
        """The player's hand rank on the final board, computed once per player."""
        rank = self._ranks.get(player)
        if rank is None:
            hole = self.holes[player]
            assert hole is not None
            rank = self._ranks[player] = rank_hand(self.variant.omaha, hole, tuple(self.board))
        return rank

    # ------------------------------------------------------------------ the end

    def _finish(self) -> None:
        """Rake and award every pot, then close the hand (C-5, C-11)."""
        self.phase = Phase.OVER
        self.actor = -1
        live = [not f for f in self.folded]
        contrib = self.contrib
        cfg = self.config
        rake = 0
        if cfg.rake_bps and (self.street > 0 or cfg.rake_without_flop):  # no flop, no drop
            rake = rake_for(sum(contrib), cfg.rake_bps, cfg.rake_cap)
        pots = self._pots()
        pot_rakes = apportion(rake, [p.amount for p in pots]) if rake else [0] * len(pots)
        ranks: dict[int, int] = {}
        if self._live_count() > 1:
            for i in range(self.n):
                if live[i] and i not in self.mucked:
                    ranks[i] = self._rank(i)
        for index, (pot, pot_rake) in enumerate(zip(pots, pot_rakes, strict=True)):
            contenders = [i for i in pot.eligible if i in ranks]
            if len(contenders) > 1:
                best = min(ranks[i] for i in contenders)
                winners = [i for i in contenders if ranks[i] == best]
            else:
                # One contender, or everyone eligible mucked: the first eligible takes it.
                winners = contenders or list(pot.eligible[:1])
            shares = split_evenly(pot.amount - pot_rake, self._odd_chip_order(winners))
            for w, amount in shares.items():
                self.stacks[w] += amount
            self.log.append(
                ev.PotAwarded(index, pot.amount, pot_rake, tuple(sorted(shares.items())))
            )
        rake_by_player = tuple(apportion(rake, contrib)) if rake else (0,) * self.n
        self.log.append(ev.HandEnded(tuple(self.stacks), rake, rake_by_player))

    def _odd_chip_order(self, winners: list[int]) -> list[int]:
        """Winners ordered from the first seat left of the button (C-5)."""
        return sorted(winners)

    # ------------------------------------------------------------------ views

    @property
    def is_over(self) -> bool:
        """Whether the hand has ended."""
        return self.phase is Phase.OVER

    def pot_total(self) -> int:
        """All chips put in so far, bets of the current round included."""
        return sum(self.contrib)
