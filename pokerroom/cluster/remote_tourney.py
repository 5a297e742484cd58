"""Tournaments another node runs, as this node's desk sees them (docs/design/cluster.md,
"Tournaments across nodes").

The desk's `RemoteTournaments` in cluster mode: it keeps the last lobby line of each
tournament another node runs (`<p>.tourneys`: its summary, who is registered, and its tables'
audiences), carries the desk's requests for such a tournament, and the lobby's requests at its
tables (observe, unobserve, act, C-14 notices), to the owner on `<p>.tourney.<id>.cmd`, and
answers with the owner's result or its refusal's very code. A request for a tournament no line named
yet (this node just started) is sent all the same, and answered `unknown_tournament` if no
node serves it. A line not repeated within
`STALE_SECONDS` (its owner stopped and no other took the tournament yet) lists nothing and
opens no table; the tournament is still known, and asking for it is answered by whoever serves
it then (or `cluster_unavailable`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec
import structlog
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure

from pokerroom.cluster.bus import Bus, decode, encode
from pokerroom.cluster.payloads import Command, LinesAsked, Reply, TourneyLine
from pokerroom.cluster.remote_table import answered, as_snapshot
from pokerroom.cluster.subjects import Subjects
from pokerroom.cluster.tourney_owner import LINE_SECONDS
from pokerroom.protocol import errors
from pokerroom.protocol.errors import CLUSTER_UNAVAILABLE, ProtocolError
from pokerroom.protocol.results import Empty
from pokerroom.protocol.tournament_messages import TournamentLobbyUpdate, TournamentSummary
from pokerroom.server.hub import Hub

log = structlog.get_logger("pokerroom.cluster")

#: A line older than this (three missed repeats) is its owner's no more.
STALE_SECONDS = 3 * LINE_SECONDS
#: How long a request waits for the owner's answer: money requests until the ledger moved it.
TIMEOUTS = {
    "tournament_register": 30.0,
    "tournament_unregister": 30.0,
    "tournament_reenter": 30.0,
    "tournament_rebuy": 30.0,
    "tournament_addon": 30.0,
    "stake_buy": 30.0,
    "stake_offer": 30.0,
    "stake_withdraw": 30.0,
}
DEFAULT_SECONDS = 5.0


class RemoteTourneys:
    """The desk's `RemoteTournaments` in cluster mode: lines in, requests out."""

    def __init__(
        self,
        bus: Bus,
        subjects: Subjects,
        node: str,
        hub: Hub,
        clock: IReactorTime,
        watchers: Callable[[], Iterable[str]] = tuple,
    ) -> None:
        self.bus, self.subjects, self.node, self.hub = bus, subjects, node, hub
        self.clock = clock
        self.watchers = watchers
        self.known: dict[str, TourneyLine] = {}
        #: Each known line's summary, checked once as it came (a line that is not one is
        #: dropped there, so one bad line cannot break every `tournament_list` here).
        self.summaries: dict[str, TournamentSummary] = {}
        self.heard: dict[str, float] = {}
        #: Every tournament id a line named, or this node ran (kept when it moves here and on).
        self.seen: set[str] = set()
        #: table id -> its audience, by the owner's last line or answer.
        self.audiences: dict[str, set[str]] = {}

    def start(self) -> Deferred[None]:
        """Listen to every node's tournament lobby lines, and ask the owners for them now (a
        node that starts would else know them only at their next repeat)."""

        def ask(_: object) -> None:
            asked = encode(LinesAsked(node=self.node))
            self.bus.publish_quietly(self.subjects.tourney_lines_asked, asked)

        return self.bus.subscribe(self.subjects.tourney_lobby, self._on_line).addCallback(ask)

    def drop(self, tournament_id: str) -> None:
        """This node runs the tournament now: its own desk answers for it (and once it moves
        on, the next owner's; until its line comes the id is still known)."""
        self.seen.add(tournament_id)
        self.known.pop(tournament_id, None)
        self.summaries.pop(tournament_id, None)
        self.heard.pop(tournament_id, None)
        prefix = tournament_id + "."
        self.audiences = {t: a for t, a in self.audiences.items() if not t.startswith(prefix)}

    # -- lines in ---------------------------------------------------------------------------
    def _on_line(self, data: bytes, reply: str | None) -> None:
        line = decode(data, TourneyLine)
        if line.node == self.node:
            return
        try:
            summary = _summary(line)
        except (msgspec.ValidationError, TypeError, ValueError) as exc:
            log.warning(
                "tourney_line_refused",
                owner=line.node,
                tournament_id=line.tournament_id,
                error=str(exc),
            )
            return
        before = self.known.get(line.tournament_id)
        self.known[line.tournament_id] = line
        self.summaries[line.tournament_id] = summary
        self.seen.add(line.tournament_id)
        self.heard[line.tournament_id] = self.clock.seconds()
        prefix = line.tournament_id + "."
        kept = {t: a for t, a in self.audiences.items() if not t.startswith(prefix)}
        self.audiences = kept | {t: set(a) for t, a in line.tables.items()}
        if before is not None and before.node != line.node:  # a new owner (a failover,
            self.resync(line.tournament_id)  # a hand-over): what it sent meanwhile, again
            self._rewatch(before, line)
        if line.open and (before is None or before.summary != line.summary):
            watchers = list(self.watchers())
            if watchers:
                update = TournamentLobbyUpdate(tournament=summary)
                self.hub.send_all(watchers, update)

    def _rewatch(self, before: TourneyLine, line: TourneyLine) -> None:
        """A new owner does not know who watched its tables (observers live in memory, T-18):
        the railbirds connected here (not players of the tournament) watch again each table
        still open that they watched, and get its snapshot."""
        for table_id, audience in sorted(before.tables.items()):
            now = line.tables.get(table_id)
            if now is None:
                continue
            table = RemoteTourneyTable(self, line.tournament_id, table_id)
            for player in sorted(set(audience) - set(now) - set(line.players)):
                if self.hub.session_of(player) is None:
                    continue

                def failed(
                    failure: Failure, player: str = player, table_id: str = table_id
                ) -> None:
                    log.warning(
                        "rewatch_failed",
                        table_id=table_id,
                        player_id=player,
                        error=str(failure.value),
                    )

                back = table.observe(player).addCallback(_then_snapshot, table, player)
                back.addErrback(failed)

    def _fresh(self, tournament_id: str) -> TourneyLine | None:
        line = self.known.get(tournament_id)
        heard = self.heard.get(tournament_id, 0.0)
        if line is None or self.clock.seconds() - heard > STALE_SECONDS:
            return None
        return line

    # -- the desk's RemoteTournaments -----------------------------------------------------------
    def knows(self, tournament_id: str) -> bool:
        """Whether another node told it runs (or ran) `tournament_id`, or this node ran it."""
        return tournament_id in self.seen

    def lines(self) -> list[TournamentSummary]:
        """The lobby lines of the open tournaments other nodes run (fresh ones)."""
        found = [self._fresh(tid) for tid in sorted(self.known)]
        return [
            self.summaries[line.tournament_id] for line in found if line is not None and line.open
        ]

    def table(self, table_id: str) -> RemoteTourneyTable | None:
        """A table of a tournament another node runs, if its owner's line names it open."""
        tournament_id = table_id.rpartition(".")[0]
        line = self._fresh(tournament_id)
        if line is None or not line.open or table_id not in line.tables:
            return None
        return RemoteTourneyTable(self, tournament_id, table_id)

    def open_tables(self, player: str) -> list[str]:
        """The remote tournament tables `player` sits at or watches (C-1, C-14)."""
        return sorted(
            table_id
            for table_id, audience in self.audiences.items()
            if player in audience and self._fresh(table_id.rpartition(".")[0]) is not None
        )

    def call(
        self, tournament_id: str, player: str, name: str, args: dict[str, Any]
    ) -> Deferred[Any]:
        """Run the desk request `name` for `player` at the tournament's owner."""
        timeout = TIMEOUTS.get(name, DEFAULT_SECONDS)
        d = self.command(tournament_id, "request", player, {"name": name, "args": args}, timeout)
        if not self.knows(tournament_id):  # no line heard (yet: this node may be new)
            d.addErrback(self._unheard_of, tournament_id)
        return d.addCallback(answered)

    def _unheard_of(self, failure: Failure, tournament_id: str) -> Reply:
        """No node serves a tournament no line ever named: it is unknown (as on one node)."""
        failure.trap(ProtocolError)
        if (
            not isinstance(failure.value, ProtocolError)
            or failure.value.code != CLUSTER_UNAVAILABLE
        ):
            failure.raiseException()
        return Reply(
            ok=False,
            code=errors.UNKNOWN_TOURNAMENT,
            message=f"no tournament {errors.excerpt(tournament_id)}",
        )

    def command(
        self,
        tournament_id: str,
        op: str,
        player: str,
        args: dict[str, Any],
        timeout: float = DEFAULT_SECONDS,
    ) -> Deferred[Reply]:
        """One command to the tournament's owner; its reply (`cluster_unavailable` if none)."""
        payload = encode(Command(op=op, player=player, args=args))
        d = self.bus.request(self.subjects.tourney_cmd(tournament_id), payload, timeout)
        return d.addCallback(decode, Reply)

    def resync(self, tournament_id: str | None = None) -> None:
        """NATS is back (or a tournament has a new owner): frames of other nodes' tournament
        tables may have been lost meanwhile (they carry no numbers), and so may a player's
        action request sent before they logged in here; every player connected here gets a
        fresh snapshot of each such table (of `tournament_id`, or all) they have open, and the
        action request if it is their turn (the owner's `reconnected`, on their subject)."""
        prefix = "" if tournament_id is None else tournament_id + "."
        for table_id, audience in sorted(self.audiences.items()):
            table = self.table(table_id) if table_id.startswith(prefix) else None
            if table is None:
                continue
            for player in sorted(audience):
                if self.hub.session_of(player) is None:
                    continue

                def failed(
                    failure: Failure, player: str = player, table_id: str = table_id
                ) -> None:
                    log.warning(
                        "resync_failed",
                        table_id=table_id,
                        player_id=player,
                        error=str(failure.value),
                    )

                table.reconnected(player).addErrback(failed)

    def reconnected(self, player: str) -> None:
        """After login/resume here: each owner of a tournament `player` is in tells them the
        deal a restart voided, once (T-13, T-18)."""
        for tid, line in sorted(self.known.items()):
            if player not in line.players or self._fresh(tid) is None:
                continue

            def failed(failure: Failure, tid: str = tid) -> None:
                log.warning("remote_notice_failed", tournament_id=tid, error=str(failure.value))

            self.command(tid, "restart_told", player, {}).addErrback(failed)


