"""What a table tells its audience: engine events as protocol dicts, and hand views (C-15).

Shared by cash and tournament tables. Every message is a plain JSON-able dict
`{"type": ..., "table_id": ..., ...}` as docs/PROTOCOL.md section 6 lists them, seats numbered
from 0. A `Delivery` names its one receiver, or None for the whole audience; hole cards are
only ever addressed to their holder (C-15).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol, assert_never

from pokerroom.engine import Hand
from pokerroom.engine import events as ev
from pokerroom.engine.legal import LegalActions

Message = dict[str, Any]


class TableListener(Protocol):
    """The session layer's side: deliver table messages to players (docs/design/room.md)."""

    def send(self, player_id: str, message: Message) -> None:
        """Deliver `message` to one player."""
        ...

    def broadcast(self, table_id: str, message: Message, exclude: set[str] = ...) -> None:
        """Deliver `message` to the table's audience (its `audience` set) except `exclude`."""
        ...


class WatchedTable(Protocol):
    """What the lobby reads and asks of any table, cash or tournament (C-1, C-13, C-14)."""

    @property
    def audience(self) -> set[str]:
        """Who receives the table's public events: its players and observers."""
        ...

    @property
    def hand_running(self) -> bool:
        """Whether a hand is being dealt or played (C-13)."""
        ...

    def in_hand(self, player_id: str) -> bool:
        """Whether the player holds live cards in the running hand (C-13)."""
        ...

    def observe(self, player_id: str) -> dict[str, Any]:
        """Start receiving the table's public events; the snapshot."""
        ...

    def unobserve(self, player_id: str) -> dict[str, Any]:
        """Stop receiving them (`still_seated` for a player with a seat)."""
        ...

    def act(self, player_id: str, action: str, amount: int | None = None) -> dict[str, Any]:
        """A betting action of the player whose turn it is."""
        ...

    def disconnected(self, player_id: str) -> None:
        """C-14: the player dropped; the seat stays, the clock runs."""
        ...

    def reconnected(self, player_id: str) -> dict[str, Any]:
        """C-14: the snapshot again, and the action request if it is the player's turn."""
        ...


class Delivery(NamedTuple):
    """A message and its receiver (None: everyone watching the table)."""

    to: str | None
    message: Message


def message(table_id: str, message_type: str, **fields: Any) -> Message:
    """A table message."""
    return {"type": message_type, "table_id": table_id, **fields}


def legal_view(legal: LegalActions) -> dict[str, Any]:
    """The legal actions as the client sees them in `action_request`."""
    return {
        "fold": legal.can_fold,
        "check": legal.call_amount == 0,
        "call": legal.call_amount,
        "min_raise_to": legal.min_raise_to,
        "max_raise_to": legal.max_raise_to,
    }


def event_deliveries(
    table_id: str,
    hand_id: str,
    events: Iterable[ev.Event],
    order: Sequence[int],
    players: Sequence[str],
    post_kinds: Mapping[int, str],
    label: str | None = None,
    auto: str | None = None,
) -> list[Delivery]:
    """Turn new engine events into deliveries; `order[i]`/`players[i]` are engine index i's.

    `label` names the player action that produced the events ("bet" or "raise", "check" or
    "call"), as the engine logs both pairs as one event each. `auto` ("timeout" or
    "leaving") marks an action the table took for the player (C-6).
    """
    out: list[Delivery] = []

    def public(message_type: str, **fields: Any) -> None:
        if auto is not None and message_type == "player_acted":
            fields["auto"] = auto
        out.append(Delivery(None, message(table_id, message_type, hand_id=hand_id, **fields)))

    for e in events:
        match e:
            case ev.HoleDealt(player=player, cards=cards):
                # C-15: to the holder alone.
                msg = message(table_id, "hole_cards", hand_id=hand_id, cards=list(cards))
                out.append(Delivery(players[player], msg))
            case ev.BlindPosted(player=player, amount=amount):
                kind = post_kinds.get(order[player], "entry")
                public("blind_posted", seat=order[player], amount=amount, kind=kind)
            case ev.DeadPosted(player=player, amount=amount):
                public("blind_posted", seat=order[player], amount=amount, kind="dead")
            case ev.AntePosted(player=player, amount=amount):
                public("blind_posted", seat=order[player], amount=amount, kind="ante")
            case ev.BoardDealt(street=street, cards=cards):
                public("board_dealt", street=street, cards=list(cards))
            case ev.Folded(player=player):
                public("player_acted", seat=order[player], action="fold", amount=None)
            case ev.CheckedOrCalled(player=player, amount=amount):
                action = "call" if amount else "check"
                public("player_acted", seat=order[player], action=action, amount=amount or None)
            case ev.BetOrRaised(player=player, to=to, added=added, all_in=all_in):
                action = label if label in ("bet", "raise") else "raise"
                public(
                    "player_acted",
                    seat=order[player],
                    action=action,
                    amount=to,
                    added=added,
                    all_in=all_in,
                )
            case ev.BetReturned(player=player, amount=amount):
                public("pot_returned", seat=order[player], amount=amount)
            case ev.HandShown(player=player, cards=cards):
                public("hand_shown", seat=order[player], cards=list(cards))
            case ev.HandMucked(player=player):
                public("hand_mucked", seat=order[player])
            case ev.PotAwarded(pot=pot, amount=amount, rake=rake, shares=shares):
                public(
                    "pot_awarded",
                    pot=pot,
                    seats=[order[i] for i, _ in shares],
                    amount=amount - rake,
                    rake=rake,
                    shares=[{"seat": order[i], "amount": a} for i, a in shares],
                )
            case ev.HandEnded(stacks=stacks, rake=rake):
                by_seat = {str(order[i]): s for i, s in enumerate(stacks)}
                public("hand_ended", stacks=by_seat, rake=rake)
            case _:
                # Every engine event has a case above; mypy flags a new one left out.
                assert_never(e)
    return out


def hand_view(
    hand: Hand, hand_id: str, order: Sequence[int], viewer_index: int | None
) -> dict[str, Any]:
    """A running hand as one viewer may see it: public state, plus their own cards (C-15)."""
    seats = []
    for i, seat in enumerate(order):
        entry: dict[str, Any] = {
            "seat": seat,
            "stack": hand.stacks[i],
            "bet": hand.bets[i],
            "folded": hand.folded[i],
        }
        holes = hand.holes[i]
        if holes is not None and (i == viewer_index or i in hand.shown):
            entry["cards"] = list(holes)
        seats.append(entry)
    return {
        "hand_id": hand_id,
        "board": list(hand.board),
        "pot": hand.pot_total(),
        "actor": order[hand.actor] if hand.actor >= 0 else None,
        "seats": seats,
    }
