"""The room's casino tables: opens them, routes `casino_*` requests, delivers their events.

The desk is each table's `CasinoListener`: it turns the table's events into protocol messages
(`pokerroom.protocol.casino_messages`) and sends them through the hub: public events to the
table's players and watchers, a player's own settlement to that player only. `serve` opens one
table of each round game from `config/casino/` (`open_default`); a table that cannot open (bad
settings) is logged and left out.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

import msgspec
import structlog
from twisted.internet.defer import Deferred, gatherResults
from twisted.internet.interfaces import IReactorTime

from pokerroom.casino import events as ev
from pokerroom.casino import settings
from pokerroom.casino.actor import CasinoTable
from pokerroom.casino.blackjack_table import BlackjackTable
from pokerroom.casino.caps import table_caps
from pokerroom.casino.core.cards import RandomSource
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.games import ROUND_GAMES, BlackjackGame, RoundGame, make_game
from pokerroom.casino.round_state import Confirmed
from pokerroom.casino.rounds import RoundStore
from pokerroom.casino.store import HistoryRound
from pokerroom.casino.table_config import CasinoTableConfig
from pokerroom.protocol import casino_messages as cm
from pokerroom.protocol import errors
from pokerroom.protocol.answers import Answer
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import ServerMessage
from pokerroom.protocol.messages import Request
from pokerroom.protocol.results import Empty
from pokerroom.protocol.wire import as_dict
from pokerroom.server.hub import Hub

log = structlog.get_logger("pokerroom.casino")
#: Requests answered with the draft, and the table's method for each (K-3).
DRAFT_REQUESTS = {
    "casino_place": "place",
    "casino_undo": "undo",
    "casino_double": "double",
    "casino_rebet": "rebet",
}


class RemoteCasino(Protocol):
    """Cluster mode: the casino tables another node runs (pokerroom/cluster/casino.py)."""

    def handle(self, player: str, table_id: str, name: str, args: dict[str, Any]) -> Answer:
        """A request for a table another node runs: carried to it (its answer or refusal)."""
        ...

    def views(self, table_ids: list[str]) -> Deferred[list[Any]]:
        """The lobby lines of these tables, from the nodes that run them."""
        ...

    def disconnected(self, player: str) -> None:
        """The player's session here ended: they leave the tables other nodes run."""
        ...


