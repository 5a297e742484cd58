"""The baccarat deal: card values, totals, naturals and the third-card tableau (B-3 … B-9).

`draw(shoe)` deals one coup strictly in deal order (B-5, RNG-6) and returns the outcome; the
bets are settled by `baccarat_bets.settle`. Pure: the shoe is the only input.
"""

from __future__ import annotations

from dataclasses import dataclass

from pokerroom.casino.core.cards import Shoe, rank

#: B-3: A = 1, 2-9 face value, 10/J/Q/K = 0; indexed by card (0…51).
VALUE: tuple[int, ...] = tuple(min(card // 4 + 1, 10) % 10 for card in range(52))

PLAYER, BANKER, TIE = "player", "banker", "tie"

#: B-8, exactly as the book's table: rows are the Banker's two-card total 0…7; the first column
#: is "Player stood", then the value of the Player's third card 0…9. D = draws, S = stands.
TABLEAU_TEXT = """
0 D D D D D D D D D D D
1 D D D D D D D D D D D
2 D D D D D D D D D D D
3 D D D D D D D D D S D
4 D S S D D D D D D S S
5 D S S S S D D D D S S
6 S S S S S S S D D S S
7 S S S S S S S S S S S
"""

STOOD = 10  # the column index of "Player stood" in BANKER_DRAWS rows


def _tableau() -> tuple[tuple[bool, ...], ...]:
    rows: list[tuple[bool, ...]] = []
    for text in TABLEAU_TEXT.strip().splitlines():
        total, stood, *by_third = text.split()
        assert int(total) == len(rows) and len(by_third) == 10
        rows.append((*(mark == "D" for mark in by_third), stood == "D"))
    return tuple(rows)


#: BANKER_DRAWS[banker_total][p3_value or STOOD] for banker totals 0…7 (B-8).
BANKER_DRAWS: tuple[tuple[bool, ...], ...] = _tableau()


def total(values: list[int] | tuple[int, ...]) -> int:
    """A hand's total: the last digit of the sum of its card values (B-4)."""
    return sum(VALUE[card] for card in values) % 10


def player_draws(player_total: int) -> bool:
    """B-7: with no natural, the Player draws on 0-5 and stands on 6-7."""
    return player_total <= 5


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """B-8: the Banker's draw on its two-card total and the Player's third card's value (B-3).

    `player_third` is None when the Player stood. Naturals (8, 9) are settled before (B-6).
    """
    if banker_total >= 8:
        return False
    return BANKER_DRAWS[banker_total][STOOD if player_third is None else player_third]


@dataclass(frozen=True, slots=True)
class BaccaratOutcome:
    """One coup: each hand's cards in deal order and its total (B-4, B-9)."""

    player: tuple[int, ...]
    banker: tuple[int, ...]
    player_total: int
    banker_total: int
    player_pair: bool  # B-13: the hand's first two cards are of the same rank
    banker_pair: bool

    @property
    def winner(self) -> str:
        """player, banker or tie (B-9)."""
        if self.player_total > self.banker_total:
            return PLAYER
        if self.banker_total > self.player_total:
            return BANKER
        return TIE

    @property
    def card_count(self) -> int:
        """Cards dealt in the coup, 4 … 6 (B-14 Big/Small)."""
        return len(self.player) + len(self.banker)


def outcome_of(player: tuple[int, ...], banker: tuple[int, ...]) -> BaccaratOutcome:
    """The outcome of two hands as dealt (used by tests and replays of a round record)."""
    return BaccaratOutcome(
        player,
        banker,
        total(player),
        total(banker),
        rank(player[0]) == rank(player[1]),
        rank(banker[0]) == rank(banker[1]),
    )


def draw(shoe: Shoe) -> BaccaratOutcome:
    """Deal one coup from `shoe` by the tableau (B-5 … B-8): P, B, P, B, then third cards."""
    deal = shoe.deal
    p1, b1, p2, b2 = deal(), deal(), deal(), deal()
    value = VALUE
    pt = (value[p1] + value[p2]) % 10
    bt = (value[b1] + value[b2]) % 10
    player: tuple[int, ...] = (p1, p2)
    banker: tuple[int, ...] = (b1, b2)
    if pt < 8 and bt < 8:  # B-6: a natural on either side stops the drawing
        if pt <= 5:  # B-7
            p3 = deal()
            third = value[p3]
            pt = (pt + third) % 10
            player = (p1, p2, p3)
            draws = BANKER_DRAWS[bt][third]
        else:
            draws = bt <= 5  # B-8, the Player stood
        if draws:
            b3 = deal()
            bt = (bt + value[b3]) % 10
            banker = (b1, b2, b3)
    return BaccaratOutcome(player, banker, pt, bt, p1 >> 2 == p2 >> 2, b1 >> 2 == b2 >> 2)
