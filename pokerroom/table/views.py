"""What a table tells its audience: engine events as typed server messages, and hand views
(C-15).

Shared by cash and tournament tables. Every message is its typed definition in
`pokerroom.protocol.events` (docs/PROTOCOL.md section 6), seats numbered from 0; nothing here
builds a frame by hand. A `Delivery` names its one receiver, or None for the whole audience;
hole cards are only ever addressed to their holder (C-15).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple, Protocol, assert_never

from pokerroom.engine import Hand
from pokerroom.engine import events as ev
from pokerroom.engine.legal import LegalActions
from pokerroom.protocol import events as wire
from pokerroom.protocol.events import UNSET, ServerMessage, UnsetType
from pokerroom.protocol.results import Empty


class TableListener(Protocol):
    """The session layer's side: deliver table messages to players (docs/design/room.md)."""

    def send(self, player_id: str, message: ServerMessage) -> None:
        """Deliver `message` to one player."""
        ...

    def broadcast(self, table_id: str, message: ServerMessage, exclude: set[str] = ...) -> None:
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

    def observe(self, player_id: str) -> wire.Snapshot:
        """Start receiving the table's public events; the snapshot."""
        ...

    def unobserve(self, player_id: str) -> Empty:
        """Stop receiving them (`still_seated` for a player with a seat)."""
        ...

    def act(self, player_id: str, action: str, amount: int | None = None) -> Empty:
        """A betting action of the player whose turn it is."""
        ...

    def disconnected(self, player_id: str) -> None:
        """C-14: the player dropped; the seat stays, the clock runs."""
        ...

    def reconnected(self, player_id: str) -> wire.Snapshot:
        """C-14: the snapshot again, and the action request if it is the player's turn."""
        ...


class Delivery(NamedTuple):
    """A message and its receiver (None: everyone watching the table)."""

    to: str | None
    message: ServerMessage


def legal_view(legal: LegalActions) -> wire.LegalView:
    """The legal actions as the client sees them in `action_request`."""
    return wire.LegalView(
        fold=legal.can_fold,
        check=legal.call_amount == 0,
        call=legal.call_amount,
        min_raise_to=legal.min_raise_to,
        max_raise_to=legal.max_raise_to,
    )


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
    "call"), as the engine logs both pairs as one event each. `auto` ("timeout", "leaving" or
    "sitting_out") marks an action the table took for the player (C-6).
    """
    out: list[Delivery] = []
    public = out.append
    told: str | UnsetType = UNSET if auto is None else auto
    for e in events:
        match e:
            case ev.HoleDealt(player=player, cards=cards):
                # C-15: to the holder alone.
                hole = wire.HoleCards(table_id=table_id, hand_id=hand_id, cards=list(cards))
                out.append(Delivery(players[player], hole))
            case ev.BlindPosted(player=player, amount=amount):
                seat = order[player]
                kind = post_kinds.get(seat, "entry")
                posted = wire.BlindPosted(
                    table_id=table_id, hand_id=hand_id, seat=seat, amount=amount, kind=kind
                )
                public(Delivery(None, posted))
            case ev.DeadPosted(player=player, amount=amount):
                posted = wire.BlindPosted(
                    table_id=table_id, hand_id=hand_id, seat=order[player], amount=amount,
                    kind="dead",
                )  # fmt: skip
                public(Delivery(None, posted))
            case ev.AntePosted(player=player, amount=amount):
                posted = wire.BlindPosted(
                    table_id=table_id, hand_id=hand_id, seat=order[player], amount=amount,
                    kind="ante",
                )  # fmt: skip
                public(Delivery(None, posted))
            case ev.BoardDealt(street=street, cards=cards):
                board = wire.BoardDealt(
                    table_id=table_id, hand_id=hand_id, street=street, cards=list(cards)
                )
                public(Delivery(None, board))
            case ev.Folded(player=player):
                acted = wire.PlayerActed(
                    table_id=table_id, hand_id=hand_id, seat=order[player], action="fold",
                    amount=None, auto=told,
                )  # fmt: skip
                public(Delivery(None, acted))
            case ev.CheckedOrCalled(player=player, amount=amount):
                acted = wire.PlayerActed(
                    table_id=table_id, hand_id=hand_id, seat=order[player],
                    action="call" if amount else "check", amount=amount or None, auto=told,
                )  # fmt: skip
                public(Delivery(None, acted))
            case ev.BetOrRaised(player=player, to=to, added=added, all_in=all_in):
                acted = wire.PlayerActed(
                    table_id=table_id, hand_id=hand_id, seat=order[player],
                    action=label if label in ("bet", "raise") else "raise", amount=to,
                    added=added, all_in=all_in, auto=told,
                )  # fmt: skip
                public(Delivery(None, acted))
            case ev.BetReturned(player=player, amount=amount):
                returned = wire.PotReturned(
                    table_id=table_id, hand_id=hand_id, seat=order[player], amount=amount
                )
                public(Delivery(None, returned))
            case ev.HandShown(player=player, cards=cards):
                shown = wire.HandShown(
                    table_id=table_id, hand_id=hand_id, seat=order[player], cards=list(cards)
                )
                public(Delivery(None, shown))
            case ev.HandMucked(player=player):
                mucked = wire.HandMucked(table_id=table_id, hand_id=hand_id, seat=order[player])
                public(Delivery(None, mucked))
            case ev.PotAwarded(pot=pot, amount=amount, rake=rake, shares=shares):
                awarded = wire.PotAwarded(
                    table_id=table_id,
                    hand_id=hand_id,
                    pot=pot,
                    seats=[order[i] for i, _ in shares],
                    amount=amount - rake,
                    rake=rake,
                    shares=[wire.Share(seat=order[i], amount=a) for i, a in shares],
                )
                public(Delivery(None, awarded))
            case ev.HandEnded(stacks=stacks, rake=rake):
                by_seat = {str(order[i]): s for i, s in enumerate(stacks)}
                ended = wire.HandEnded(
                    table_id=table_id, hand_id=hand_id, stacks=by_seat, rake=rake
                )
                public(Delivery(None, ended))
            case _:
                # Every engine event has a case above; mypy flags a new one left out.
                assert_never(e)
    return out


def hand_view(
    hand: Hand,
    hand_id: str,
    order: Sequence[int],
    viewer_index: int | None,
    *,
    deadline_ms: int | UnsetType = UNSET,
    less: Sequence[int] | None = None,
) -> wire.HandView:
    """A running hand as one viewer may see it: public state, plus their own cards (C-15).

    `less[i]` is taken off engine index i's stack (a result not kept yet, rule 14).
    """
    seats = []
    for i, seat in enumerate(order):
        holes = hand.holes[i]
        seen = holes is not None and (i == viewer_index or i in hand.shown)
        seats.append(
            wire.HandSeat(
                seat=seat,
                stack=hand.stacks[i] - (less[i] if less is not None else 0),
                bet=hand.bets[i],
                folded=hand.folded[i],
                cards=list(holes) if seen and holes is not None else UNSET,
            )
        )
    return wire.HandView(
        hand_id=hand_id,
        board=list(hand.board),
        pot=hand.pot_total(),
        actor=order[hand.actor] if hand.actor >= 0 else None,
        seats=seats,
        deadline_ms=deadline_ms,
    )
