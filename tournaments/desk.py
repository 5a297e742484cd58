"""The tournament desk: tournament requests from sessions, and what players are told.

The lobby hands every `tournament_*` request here (`handle`); the desk finds the tournament
in the scheduler and calls its actor. Refusals keep the director's or the engine's stable code
(the session turns them into `error` frames, P-1). As the floor's `Players`, the desk sends
each player their own messages through the hub: `tournament_action_request` with their own
view of the hand (own hole cards only, C-15), `tournament_seat` on moves (T-10) and
`tournament_finish` (T-9). The player is the session's, never a field of the request (ARCH 8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.messages import Request
from tournaments.director import errors as director_errors
from tournaments.director.balancing import SeatMove
from tournaments.director.entries import prize_pool_status
from tournaments.director.errors import DirectorError
from tournaments.director.registration import Funding
from tournaments.floor import Players
from tournaments.table import TournamentTable

if TYPE_CHECKING:
    from pokerroom.server.lobby import Answer
    from tournaments.actor import Result, TournamentActor
    from tournaments.director.registration import Decision
    from tournaments.schedule import TournamentScheduler


class Messenger(Protocol):
    """What the desk needs of the hub: deliver one message to one player, if connected.

    The hub (`pokerroom.server.hub.Hub`) also has `session_of`, which the desk uses when
    present (T-12: who is connected).
    """

    def send(self, player_id: str, message: dict[str, Any]) -> None:
        """Deliver `message` to `player_id`; never raises into the tournament."""


class TournamentDesk(Players):
    """Routes tournament requests to actors and tells players what concerns them."""

    def __init__(self, hub: Messenger) -> None:
        self.hub = hub
        self.scheduler: TournamentScheduler | None = None

    # ------------------------------------------------------------------ requests

    def _actor(self, tournament_id: str) -> TournamentActor:
        scheduler = self.scheduler
        actor = None
        if scheduler is not None:
            actor = scheduler.actors.get(tournament_id) or scheduler.finished.get(tournament_id)
        if actor is None:
            raise DirectorError(director_errors.NOT_REGISTERED, f"no tournament {tournament_id}")
        return actor

    def handle(self, player: str, request: Request) -> Answer:
        """Run one `tournament_*` request for `player`; the `ok` result or a Deferred of it."""
        args = dict(request.args)
        name = request.name
        if name == "tournament_list":
            return {"tournaments": self.lobby_lines()}
        actor = self._actor(args.pop("tournament_id"))
        if name == "tournament_status_request":
            return {"status": self.status(actor)}
        if name == "tournament_register":
            funding = Funding(args.get("funding", "cash"))
            ticket = args.get("ticket_id", "")
            return actor.register(player, funding, ticket).addCallback(_granted)
        if name == "tournament_unregister":
            return actor.unregister(player).addCallback(lambda _: {"refunded": True})
        if name == "tournament_reenter":
            return actor.reenter(player).addCallback(_granted)
        if name == "tournament_rebuy":
            return actor.rebuy(player).addCallback(_granted)
        if name == "tournament_addon":
            return actor.addon(player).addCallback(_granted)
        if name == "tournament_act":
            actor.act(player, args["action"], args.get("amount"))
            return {}
        if name == "tournament_sit_out":
            actor.set_presence(player, connected=True, sitting_out=args["sitting_out"])
            return {}
        raise ProtocolError(errors.UNKNOWN_MESSAGE, f"the desk does not handle {name}")

    def lobby_lines(self) -> list[dict[str, Any]]:
        """One summary per open tournament (`tournament_list`)."""
        scheduler = self.scheduler
        if scheduler is None:
            return []
        return [self.summary(actor) for _, actor in sorted(scheduler.actors.items())]

    def summary(self, actor: TournamentActor) -> dict[str, Any]:
        """A tournament's lobby line."""
        settings = actor.settings
        return {
            "tournament_id": actor.tid,
            "kind": "sit_and_go" if actor.config.sit_and_go else "mtt",
            "status": actor.status,
            "starts_at": settings.starts_at,
            "buy_in": settings.buy_in,
            "fee": settings.fee,
            "entries": actor.state.entries,
            "max_entries": settings.max_entries,
            "guarantee": settings.guarantee,
        }

    def status(self, actor: TournamentActor) -> dict[str, Any]:
        """What `tournament_status` carries (T-6, T-11)."""
        line = self.summary(actor)
        if actor.status == "running":
            level = actor.floor.level()
            now = actor.clock.seconds()
            left = actor.players_left()
            line.update(
                level=level.index + 1,
                small_blind=level.level.small_blind,
                big_blind=level.level.big_blind,
                ante=level.level.ante,
                next_level_in=None if level.ends_at is None else round(level.ends_at - now),
                next_break_in=0 if level.on_break else (
                    None if level.next_break_at is None else round(level.next_break_at - now)
                ),
                players_left=left,
                average_stack=actor.chips_issued // max(1, left),
            )  # fmt: skip
        pool = prize_pool_status(actor.settings, actor.state)
        line["prize_pool"] = pool.total
        line["payouts"] = list(actor.prizes.amounts) if actor.prizes is not None else None
        line["hand_for_hand"] = actor.status == "running" and actor.floor._h4h()
        return line

    # ------------------------------------------------------------------ Players

    def turn(self, table: TournamentTable, entry: str) -> None:
        """`tournament_action_request`: the legal actions and the player's own view (C-15)."""
        hand = table.hand
        if hand is None or hand.actor < 0:
            return
        session_of = getattr(self.hub, "session_of", None)
        if session_of is not None:  # T-12: a player with no session is away (the clock's grace)
            table.presence.connection(entry, session_of(entry) is not None)
        index = hand.actor
        legal = hand.legal_actions(index)
        assert legal is not None
        self.hub.send(
            entry,
            {
                "type": "tournament_action_request",
                "tournament_id": table.tournament_id,
                "hand_id": table.hand_id,
                "table": table.table_id,
                "hole_cards": list(hand.holes[index] or ()),
                "board": list(hand.board),
                "stacks": dict(zip(table.order, hand.stacks, strict=True)),
                "pot": hand.pot_total(),
                "actions": {
                    "fold": legal.can_fold,
                    "call": legal.call_amount,
                    "min_raise_to": legal.min_raise_to,
                    "max_raise_to": legal.max_raise_to,
                },
            },
        )

    def ended(self, actor: TournamentActor) -> None:
        """`tournament_results` (T-8) or `tournament_cancelled` (T-1) to everyone registered."""
        players = sorted(actor.state.players)
        if actor.status == "cancelled":
            message: dict[str, Any] = {
                "type": "tournament_cancelled",
                "tournament_id": actor.tid,
                "reason": "too few entries at the start",
            }
        else:
            results = sorted(actor.results, key=lambda r: (r.place, r.entry))
            message = {
                "type": "tournament_results",
                "tournament_id": actor.tid,
                "prize_pool": actor.payouts.pool_total,
                "results": [
                    {"player": r.entry, "place": r.place, "tied": r.tied, "prize": r.prize}
                    for r in results
                ],
            }
        for player in players:
            self.hub.send(player, message)

    def for_tournament(self, tournament_id: str) -> TournamentPlayers:
        """The `Players` of one tournament's actor: messages name the tournament."""
        return TournamentPlayers(self, tournament_id)


