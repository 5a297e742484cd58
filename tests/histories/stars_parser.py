"""PokerKit's PokerStars parser as the independent reader of our exported text.

PokerKit 0.7.7 reads no ante lines (its `ANTE_POSTING` matches nothing) and has no dead money:
`RoomStarsParser` adds the ante line PokerStars writes (`X: posts the ante 2`) and reads
`X: posts small & big blinds $0.03` (C-4) as what it is, the big blind live (a post) and the
small blind dead (an ante of that player: in the pot, not part of the bet). Everything else
(seats, button, blinds and entry posts, streets, actions, shows) is PokerKit's own reading.
PokerKit rakes nothing: `final_stacks` returns its stacks and the rake line's amount, and
`assert_same_result` checks that the rake is exactly what the winners are short of.
"""

from __future__ import annotations

import re
import warnings
from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal

from pokerkit import HandHistory
from pokerkit.notation import PokerStarsParser

DEAD_AND_LIVE = re.compile(r"(?P<player>.+): posts small & big blinds \D?(?P<amount>[0-9.]+)")
STAKES = re.compile(r"\((?P<sb>\D?[0-9.]+)/(?P<bb>\D?[0-9.]+)")
SIDE_POT = re.compile(r"(?:Main|Side) pot(?:-\d+)? ")
COLLECTORS = re.compile(r"^(?P<player>.+) collected (?P<amount>\S+) from", re.MULTILINE)
RAKE = re.compile(r"\| Rake \D?(?P<rake>[0-9.]+)")


def cents(text: str) -> int:
    """A PokerStars amount ($1.25, 1.25, 300) as an int of the smallest unit."""
    return int(Decimal(text.lstrip("$€£")) * 100)


def chips(text: str) -> int:
    """A tournament amount: chips."""
    return int(text)


class RoomStarsParser(PokerStarsParser):
    """PokerKit's parser with the ante and dead-blind lines it leaves out."""

    ANTE_POSTING = re.compile(r"(?P<player>.+): posts the ante \D?(?P<ante>[0-9.]+)")

    def _small_blind(self, s: str, parse_value: Callable[[str], int]) -> int:
        m = STAKES.search(s)
        assert m is not None, "no stakes in the header"
        return parse_value(m["sb"].lstrip("$€£"))

    def _parse_antes(self, s: str, parse_value: Callable[[str], int]) -> defaultdict[str, int]:
        antes = super()._parse_antes(s, parse_value)
        for line in s.splitlines():
            if m := DEAD_AND_LIVE.search(line):
                antes[m["player"]] += self._small_blind(s, parse_value)
        return antes

    def _parse_blinds_or_straddles(
        self, s: str, parse_value: Callable[[str], int]
    ) -> defaultdict[str, int]:
        blinds = super()._parse_blinds_or_straddles(s, parse_value)
        for line in s.splitlines():
            if m := DEAD_AND_LIVE.search(line):
                blinds[m["player"]] = parse_value(m["amount"]) - self._small_blind(s, parse_value)
        return blinds

    def _parse_players(self, s: str) -> set[str]:
        players = super()._parse_players(s)
        for line in s.splitlines():
            if m := DEAD_AND_LIVE.search(line):
                players.add(m["player"])
        return players


def parse(text: str, parse_value: Callable[[str], int] = cents) -> list[HandHistory]:
    """Every hand of a PokerStars text, as PokerKit reads it; any hand it cannot read fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns about fields it does not know
        hands = list(RoomStarsParser()(text, parse_value=parse_value, error_status=True))
    return hands


def final_stacks(hand: HandHistory) -> dict[str, int]:
    """Each player's stack at the end of PokerKit's replay of the hand (unraked)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = tuple(hand)[-1]
    assert hand.players is not None
    return dict(zip(hand.players, state.stacks, strict=True))


def assert_same_result(
    text: str, ours: dict[str, int], parse_value: Callable[[str], int] = cents
) -> None:
    """PokerKit's replay of one exported hand ends where ours did, the rake aside: players
    PokerKit pays more are the winners, and by exactly the rake line's amount in all."""
    hands = parse(text, parse_value)
    assert len(hands) == 1, text
    theirs = final_stacks(hands[0])
    assert set(theirs) == set(ours), (theirs, ours, text)
    m = RAKE.search(text)
    assert m is not None, text
    rake = parse_value(m["rake"])
    short = {p: theirs[p] - ours[p] for p in ours if theirs[p] != ours[p]}
    assert sum(short.values()) == rake, (short, rake, text)
    if any(v < 0 for v in short.values()):
        # C-5: a tied pot's odd chips go to the winners nearest the button's left; PokerKit
        # hands them out its own way. Only winners of a split pot may differ, by odd chips.
        pots = SIDE_POT.findall(text) or ["pot"]
        split = [p for p, n in COLLECTORS.findall(text)]
        assert all(p in split for p in short), (short, text)
        assert max(split.count(p) for p in split) <= len(pots), text
        assert all(abs(v) <= len(pots) + rake for v in short.values()), (short, text)
