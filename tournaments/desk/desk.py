"""The tournament desk: tournament requests from sessions, and what players are told.

The lobby hands every `tournament_*` request here (`handle`); the desk finds the tournament
in the scheduler and calls its actor. Refusals keep the director's or the engine's stable code
(the session turns them into `error` frames, P-1). As the floor's `Players`, the desk sends
each player their own messages through the hub: `tournament_action_request` with their own
view of the hand (own hole cards only, C-15), `tournament_seat` on moves (T-10) and
`tournament_finish` (T-9). The player is the session's, never a field of the request (ARCH 8).
What a tournament tells its players waits until the decisions before it are stored (the
actor's recorder holds it: persist, then tell). A refunded player hears `tournament_cancelled`
with their refund by part, once the refund job has paid it (`refunded`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.interfaces import IDelayedCall

from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import UNSET, Frame, LegalView, WireObject
from pokerroom.protocol.messages import Request
from pokerroom.protocol.results import Empty
from pokerroom.protocol.staking_messages import NAMES as STAKING_NAMES
from pokerroom.protocol.tournament_messages import (
    BountyWon,
    ChipsBought,
    Entered,
    PlayerBounty,
    TicketsAnswer,
    TournamentActionRequest,
    TournamentFinish,
    TournamentLobby,
    TournamentLobbyUpdate,
    TournamentPlace,
    TournamentResults,
    TournamentSeat,
    TournamentStatusAnswer,
    TournamentStatusEvent,
    TournamentSummary,
    Unregistered,
)
from pokerroom.server.replies import ledger_key
from tournaments.actor.request_keys import REQUEST_UNDONE  # P-2: a register key after unregistering
from tournaments.desk import lobby_view, stake_requests
from tournaments.desk.frames import HeldOutbox, TableFrames, find_table, open_tables
from tournaments.desk.refund_notices import refund_notices
from tournaments.desk.remote import RemoteTournaments, RemoteTournamentTable
from tournaments.director.balancing import SeatMove
from tournaments.director.bounties import BountyPayment, Reason
from tournaments.director.registration import Funding
from tournaments.director.tickets import Ticket
from tournaments.tables.floor import Players
from tournaments.tables.table import TournamentTable

#: Knockouts within this many seconds share one `tournament_status` push.
KNOCKOUT_PUSH_SECONDS = 5.0

if TYPE_CHECKING:
    from pokerroom.protocol.answers import Answer
    from pokerroom.server.remote import LobbyTable
    from tournaments.actor.bounty_book import BountyBook
    from tournaments.actor.tickets import TicketOffice
    from tournaments.actor.tournament import TournamentActor
    from tournaments.director.registration import Decision
    from tournaments.ops.schedule import TournamentScheduler
    from tournaments.results import Result


class Messenger(Protocol):
    """What the desk needs of the hub: deliver one message to one player, if connected.

    The hub (`pokerroom.server.hub.Hub`) also has `session_of`, which the desk uses when
    present (T-12: who is connected).
    """

    def send(self, player_id: str, message: Frame) -> None:
        """Deliver `message` to `player_id`; never raises into the tournament."""

    def send_all(self, players: Iterable[str], message: Frame) -> None:
        """Deliver one message to several players (encoded once)."""


class TournamentDesk(Players):
    """Routes tournament requests to actors and tells players what concerns them."""

    def __init__(self, hub: Messenger) -> None:
        self.hub = hub
        self.scheduler: TournamentScheduler | None = None
        #: Who gets `tournament_lobby_update`: the lobby's subscribers (set by the room).
        self.watchers: set[str] = set()
        #: Knockout pushes wait this long, so a busy field sends one status, not one per bust.
        self.push_seconds = KNOCKOUT_PUSH_SECONDS
        self._push_later: dict[str, IDelayedCall] = {}
        #: Cluster mode: the tournaments other nodes run (their requests go to the owner).
        self.remote: RemoteTournaments | None = None
        #: Cluster mode: told the id of a tournament run here whose lobby line changed.
        self.line_changed: Callable[[str], None] | None = None
        #: Cluster mode: whether a player is connected to any node (T-12); else the hub's
        #: `session_of` says it (this node's sessions).
        self.connected: Callable[[str], bool] | None = None

    # ------------------------------------------------------------------ requests

    def table(self, table_id: str) -> TournamentTable | None:
        """A running tournament's table by its frame id `<tournament_id>.<n>` (for the lobby)."""
        scheduler = self.scheduler
        return None if scheduler is None else find_table(scheduler.actors, table_id)

    def any_table(self, table_id: str) -> LobbyTable | None:
        """A tournament table run here or, in cluster mode, by another node (for the lobby)."""
        table: LobbyTable | None = self.table(table_id)
        if table is None and self.remote is not None:
            table = self.remote.table(table_id)
        return table

    def remote_table(self, table_id: str) -> RemoteTournamentTable | None:
        """Cluster mode: a table of a tournament another node runs (chat goes to its owner)."""
        if self.remote is None or self.table(table_id) is not None:
            return None
        return self.remote.table(table_id)

    def open_tables(self, player: str) -> list[str]:
        """The tournament tables the player sits at or watches, here and on other nodes (C-1,
        C-14)."""
        scheduler = self.scheduler
        here = [] if scheduler is None else open_tables(scheduler.actors, player)
        if self.remote is None:
            return here
        elsewhere = self.remote.open_tables(player)  # not a late line's of a tournament run here
        return sorted(here + [t for t in elsewhere if self.runs(t.rpartition(".")[0]) is None])

    def reconnected(self, player: str) -> None:
        """After login/resume (C-14, after the table snapshots): the deal a restart voided, to
        each of its players once (`deal_result` `restart`, T-13, T-18)."""
        self.restart_told(player)
        if self.remote is not None:
            self.remote.reconnected(player)

    def restart_told(self, player: str, tournament_id: str | None = None) -> None:
        """The deal a restart voided, to `player` once, by the tournaments run here (or one)."""
        scheduler = self.scheduler
        if scheduler is not None:
            for actor in (*scheduler.actors.values(), *scheduler.finished.values()):
                if tournament_id is None or actor.tid == tournament_id:
                    actor.deals.restart.reconnected(player)

    def table_frames(self) -> TableFrames:
        """Where tournament tables' section 6 events go: through the hub."""
        return TableFrames(self.hub, self.table)

    def runs(self, tournament_id: str) -> TournamentActor | None:
        """The tournament's actor if it runs (or ran) on this node."""
        scheduler = self.scheduler
        if scheduler is None:
            return None
        return scheduler.actors.get(tournament_id) or scheduler.finished.get(tournament_id)

    def is_open(self, tournament_id: str) -> bool:
        """Whether the tournament runs on this node and has not ended."""
        scheduler = self.scheduler
        return scheduler is not None and tournament_id in scheduler.actors

    def _elsewhere(self, tournament_id: str) -> bool:
        """Cluster mode: whether the tournament is not run here (another node may run it)."""
        return self.remote is not None and self.runs(tournament_id) is None

    def _actor(self, tournament_id: str) -> TournamentActor:
        actor = self.runs(tournament_id)
        if actor is None:
            raise ProtocolError(
                errors.UNKNOWN_TOURNAMENT, f"no tournament {errors.excerpt(tournament_id)}"
            )
        return actor

    def handle(self, player: str, request: Request) -> Answer:
        """Run one `tournament_*` request for `player`; the `ok` result or a Deferred of it.

        A money request's `key` (P-2) becomes the ledger key `request:<player>:<key>`: the
        lobby answers a retry from memory, and the ledger never moves its money twice.
        """
        args = dict(request.args)
        name = request.name
        if name == "tournament_list":
            return TournamentLobby(tournaments=self.lobby_lines())
        if name == "tickets":
            return self.tickets(player)
        tid = args.get("tournament_id")
        if tid is not None and name != "my_stakes" and self._elsewhere(tid):
            assert self.remote is not None  # its owner runs it, if any node does
            return self.remote.call(tid, player, name, dict(request.args))
        if name in STAKING_NAMES:  # T-17 staking and T-13 deals
            ledger = None if self.scheduler is None else self.scheduler.ledger
            return stake_requests.handle(self._actor, ledger, player, request)
        actor = self._actor(args.pop("tournament_id"))
        client_key = args.get("key")
        key = None if client_key is None else ledger_key(player, client_key)
        if name == "tournament_status_request":
            return TournamentStatusAnswer(status=lobby_view.status(actor))
        if name == "tournament_register":
            funding = Funding(args.get("funding", "cash"))
            ticket = args.get("ticket_id", "")
            d = actor.register(player, funding, ticket, key=key)
            return d.addCallback(self._entered, actor, player)
        if name == "tournament_unregister":
            return actor.unregister(player).addCallback(self._unregistered, actor)
        if name == "tournament_reenter":
            return actor.reenter(player, key=key).addCallback(self._entered, actor, player)
        if name == "tournament_rebuy":
            return actor.rebuy(player, key=key).addCallback(self._bought, actor)
        if name == "tournament_addon":
            return actor.addon(player, key=key).addCallback(self._bought, actor)
        if name == "tournament_act":
            actor.act(player, args["action"], args.get("amount"))
            return Empty()
        if name == "tournament_sit_out":
            actor.set_presence(player, connected=True, sitting_out=args["sitting_out"])
            return Empty()
        raise ProtocolError(errors.UNKNOWN_MESSAGE, f"the desk does not handle {name}")

    def replayed(self, player: str, key: str, content: tuple[Any, ...], answer: Any) -> Any:
        """The answer of a keyed request's retry now (P-2): the first one while it is still true;
        `request_undone` for a registration the player left since; a purchase as it stands.
        In cluster mode, for a tournament another node runs, the owner says it: the request is
        carried there again with its key (its actor answers a used key from its memory)."""
        name, args = content[0], dict(content[1])
        tid = args.get("tournament_id")
        rechecked = name in ("tournament_register", "stake_buy")
        if rechecked and tid is not None and self._elsewhere(tid):
            assert self.remote is not None
            return self.remote.call(tid, player, name, {**args, "key": key})
        if name == "tournament_register":
            self._still_registered(args["tournament_id"], player, ledger_key(player, key))
        elif name == "stake_buy":
            return stake_requests.replayed(self._actor, player, key, args, answer)
        return answer

    def _still_registered(self, tournament_id: str, player: str, key: str = "") -> None:
        """`request_undone` unless `player` is registered in the tournament now by the entry
        the ledger `key` paid for (not given back since, even if they registered again); a
        tournament no longer held by the scheduler: nothing is known, the first answer stands."""
        scheduler = self.scheduler
        actor = None
        if scheduler is not None:
            actor = scheduler.actors.get(tournament_id) or scheduler.finished.get(tournament_id)
        if actor is None:
            return
        if player not in actor.state.players or actor.undone(key):
            raise ProtocolError(
                REQUEST_UNDONE,
                f"this key's registration in {tournament_id} was undone (you unregistered);"
                " register again with a new key",
            )

    def tickets(self, player: str) -> Answer:
        """`tickets`: the player's tickets, newest first (T-16, T-3)."""
        scheduler = self.scheduler
        office: TicketOffice | None = getattr(scheduler, "tickets", None)
        if office is None:
            return TicketsAnswer(tickets=[])

        def answer(found: tuple[Ticket, ...]) -> WireObject:
            return TicketsAnswer(tickets=[lobby_view.ticket_view(t) for t in found])

        return office.of_player(player).addCallback(answer)

    def _entered(self, decision: Decision, actor: TournamentActor, player: str) -> Entered:
        """`{entry, chips}` of a registration or re-entry; the lobby line changed."""
        self.changed(actor, "entries")
        if player not in actor.state.players:  # a replayed key (the actor's memory) undone since
            self._still_registered(actor.tid, player)
        record = decision.state.players.get(player)
        return Entered(entry=record.entries if record is not None else 1, chips=decision.chips)

    def _bought(self, decision: Decision, actor: TournamentActor) -> ChipsBought:
        """`{chips}` of a rebuy or add-on; the prize pool changed."""
        self.changed(actor, "entries")
        return ChipsBought(chips=decision.chips)

    def _unregistered(self, decision: Decision, actor: TournamentActor) -> Unregistered:
        self.changed(actor, "entries")
        return Unregistered(refunded=True)

    def lobby_lines(self) -> list[TournamentSummary]:
        """One summary per open tournament (`tournament_list`), every node's in cluster mode."""
        scheduler = self.scheduler
        actors = [] if scheduler is None else list(scheduler.actors.values())
        lines = [lobby_view.summary(actor) for actor in actors]
        if self.remote is not None:
            here = {line.tournament_id for line in lines}
            lines += [line for line in self.remote.lines() if line.tournament_id not in here]
        return sorted(lines, key=lambda line: line.tournament_id)

    def summary(self, actor: TournamentActor) -> TournamentSummary:
        """A tournament's lobby line (T-1, T-5, T-11)."""
        return lobby_view.summary(actor)

    def status(self, actor: TournamentActor) -> TournamentStatusEvent:
        """The `tournament_status` message (T-6, T-11)."""
        return lobby_view.status(actor)

    # ------------------------------------------------------------------ pushes

    def changed(self, actor: TournamentActor, why: str) -> None:
        """The actor's status changed: tell lobby watchers, and registered players (§9).

        Lobby watchers get `tournament_lobby_update` on every change. Registered players get
        `tournament_status` at once at the start, a level change or break, the money and the
        end; after knockouts within `push_seconds` (one status for a burst of busts); not for
        registrations (the lobby line says those).
        """
        if self.watchers:
            self.hub.send_all(self.watchers, TournamentLobbyUpdate(tournament=self.summary(actor)))
        if self.line_changed is not None:
            self.line_changed(actor.tid)
        if why in ("opened", "entries"):
            return
        if why == "knockout" and self.push_seconds > 0:
            if actor.tid not in self._push_later:
                later = actor.clock.callLater(self.push_seconds, self._push_status, actor)
                self._push_later[actor.tid] = later
            return
        self._push_status(actor)

    def _push_status(self, actor: TournamentActor) -> None:
        """`tournament_status` to every registered player (encoded once)."""
        waiting = self._push_later.pop(actor.tid, None)
        if waiting is not None and waiting.active():
            waiting.cancel()
        self.hub.send_all(sorted(actor.state.players), self.status(actor))

    # ------------------------------------------------------------------ Players

    def turn(self, table: TournamentTable, entry: str) -> None:
        """`tournament_action_request`: the legal actions and the player's own view (C-15)."""
        request = self.action_request(table, entry)
        if request is not None:
            self.hub.send(entry, request)

    def action_request(self, table: TournamentTable, entry: str) -> TournamentActionRequest | None:
        """The `tournament_action_request` for `entry` now (None if no one is to act)."""
        hand = table.hand
        if hand is None or hand.actor < 0:
            return None
        session_of = getattr(self.hub, "session_of", None)
        if self.connected is not None:  # T-12: a player with no session is away (a grace)
            table.presence.connection(entry, self.connected(entry))
        elif session_of is not None:
            table.presence.connection(entry, session_of(entry) is not None)
        index = hand.actor
        legal = hand.legal_actions(index)
        assert legal is not None
        return TournamentActionRequest(
            tournament_id=table.tournament_id,
            hand_id=table.hand_id,
            table=table.table_id,
            hole_cards=list(hand.holes[index] or ()),
            board=list(hand.board),
            stacks=dict(zip(table.order, hand.stacks, strict=True)),
            pot=hand.pot_total(),
            actions=LegalView(
                fold=legal.can_fold,
                check=legal.call_amount == 0,
                call=legal.call_amount,
                min_raise_to=legal.min_raise_to,
                max_raise_to=legal.max_raise_to,
            ),
        )

    def ended(self, actor: TournamentActor) -> None:
        """`tournament_results` (T-8) to everyone registered; a cancelled tournament's players
        hear `tournament_cancelled` from `refunded`, with their refunds."""
        waiting = self._push_later.pop(actor.tid, None)
        if waiting is not None and waiting.active():
            waiting.cancel()
        if actor.status == "cancelled":
            return
        results = sorted(actor.results, key=lambda r: (r.place, r.entry))
        book = actor.bounties
        won = (
            UNSET
            if book is None
            else [PlayerBounty(player=p, amount=n) for p, n in sorted(book.won.items()) if n]
        )
        deal = actor.deals.view()  # T-13: the deal made, with every figure
        message = TournamentResults(
            tournament_id=actor.tid,
            prize_pool=actor.payouts.pool_total,
            results=[
                TournamentPlace(player=r.entry, place=r.place, tied=r.tied, prize=r.prize)
                for r in results
            ],
            bounties=won,
            deal=UNSET if deal is None else deal,
        )
        self.hub.send_all(sorted(actor.state.players), message)

    @inlineCallbacks
    def refunded(self, tournament_ids: Iterable[str]) -> Generator[Deferred[Any], Any, int]:
        """T-1, T-18: the refund job paid these tournaments: each refunded player who is
        connected hears `tournament_cancelled` with their refund by part (the others see the
        transfers in their wallet's statement). Fires with the number of messages sent."""
        scheduler = self.scheduler
        if scheduler is None:
            return 0
        sent = 0
        for tid in tournament_ids:
            notices = yield scheduler.ledger.read(refund_notices, tid)
            for player, notice in notices:
                self.hub.send(player, notice)
                sent += 1
        return sent

    def for_tournament(self, tournament_id: str) -> TournamentPlayers:
        """The `Players` of one tournament's actor: messages name the tournament."""
        return TournamentPlayers(self, tournament_id)


