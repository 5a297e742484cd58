"""Settling a blackjack round's boxes: against the dealer (BJ-7, BJ-8, BJ-13, BJ-15), or
cancelled (BJ-18 `void`, BJ-19 `partial`), also from the round's recorded progress.

`progress` is what a table records while a round is played (RNG-9, JSON-able, no card the
players have not seen: the hole card is not in it): each box with its hands, insurance and even
money, whether the dealer has shown a blackjack, the pay table and the cancel mode. After a
crash the round is cancelled from it (`cancel_recorded`, L-5): by K-6 a card or a decision
that was not recorded did not happen.

BJ-19, `partial`, hand by hand:

| hand | settles |
| --- | --- |
| surrendered | half back (BJ-13: a surrender stands) |
| 0 or 1 card | its stake back |
| blackjack | keeps its result: a push if the dealer has *shown* blackjack, else 3:2 (1) |
| busted | keeps its result: lost, doubles included |
| more than 2 cards, not busted | counts as a win, 1:1 on every stake of the hand (a double too) |
| 2 cards, not busted, not blackjack | its stake back **[unsourced]** |

(1) The hole card not yet shown is not looked at.

A box that took even money is paid 1:1 (it stands); every insurance stake is returned. The K-12
cap applies as to a settlement. `void` returns every stake.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from pokerroom.casino.core.blackjack_hand import Box, Hand, points
from pokerroom.casino.core.blackjack_rules import PARTIAL, BlackjackRules
from pokerroom.casino.core.cards import cards, names
from pokerroom.casino.core.money import winnings
from pokerroom.casino.core.results import HALF, LOSE, PUSH, WIN, BetLine, Settlement, settlement


def won(player: str, spot: str, stake: int, odds: Fraction) -> BetLine:
    """A winning line: the stake back plus the stake at `odds`, rounded down (K-16)."""
    return BetLine(player, spot, stake, WIN, stake + winnings(stake, odds))


def _back(player: str, spot: str, stake: int) -> BetLine:
    return BetLine(player, spot, stake, PUSH, stake)


def _spot(box: Box, index: int) -> str:
    return f"box:{box.number}" if index == 0 else f"box:{box.number}:split"


def settle_boxes(
    boxes: Sequence[Box], dealer: Sequence[int], rules: BlackjackRules, max_win: int | None
) -> Settlement:
    """Every stake's line against the dealer's hand: `box:N` (its first hand), `box:N:split`,
    `box:N:insurance` (BJ-6, BJ-7, BJ-8, BJ-13, BJ-15, K-12)."""
    pays = rules.pays
    lines: list[BetLine] = []
    dealer_bj = len(dealer) >= 2 and points(dealer[:2]) == 21
    dealer_total = points(dealer)
    for box in boxes:
        spot = f"box:{box.number}"
        if box.even_money:  # BJ-7
            lines.append(won(box.player, spot, box.stake, pays["even_money"]))
            continue
        if box.insurance:
            name = f"{spot}:insurance"
            if dealer_bj:
                lines.append(won(box.player, name, box.insurance, pays["insurance"]))
            else:
                lines.append(BetLine(box.player, name, box.insurance, LOSE, 0))
        for index, hand in enumerate(box.hands):
            lines.append(_hand_line(box, hand, index, rules, dealer_bj, dealer_total))
    return settlement(lines, max_win)


def _hand_line(
    box: Box, hand: Hand, index: int, rules: BlackjackRules, dealer_bj: bool, dealer_total: int
) -> BetLine:
    pays, name = rules.pays, _spot(box, index)
    stake = hand.stake + hand.doubled
    if hand.surrendered:  # BJ-13: half back, rounded down (K-16)
        return BetLine(box.player, name, stake, HALF, stake // 2)
    if hand.blackjack:
        if dealer_bj:
            return _back(box.player, name, stake)  # BJ-8
        return won(box.player, name, stake, pays["blackjack"])  # BJ-15: 3:2
    total = hand.total
    if total > 21:  # BJ-15: a bust loses whatever the dealer holds
        return BetLine(box.player, name, stake, LOSE, 0)
    if dealer_bj:  # BJ-8: a 21 of three cards loses too
        if rules.late_dealer_bj_takes == "original_only":
            extra = hand.doubled + (hand.stake if index else 0)  # doubles, the split stake
            return BetLine(box.player, name, stake, LOSE, extra)
        return BetLine(box.player, name, stake, LOSE, 0)
    if dealer_total > 21 or total > dealer_total:
        return won(box.player, name, stake, pays["win"])
    if total == dealer_total:
        return _back(box.player, name, stake)
    return BetLine(box.player, name, stake, LOSE, 0)


def cancel_boxes(
    boxes: Sequence[Box],
    dealer_bj_shown: bool,
    pays: Mapping[str, Fraction],
    mode: str,
    max_win: int | None,
) -> Settlement:
    """A cancelled round (module doc): every stake back (`void`, BJ-18) or BJ-19 (`partial`)."""
    partial = mode == PARTIAL
    lines: list[BetLine] = []
    for box in boxes:
        spot = f"box:{box.number}"
        if partial and box.even_money:  # BJ-19: even money stands
            lines.append(won(box.player, spot, box.stake, pays["even_money"]))
            continue
        if box.insurance:  # returned in both modes
            lines.append(_back(box.player, f"{spot}:insurance", box.insurance))
        for index, hand in enumerate(box.hands):
            name, stake = _spot(box, index), hand.stake + hand.doubled
            if not partial or len(hand.cards) <= 1:
                lines.append(_back(box.player, name, stake))
            elif hand.surrendered:  # stands
                lines.append(BetLine(box.player, name, stake, HALF, stake // 2))
            elif hand.blackjack:  # keeps its result
                if dealer_bj_shown:
                    lines.append(_back(box.player, name, stake))
                else:
                    lines.append(won(box.player, name, stake, pays["blackjack"]))
            elif hand.total > 21:  # keeps its result
                lines.append(BetLine(box.player, name, stake, LOSE, 0))
            elif len(hand.cards) > 2:  # counts as a win
                lines.append(won(box.player, name, stake, pays["win"]))
            else:  # two cards, not busted: refunded [unsourced]
                lines.append(_back(box.player, name, stake))
    return settlement(lines, max_win)


def progress(
    boxes: Sequence[Box], dealer_bj_shown: bool, rules: BlackjackRules, moves: int
) -> dict[str, Any]:
    """The round's record while it is played (module doc); `moves` orders the records."""
    return {
        "moves": moves,
        "cancel_mode": rules.cancel_mode,
        "pays": {key: str(odds) for key, odds in sorted(rules.pays.items())},
        "dealer_blackjack_shown": dealer_bj_shown,
        "boxes": [
            {
                "box": box.number,
                "player": box.player,
                "stake": box.stake,
                "insurance": box.insurance,
                "even_money": box.even_money,
                "hands": [
                    {
                        "cards": names(hand.cards),
                        "stake": hand.stake,
                        "doubled": hand.doubled,
                        "from_split": hand.from_split,
                        "surrendered": hand.surrendered,
                    }
                    for hand in box.hands
                ],
            }
            for box in boxes
        ],
    }


def boxes_of(record: Mapping[str, Any]) -> list[Box]:
    """The boxes of a recorded progress."""
    return [
        Box(
            int(box["box"]),
            str(box["player"]),
            int(box["stake"]),
            [
                Hand(
                    list(cards(hand["cards"])),
                    int(hand["stake"]),
                    int(hand["doubled"]),
                    bool(hand["from_split"]),
                    True,
                    bool(hand["surrendered"]),
                )
                for hand in box["hands"]
            ],
            int(box["insurance"]),
            True,
            bool(box["even_money"]),
        )
        for box in record["boxes"]
    ]


def cancel_recorded(record: Mapping[str, Any], max_win: int | None) -> Settlement:
    """Cancel a round from its recorded progress, in the mode it was recorded with (L-5)."""
    pays = {key: Fraction(value) for key, value in record["pays"].items()}
    return cancel_boxes(
        boxes_of(record),
        bool(record["dealer_blackjack_shown"]),
        pays,
        str(record["cancel_mode"]),
        max_win,
    )
