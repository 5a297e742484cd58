"""PokerStars-style text of a stored hand record, the format poker trackers import.

Why here, in the engine: the input is a hand record the engine writes (`phh.history_fields`
plus the table's underscore fields below) and the text is made by replaying it through the
engine (`Hand`), so the formatter needs nothing but the engine; being pure (no I/O, no clock,
`tests/test_purity.py` checks it) it serves the lobby, the CLI and tests alike, cash and
tournament tables alike, as `phh.py` does.

The record is the PHH fields (`variant`, `antes`, `blinds_or_straddles`, `starting_stacks`,
`actions`, `players`, `seats`, `seat_count`, `currency`, `finishing_stacks`) and, where the table
stored them, fields PHH has no word for (in the order of `players`, the engine's order):
`_button` (seat), `_small_blind`, `_big_blind`, `_live_posts` and `_dead_posts` (C-2, C-4),
`_rake_bps`, `_rake_cap`, `_rake_without_flop` (C-11), `_started_at_ms`, `_hand_id`,
`_table_id`; a tournament hand has `_tournament_id`, `_buy_in`, `_fee`, `_buy_in_currency` and
`_level` (1-based) and is written in chips. A record is replayed with all of these and must end
with its `finishing_stacks`, else `bad_history`: the text never tells a result the room did not
pay.

C-15: hole cards are written for the `viewer` only (`Dealt to`, and their own mucked hand in the
summary), and for every player when `every_card` is set (staff audits); anybody's cards that
were shown down are public.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from pokerroom.engine import errors
from pokerroom.engine import events as ev
from pokerroom.engine.errors import EngineError
from pokerroom.engine.evaluation import rank_hand
from pokerroom.engine.hand import Hand, Phase
from pokerroom.engine.phh import HandHistory
from pokerroom.engine.pokerstars_terms import hand_name, money, roman, stamps, stars_number
from pokerroom.engine.replay import apply_action, config_from_history
from pokerroom.engine.variants import Betting

GAMES = {"NT": "Hold'em No Limit", "PO": "Omaha Pot Limit", "FT": "Hold'em Limit"}
STREETS = ("before Flop", "on the Flop", "on the Turn", "on the River")
#: Between two hands of one file: PokerStars leaves three empty lines.
SEPARATOR = "\n\n\n"


def replay_record(fields: Mapping[str, Any]) -> Hand:
    """Replay a stored record with its posts and rake; `bad_history` unless it ends with the
    record's `finishing_stacks`."""
    history = HandHistory("hand", dict(fields))
    if any("??" in action for action in history.actions):
        raise EngineError(errors.BAD_HISTORY, "a masked record: format the stored one")
    config = config_from_history(history)
    config = replace(
        config,
        live_posts=tuple(fields.get("_live_posts") or ()),
        dead_posts=tuple(fields.get("_dead_posts") or ()),
        rake_bps=int(fields.get("_rake_bps", 0)),
        rake_cap=int(fields.get("_rake_cap", 0)),
        rake_without_flop=bool(fields.get("_rake_without_flop", False)),
    )
    hand = Hand(config)
    for action in history.actions:
        apply_action(hand, action)
    if hand.phase is Phase.SHOWDOWN:
        hand.resolve_showdown()
    if not hand.is_over:
        raise EngineError(errors.INCOMPLETE_HAND, "the record ends before the hand does")
    finishing = fields.get("finishing_stacks")
    if finishing is not None and list(hand.stacks) != list(finishing):
        raise EngineError(errors.BAD_HISTORY, "the record does not replay to its final stacks")
    return hand


@dataclass(frozen=True, slots=True)
class _Table:
    """Who sits where in one record, and how its amounts are written."""

    names: tuple[str, ...]
    seats: tuple[int, ...]
    button: int
    small: int | None  # engine index of the small blind, if one was posted
    big: int | None
    currency: str | None  # None: tournament chips

    def m(self, amount: int) -> str:
        return money(amount, self.currency)