class RemoteTourneyTable:
    """A table of another node's tournament, with the surface the lobby uses (C-1, C-14)."""

    def __init__(self, registry: RemoteTourneys, tournament_id: str, table_id: str) -> None:
        self.registry = registry
        self.tournament_id, self.table_id = tournament_id, table_id

    @property
    def audience(self) -> set[str]:
        """Who receives its events, by the owner's last line or answer."""
        return set(self.registry.audiences.get(self.table_id, ()))

    @property
    def hand_running(self) -> bool:
        """Not known here; chat goes to the owner, which knows (C-13)."""
        return False

    def in_hand(self, player_id: str) -> bool:
        """Not known here."""
        return False

    def _call(self, op: str, player: str, **args: Any) -> Deferred[Any]:
        args["table"] = self.table_id
        d = self.registry.command(self.tournament_id, op, player, args)
        return d.addCallback(self._answered)

    def _answered(self, reply: Reply) -> Any:
        if reply.audience is not None:
            self.registry.audiences[self.table_id] = set(reply.audience)
        return answered(reply)

    def observe(self, player_id: str) -> Deferred[Any]:
        """Start receiving the table's events; the snapshot."""
        return self._call("observe", player_id).addCallback(as_snapshot)

    def unobserve(self, player_id: str) -> Deferred[Any]:
        """Stop receiving them."""
        return self._call("unobserve", player_id)

    def act(self, player_id: str, action: str, amount: int | None = None) -> Deferred[Any]:
        """A betting action at the table (as `tournament_act`)."""
        return self._call("act", player_id, action=action, amount=amount)

    def post_chat(self, player_id: str, text: str) -> Deferred[Empty]:
        """A chat line: the owner checks (C-13), keeps and broadcasts it."""
        return self._call("chat", player_id, text=text).addCallback(lambda _: Empty())

    def reconnected(self, player_id: str) -> Deferred[Any]:
        """C-14: the owner sends the snapshot (and the action request) to the player; `at`,
        by this node's clock, lets the owner tell an older drop notice stale."""
        return self._call("reconnected", player_id, at=self.registry.clock.seconds())

    def disconnected(self, player_id: str) -> None:
        """C-14, T-12: the player dropped (told to the owner; nobody waits)."""

        def failed(failure: Failure) -> None:
            log.warning("remote_notice_failed", table_id=self.table_id, error=str(failure.value))

        self._call("disconnected", player_id, at=self.registry.clock.seconds()).addErrback(failed)


def _then_snapshot(_: object, table: RemoteTourneyTable, player: str) -> Deferred[Any]:
    """Once watching again: the table's snapshot to the player (C-14)."""
    return table.reconnected(player)


def _summary(line: TourneyLine) -> TournamentSummary:
    return msgspec.convert(line.summary, TournamentSummary)