class CasinoDesk:
    """The casino tables of one room, by id."""

    def __init__(self, clock: IReactorTime, store: RoundStore, hub: Hub, currency: str) -> None:
        self.clock, self.store, self.hub, self.currency = clock, store, hub, currency
        self.tables: dict[str, CasinoTable] = {}
        #: Every table this room runs somewhere: id -> (config, its game's settings).
        self.specs: dict[str, tuple[CasinoTableConfig, Mapping[str, Any]]] = {}
        self.source: RandomSource = secrets.SystemRandom()  # RNG-1
        self._rules: dict[str, RoundGame] = {}  # built by `prepare`, used by the first `build`
        #: Cluster mode: the tables of `specs` another node runs (else None: every one is here).
        self.remote: RemoteCasino | None = None

    def prepare(self, folder: Path | None = None, rng: RandomSource | None = None) -> list[str]:
        """The tables of the room, one of each game (`<game>-1`) whose settings load; their
        ids. Nothing is started (`build` makes a table)."""
        self.source = rng or self.source
        for game in (*ROUND_GAMES, "blackjack"):
            try:
                found = settings.game_table(game, folder)
                rules = make_game(game, found, self.source)
                max_win, review_at = table_caps(self.currency, folder)
            except (ValueError, KeyError, OSError) as exc:  # CasinoError is a ValueError too
                log.error("casino_table_not_opened", game=game, error=str(exc))
                continue
            config = CasinoTableConfig(f"{game}-1", game, self.currency, max_win, review_at)
            self.specs[config.table_id] = (config, found)
            self._rules[config.table_id] = rules
        return list(self.specs)

    def build(self, table_id: str, store: RoundStore) -> CasinoTable:
        """A new table `table_id` of `specs` on `store`, not started."""
        config, found = self.specs[table_id]
        rules = self._rules.pop(table_id, None) or make_game(config.game, found, self.source)
        if isinstance(rules, BlackjackGame):
            return BlackjackTable(config, game=rules, clock=self.clock, store=store, listener=self)
        return CasinoTable(config, game=rules, clock=self.clock, store=store, listener=self)

    def open_default(
        self, folder: Path | None = None, rng: RandomSource | None = None
    ) -> Deferred[list[Any]]:
        """One table of each game (`<game>-1`), started (its open rounds voided)."""
        starting = []
        for table_id in self.prepare(folder, rng):
            table = self.build(table_id, self.store)
            self.tables[table_id] = table
            starting.append(table.start())
        return gatherResults(starting, consumeErrors=True)

    def stop(self) -> None:
        """Stop every table's timers (open rounds are voided at the next start)."""
        for table in self.tables.values():
            table.stop()

    def disconnected(self, player: str) -> None:
        """The player dropped or logged out: they leave every casino table; their confirmed
        bets still settle (K-9) and the result is in their history. An idle table rests."""
        for table in self.tables.values():
            table.leave(player)
        if self.remote is not None:
            self.remote.disconnected(player)

    # -- CasinoListener ---------------------------------------------------------------------
    def tell(self, players: Iterable[str], event: ev.CasinoEvent) -> None:
        """Deliver a table event as its protocol message."""
        message = as_message(event)
        for player in players:
            self.hub.send(player, message)

    def line(self, table_id: str) -> dict[str, Any]:
        """A table's lobby line as plain JSON values (for a node that does not run it)."""
        table = self.tables.get(table_id)
        if table is None:
            raise ProtocolError(errors.CLUSTER_UNAVAILABLE, f"{table_id} is not run here now")
        return as_dict(view(table))

    # -- requests ---------------------------------------------------------------------------
    def handle(self, player: str, request: Request) -> Answer:
        """Run one `casino_*` request for `player`."""
        return self.run(player, request.name, dict(request.args))

    def run(self, player: str, name: str, args: dict[str, Any]) -> Answer:
        """Run one `casino_*` request (its name and checked fields) for `player`."""
        if name == "casino_tables":
            here = [view(t) for t in self.tables.values()]
            elsewhere = [t for t in self.specs if t not in self.tables]
            if self.remote is None or not elsewhere:
                return cm.CasinoTablesAnswer(tables=here)
            return self.remote.views(elsewhere).addCallback(
                lambda lines: {"tables": [as_dict(v) for v in here] + lines}
            )
        if name == "casino_history":
            found = self.store.history(player, int(args.get("limit", 20)))
            return found.addCallback(history_answer)
        table_id = str(args.pop("table_id"))
        table = self.tables.get(table_id)
        if table is None and self.remote is not None and table_id in self.specs:
            return self.remote.handle(player, table_id, name, args)
        if table is None:
            raise ProtocolError(errors.UNKNOWN_TABLE, "no casino table has this table_id")
        if name == "casino_join":
            table.join(player)
            return cm.CasinoTableAnswer(table=view(table))
        if name == "casino_observe":
            table.observe(player)
            return cm.CasinoTableAnswer(table=view(table))
        if name == "casino_leave":
            table.leave(player)
            return Empty()
        if name in DRAFT_REQUESTS:
            if name == "casino_place":
                draft = table.place(player, str(args["spot"]), int(args["amount"]))
            else:
                draft = getattr(table, DRAFT_REQUESTS[name])(player)
            return cm.CasinoDraftAnswer(bets=[cm.CasinoBet(s, a) for s, a in draft.items()])
        if name == "casino_clear":
            table.clear(player)
            return Empty()
        if name == "casino_decide":
            if not isinstance(table, BlackjackTable):
                raise CasinoError("wrong_phase", "decisions are for blackjack tables")
            done = table.decide(player, int(args["box"]), str(args["action"]), args.get("key"))
            return Empty() if done is None else done.addCallback(lambda _: Empty())
        if name == "casino_confirm":
            return table.confirm(player, str(args["key"])).addCallback(confirm_answer)
        raise ProtocolError(errors.UNKNOWN_MESSAGE, f"the casino does not handle {name}")


def view(table: CasinoTable) -> cm.CasinoTableView:
    """A table's lobby line."""
    current = table.round
    return cm.CasinoTableView(
        table_id=table.table_id,
        game=table.config.game,
        currency=table.config.currency,
        phase=table.phase,
        round_id=current.round_id if current is not None else None,
        closes_ms=current.closes_ms if current is not None else None,
        players=len(table.players),
    )


def confirm_answer(done: Confirmed) -> cm.CasinoConfirmAnswer:
    """A confirmation's `ok`."""
    bets = [cm.CasinoBet(spot, amount) for spot, amount in done.bets]
    return cm.CasinoConfirmAnswer(done.round_id, bets, done.staked, done.replayed)


def history_answer(rounds: tuple[HistoryRound, ...]) -> cm.CasinoHistoryAnswer:
    """A player's history as its `ok`."""
    return cm.CasinoHistoryAnswer(
        rounds=[
            cm.CasinoRoundView(
                round_id=r.round_id,
                table_id=r.table_id,
                game=r.game,
                status=r.status,
                opened_ms=r.opened_ms,
                outcome=r.outcome,
                bets=[cm.CasinoBet(spot, stake) for spot, stake in r.bets],
                paid=r.paid,
            )
            for r in rounds
        ]
    )


#: Each table event and the message that carries it: the same fields by name, nested objects
#: (totals, lines) too (tests/server/test_casino_protocol.py checks both declarations agree).
MESSAGES: dict[type, type[ServerMessage]] = {
    ev.BettingOpened: cm.CasinoBettingOpen,
    ev.BettingClosed: cm.CasinoBettingClosed,
    ev.RoundResult: cm.CasinoResult,
    ev.OwnSettlement: cm.CasinoSettlement,
    ev.RoundVoided: cm.CasinoRoundVoid,
    ev.TableState: cm.CasinoTableState,
    ev.BlackjackMove: cm.CasinoBlackjackMove,
    ev.DecisionDue: cm.CasinoDecisionDue,
}


def as_message(event: ev.CasinoEvent) -> ServerMessage:
    """A table event as the message the client receives."""
    return msgspec.convert(event, MESSAGES[type(event)], from_attributes=True)