def _positions(blinds: tuple[int, ...]) -> tuple[int | None, int | None]:
    """(small, big) engine indexes: heads-up index 0 is the big blind and 1 the button."""
    if len(blinds) == 2:
        return (1 if blinds[1] else None), (0 if blinds[0] else None)
    posted = [i for i, b in enumerate(blinds) if b]
    if not posted:
        return None, None
    return (posted[0] if len(posted) > 1 else None), posted[-1]


def _table(fields: Mapping[str, Any], hand: Hand) -> _Table:
    n = hand.config.player_count
    names = tuple(str(p) for p in fields.get("players") or [f"p{i + 1}" for i in range(n)])
    seats = tuple(int(s) for s in fields.get("seats") or range(1, n + 1))
    default_button = seats[1] if n == 2 else seats[-1]  # the engine's order ends on the button
    small, big = _positions(hand.config.blinds_or_straddles)
    currency = None if "_tournament_id" in fields else str(fields.get("currency", "USD"))
    return _Table(names, seats, int(fields.get("_button", default_button)), small, big, currency)


def _header(fields: Mapping[str, Any], hand: Hand, table: _Table, started_ms: int) -> list[str]:
    cfg = hand.config
    code = cfg.variant.code
    game = GAMES.get(code)
    if game is None:
        raise EngineError(errors.UNSUPPORTED_VARIANT, f"no PokerStars name for {code!r}")
    big = int(fields.get("_big_blind") or max(cfg.blinds_or_straddles))
    small = int(fields.get("_small_blind") or min(b for b in cfg.blinds_or_straddles if b) or big)
    number = stars_number(str(fields.get("_hand_id") or fields.get("hand", 0)))
    table_name = str(fields.get("_table_id") or fields.get("table") or "1")
    when = stamps(started_ms)
    if table.currency is None:
        tournament = stars_number(str(fields["_tournament_id"]))
        buy_in, fee = int(fields.get("_buy_in", 0)), int(fields.get("_fee", 0))
        cur = str(fields.get("_buy_in_currency", "USD"))
        entry = f"{money(buy_in, cur)}+{money(fee, cur)} {cur}" if buy_in or fee else "Freeroll"
        level = roman(int(fields.get("_level", 1)))
        first = (
            f"PokerStars Hand #{number}: Tournament #{tournament}, {entry} {game}"
            f" - Level {level} ({small}/{big}) - {when}"
        )
        table_name = f"{tournament} {table_name}"
    else:
        if cfg.variant.betting is Betting.FIXED_LIMIT:
            small, big = cfg.small_bet, cfg.big_bet  # limit games name their bet sizes
        first = (
            f"PokerStars Hand #{number}:  {game}"
            f" ({table.m(small)}/{table.m(big)} {table.currency}) - {when}"
        )
    seat_count = int(fields.get("seat_count", max(table.seats)))
    return [first, f"Table '{table_name}' {seat_count}-max Seat #{table.button} is the button"]


def format_hand(
    fields: Mapping[str, Any],
    *,
    viewer: str | None = None,
    every_card: bool = False,
    started_at_ms: int | None = None,
) -> str:
    """One hand as PokerStars text; hole cards only for `viewer` (or all, `every_card`),
    shown hands for everyone (C-15). `started_at_ms` stands in for a record without
    `_started_at_ms`."""
    hand = replay_record(fields)
    table = _table(fields, hand)
    started = int(fields.get("_started_at_ms") or started_at_ms or 0)
    lines = _header(fields, hand, table, started)
    for i in sorted(range(len(table.names)), key=lambda i: table.seats[i]):
        stack = hand.config.starting_stacks[i]
        lines.append(f"Seat {table.seats[i]}: {table.names[i]} ({table.m(stack)} in chips)")
    lines.extend(_Play(hand, table, viewer, every_card).lines())
    return "\n".join(lines) + "\n"


def format_hands(records: Iterable[str], separator: str = SEPARATOR) -> str:
    """Hands already formatted, as one file trackers read."""
    return separator.join(records)


