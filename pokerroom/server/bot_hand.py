"""What a bot saw of a hand: the frames it followed, turned into a policy's `Situation`
(`pokerroom.table.bot_policy`), and every card list of a frame (the C-15 leak check).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pokerroom.table.bot_policy import Situation


def card_lists(value: object) -> list[list[str]]:
    """Every `cards` list anywhere inside a frame."""
    found: list[list[str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "cards" and isinstance(item, list):
                found.append([c for c in item if isinstance(c, str)])
            else:
                found += card_lists(item)
    elif isinstance(value, list):
        for item in value:
            found += card_lists(item)
    return found


@dataclass
class HandSeen:
    """One hand as a bot follows it from the frames: what a policy's `Situation` needs."""

    me: int | None = None  # own seat
    stack: int = 0  # own chips at the start of the hand
    big_blind: int = 0
    dealt: int = 0
    folded: int = 0
    pot: int = 0
    put_in: int = 0  # own chips in the pot
    hole: tuple[str, ...] = ()
    board: tuple[str, ...] = ()

    @classmethod
    def started(cls, frame: dict[str, Any], name: str) -> HandSeen:
        """A new hand from `hand_started`."""
        mine = next((s for s in frame["seats"] if s["player"] == name), None)
        return cls(
            me=mine["seat"] if mine else None,
            stack=mine["stack"] if mine else 0,
            big_blind=frame["blinds"][1],
            dealt=len(frame["seats"]),
        )

    def follow(self, frame: dict[str, Any]) -> None:
        """Count chips into the pot (posts, calls, bets, returns), folds, cards."""
        kind = frame["type"]
        added = 0
        if kind == "blind_posted":
            added = frame["amount"]
        elif kind == "player_acted":
            action = frame["action"]
            if action == "fold":
                self.folded += 1
            elif action == "call":
                added = frame["amount"] or 0
            elif action in ("bet", "raise"):
                added = frame.get("added") or 0
        elif kind == "pot_returned":
            added = -frame["amount"]
        elif kind == "board_dealt":
            self.board += tuple(frame["cards"])
        elif kind == "hole_cards":
            self.hole = tuple(frame["cards"])
        self.pot += added
        if frame.get("seat") == self.me and self.me is not None:
            self.put_in += added

    def situation(self, actions: dict[str, Any]) -> Situation:
        """What the policy needs, with the legal actions of `action_request`."""
        return Situation(
            hole=self.hole,
            board=self.board,
            stack=self.stack,
            behind=self.stack - self.put_in,
            big_blind=self.big_blind,
            pot=self.pot,
            dealt=self.dealt,
            live=self.dealt - self.folded,
            can_fold=actions["fold"],
            call=actions["call"],
            min_raise_to=actions.get("min_raise_to"),
            max_raise_to=actions.get("max_raise_to"),
        )