class TournamentPlayers(Players):
    """One tournament's players, told through the desk's hub."""

    def __init__(self, desk: TournamentDesk, tournament_id: str) -> None:
        self.desk = desk
        self.tournament_id = tournament_id
        self.outbox: Messenger = desk.hub

    def hold_with(self, hold: Callable[..., None]) -> None:
        """Everything this tournament tells waits for its decisions to be stored (rule 14)."""
        self.outbox = HeldOutbox(self.desk.hub, hold)

    def turn(self, table: TournamentTable, entry: str) -> None:
        """As the desk: `tournament_action_request`."""
        request = self.desk.action_request(table, entry)
        if request is not None:
            self.outbox.send(entry, request)

    def moved(self, move: SeatMove) -> None:
        """`tournament_seat`: the moved player is told before their new table's next hand."""
        seat = TournamentSeat(
            tournament_id=self.tournament_id,
            table=move.to_table,
            seat=move.to_seat - 1,  # frames number seats from 0 (the director from 1)
            reason=move.reason.value,
            from_table=move.from_table,
        )
        self.outbox.send(move.entry, seat)

    def table_frames(self) -> TableFrames:
        """The tables' section 6 events, through the desk's hub (held like the rest)."""
        return TableFrames(self.outbox, self.desk.table)

    def finished(self, result: Result) -> None:
        """`tournament_finish`: place, prize and who busted the player (T-9); in a bounty
        tournament the bounty money the player won (T-14)."""
        book = self._bounties()
        finish = TournamentFinish(
            tournament_id=self.tournament_id,
            place=result.place,
            tied=result.tied,
            prize=result.prize,
            busted_by=list(result.busted_by),
            bounty=UNSET if book is None else book.won.get(result.entry, 0),
        )
        self.outbox.send(result.entry, finish)

    def _bounties(self) -> BountyBook | None:
        scheduler = self.desk.scheduler
        if scheduler is None:
            return None
        actor = scheduler.actors.get(self.tournament_id) or scheduler.finished.get(
            self.tournament_id
        )
        return None if actor is None else actor.bounties

    def bounty_won(self, payment: BountyPayment, bounty: int, hand_id: str) -> None:
        """`bounty_won` (T-14) to the receiver, and to the player whose bounty it was."""
        knockout = payment.reason is Reason.KNOCKOUT
        message = BountyWon(
            tournament_id=self.tournament_id,
            player=payment.entry,
            busted=payment.source if knockout else None,
            reason=payment.reason.value,
            amount=payment.paid,
            added=payment.added,
            bounty=bounty,
            hand_id=hand_id or None,
        )
        told = [payment.entry, payment.source] if knockout else [payment.entry]
        self.outbox.send_all(told, message)