class _Play:
    """Walks the replayed hand's log once and writes the posts, streets and summary."""

    def __init__(self, hand: Hand, table: _Table, viewer: str | None, every_card: bool) -> None:
        self.hand = hand
        self.t = table
        self.n = hand.config.player_count
        self.sees = [every_card or name == viewer for name in table.names]
        self.stacks = list(hand.config.starting_stacks)
        self.bets = [0] * self.n
        self.paid = [0] * self.n  # blinds, posts and bets: "didn't bet" when nothing
        self.street = 0
        self.board: list[str] = []
        self.folded: dict[int, int] = {}  # player -> street folded on
        self.shown: dict[int, tuple[str, ...]] = {}
        self.mucked: set[int] = set()
        self.pots: list[ev.PotAwarded] = []

    def _all_in(self, i: int) -> str:
        return " and is all-in" if self.stacks[i] == 0 else ""

    def lines(self) -> list[str]:
        """Every line after the seats."""
        out: list[str] = []
        log = self.hand.log
        first_hole = next(k for k, e in enumerate(log) if type(e) is ev.HoleDealt)
        out.extend(self._posts(log[:first_hole]))
        out.append("*** HOLE CARDS ***")
        showdown: list[int] = []  # who showed or mucked, in order
        for event in log[first_hole:]:
            out.extend(self._event(event, showdown))
        if showdown:
            out.append("*** SHOW DOWN ***")
            for i in showdown:
                if i in self.shown:
                    cards = " ".join(self.shown[i])
                    out.append(f"{self.t.names[i]}: shows [{cards}] ({self._desc(i)})")
                else:
                    out.append(f"{self.t.names[i]}: mucks hand")
        out.extend(self._collected())
        out.extend(self._summary())
        return out

    def _posts(self, events: list[ev.Event]) -> list[str]:
        names, m = self.t.names, self.t.m
        out = []
        dead = [0] * self.n
        first = (self.t.small, self.t.big)  # PokerStars: the small blind posts first
        events = sorted(
            events,
            key=lambda e: (
                type(e) is not ev.AntePosted,
                type(e) is ev.BlindPosted and e.player not in first,
                type(e) is ev.BlindPosted and e.player != self.t.small,
            ),
        )
        for event in events:
            match event:
                case ev.AntePosted(player=i, amount=a):
                    self.stacks[i] -= a
                    out.append(f"{names[i]}: posts the ante {m(a)}{self._all_in(i)}")
                case ev.DeadPosted(player=i, amount=a):
                    self.stacks[i] -= a
                    self.paid[i] += a
                    dead[i] = a
                case ev.BlindPosted(player=i, amount=a):
                    self.stacks[i] -= a
                    self.paid[i] += a
                    self.bets[i] = a
                    if dead[i]:
                        what, a = "small & big blinds", a + dead[i]
                        dead[i] = 0
                    else:
                        what = "small blind" if i == self.t.small else "big blind"
                    out.append(f"{names[i]}: posts {what} {m(a)}{self._all_in(i)}")
        for i, a in enumerate(dead):
            if a:  # a dead post without a live one
                out.append(f"{names[i]}: posts small blind {m(a)}{self._all_in(i)}")
        return out

    def _event(self, event: ev.Event, showdown: list[int]) -> list[str]:
        names, m = self.t.names, self.t.m
        match event:
            case ev.HoleDealt(player=i, cards=cards):
                if self.sees[i]:
                    return [f"Dealt to {names[i]} [{' '.join(cards)}]"]
            case ev.BoardDealt(street=street, cards=cards):
                return [self._street(street, cards)]
            case ev.Folded(player=i):
                self.folded[i] = self.street
                return [f"{names[i]}: folds"]
            case ev.CheckedOrCalled(player=i, amount=a):
                if not a:
                    return [f"{names[i]}: checks"]
                self.stacks[i] -= a
                self.paid[i] += a
                self.bets[i] += a
                return [f"{names[i]}: calls {m(a)}{self._all_in(i)}"]
            case ev.BetOrRaised(player=i, to=to, added=added):
                top = max(self.bets)
                self.stacks[i] -= added
                self.paid[i] += added
                self.bets[i] = to
                if top == 0:
                    return [f"{names[i]}: bets {m(to)}{self._all_in(i)}"]
                return [f"{names[i]}: raises {m(to - top)} to {m(to)}{self._all_in(i)}"]
            case ev.BetReturned(player=i, amount=a):
                self.stacks[i] += a
                self.bets[i] -= a
                return [f"Uncalled bet ({m(a)}) returned to {names[i]}"]
            case ev.HandShown(player=i, cards=cards):
                self.shown[i] = cards
                showdown.append(i)
            case ev.HandMucked(player=i):
                self.mucked.add(i)
                showdown.append(i)
            case ev.PotAwarded():
                self.pots.append(event)
            case _:
                pass
        return []

    def _street(self, street: int, cards: tuple[str, ...]) -> str:
        self.street = street
        self.bets = [0] * self.n
        before = " ".join(self.board)
        self.board.extend(cards)
        new = " ".join(cards)
        if street == 1:
            return f"*** FLOP *** [{new}]"
        return f"*** {'TURN' if street == 2 else 'RIVER'} *** [{before}] [{new}]"

    def _desc(self, i: int) -> str:
        if len(self.board) < 3:
            return "a hand"
        return hand_name(
            rank_hand(self.hand.config.variant.omaha, self.shown[i], tuple(self.board))
        )

    def _pot_label(self, index: int) -> str:
        if len(self.pots) == 1:
            return "pot"
        if index == 0:
            return "main pot"
        return "side pot" if len(self.pots) == 2 else f"side pot-{index}"

    def _collected(self) -> list[str]:
        out = []
        for pot in reversed(self.pots):
            for i, share in pot.shares:
                if share:
                    label = self._pot_label(pot.pot)
                    out.append(f"{self.t.names[i]} collected {self.t.m(share)} from {label}")
        return out

    def _summary(self) -> list[str]:
        m, t = self.t.m, self.t
        total = sum(p.amount for p in self.pots)
        rake = sum(p.rake for p in self.pots)
        pots = ""
        if len(self.pots) > 1:
            pots = "".join(
                f" {self._pot_label(p.pot).capitalize()} {m(p.amount - p.rake)}." for p in self.pots
            )
        out = ["*** SUMMARY ***", f"Total pot {m(total)}{pots} | Rake {m(rake)}"]
        if self.board:
            out.append(f"Board [{' '.join(self.board)}]")
        won = [0] * self.n
        for pot in self.pots:
            for i, share in pot.shares:
                won[i] += share
        for i in sorted(range(self.n), key=lambda i: t.seats[i]):
            out.append(f"Seat {t.seats[i]}: {t.names[i]}{self._tags(i)} {self._result(i, won[i])}")
        return out

    def _tags(self, i: int) -> str:
        tags = ""
        if self.t.seats[i] == self.t.button:
            tags += " (button)"
        if i == self.t.small:
            tags += " (small blind)"
        if i == self.t.big:
            tags += " (big blind)"
        return tags

    def _result(self, i: int, won: int) -> str:
        m = self.t.m
        if i in self.folded:
            street = self.folded[i]
            quiet = " (didn't bet)" if street == 0 and not self.paid[i] else ""
            return f"folded {STREETS[street]}{quiet}"
        if i in self.shown:
            cards = " ".join(self.shown[i])
            if won:
                return f"showed [{cards}] and won ({m(won)}) with {self._desc(i)}"
            return f"showed [{cards}] and lost with {self._desc(i)}"
        if i in self.mucked:
            hole = self.hand.holes[i]
            return f"mucked [{' '.join(hole)}]" if self.sees[i] and hole else "mucked"
        return f"collected ({m(won)})" if won else "mucked"