class TournamentPlayers(Players):
    """One tournament's players, told through the desk's hub."""

    def __init__(self, desk: TournamentDesk, tournament_id: str) -> None:
        self.desk = desk
        self.tournament_id = tournament_id

    def turn(self, table: TournamentTable, entry: str) -> None:
        """As the desk: `tournament_action_request`."""
        self.desk.turn(table, entry)

    def moved(self, move: SeatMove) -> None:
        """`tournament_seat`: the moved player is told before their new table's next hand."""
        self.desk.hub.send(
            move.entry,
            {
                "type": "tournament_seat",
                "tournament_id": self.tournament_id,
                "table": move.to_table,
                "seat": move.to_seat,
                "reason": move.reason.value,
                "from_table": move.from_table,
            },
        )

    def finished(self, result: Result) -> None:
        """`tournament_finish`: place, prize and who busted the player (T-9)."""
        self.desk.hub.send(
            result.entry,
            {
                "type": "tournament_finish",
                "tournament_id": self.tournament_id,
                "place": result.place,
                "tied": result.tied,
                "prize": result.prize,
                "busted_by": list(result.busted_by),
            },
        )


def _granted(decision: Decision) -> dict[str, Any]:
    """The `ok` result of an entry, rebuy or add-on."""
    return {"chips": decision.chips, "action": decision.action}
