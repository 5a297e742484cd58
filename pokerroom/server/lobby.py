"""The lobby: the table list, routing of table requests to actors, and the table cap (C-1).

A table is *open* for a player while they watch it (`observe`) or sit at it; the number of
open tables is capped per client kind (C-1: desktop 8, mobile 4, web 4 by default). Open
tables survive a drop (C-14): on login or resume the player gets every one of them back.
Each table command goes to the actor named by `table_id`, with the session's player id.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

import structlog
from twisted.internet.defer import Deferred, maybeDeferred
from twisted.python.failure import Failure

from pokerroom.cash.snapshot import cash_summary
from pokerroom.chat import ChatService
from pokerroom.protocol import errors
from pokerroom.protocol.answers import Answer, Result
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import (
    ChatLine,
    Frame,
    LobbyUpdate,
    TableSummary,
    WireObject,
    frame_type,
)
from pokerroom.protocol.messages import Request
from pokerroom.protocol.results import (
    Balance,
    Empty,
    HistoryPage,
    LobbyPage,
    Muted,
    Observed,
    Unmuted,
)
from pokerroom.server.accounts import Player, PlayerAccounts
from pokerroom.server.hub import Hub
from pokerroom.server.remote import CashTable, ChatRelay, LobbyTable, RemoteTable, RemoteTables
from pokerroom.server.replies import Replies
from pokerroom.server.replies import ledger_key as replies_ledger_key
from pokerroom.server.shedding import ReadLimit
from pokerroom.table.errors import NOT_A_CASH_TABLE

if TYPE_CHECKING:
    from pokerroom.cash import TableActor
    from pokerroom.chat.service import Mute
    from pokerroom.server.casino_desk import CasinoDesk
    from tournaments.desk.desk import TournamentDesk

log = structlog.get_logger("pokerroom.lobby")

#: Where hand histories come from: (player, table_id or None, limit, before cursor or None,
#: format) -> up to limit + 1 (cursor, text) pairs, newest first, text "" for a hand that
#: cannot be written in that format (HandStore.history_page).
Histories: TypeAlias = (
    "Callable[[str, str | None, int, str | None, str], Deferred[list[tuple[str, str]]]]"
)

DEFAULT_TABLE_CAPS = {"desktop": 8, "mobile": 4, "web": 4}  # C-1
#: Money requests that take a client `key` (P-2): a retry gets the first answer.
KEYED_REQUESTS = frozenset(
    {
        "top_up",
        "deposit",
        "tournament_register",
        "tournament_reenter",
        "tournament_rebuy",
        "tournament_addon",
        "stake_buy",
    }
)


#: Most bytes of hand histories in one answer: pages stay small, so that a client that asks
#: for many and does not read holds little of the server's memory (docs/SECURITY.md).
HISTORY_PAGE_BYTES = 16 * 1024


def page_histories(rows: list[tuple[str, str]], limit: int) -> dict[str, Any]:
    """One page from up to `limit` + 1 (cursor, text) rows, newest first.

    At most `limit` hands and HISTORY_PAGE_BYTES of them (always at least one hand);
    `truncated` if the byte budget left out hands of this page; `next` is the cursor for the
    older hands (`before` of the next request), or None when there are none.
    """
    kept: list[str] = []
    used = taken = 0
    last: str | None = None
    for cursor, text in rows[:limit]:
        size = len(text.encode("utf-8")) + 64  # JSON escaping and separators, generously
        if kept and used + size > HISTORY_PAGE_BYTES:
            break
        taken += 1
        last = cursor
        if text:  # "" is a hand that cannot be written in the format asked: left out
            kept.append(text)
            used += size
    more = len(rows) > taken
    return {
        "hands": kept,
        "truncated": taken < min(limit, len(rows)),
        "next": last if more else None,
    }


def _as_answer(result: object) -> Result:
    """An actor's result as the `ok` answer's `result`: its dict or typed result, else `{}`."""
    return result if isinstance(result, dict | WireObject) else Empty()


def _answer(result: Any) -> Answer:
    """An actor's answer as is, without a second Deferred when it came at once (an `act`).

    The session runs the handler inside `maybeDeferred`, so an exception still becomes the
    error answer; skipping a Deferred per action matters under load (PERFORMANCE.md).
    """
    if isinstance(result, Deferred):
        return result.addCallback(_as_answer)
    return _as_answer(result)


class Lobby:
    """Routes requests of logged-in players; counts each player's open tables (C-1)."""

    def __init__(
        self,
        hub: Hub,
        accounts: PlayerAccounts,
        chat: ChatService,
        *,
        caps: Mapping[str, int] | None = None,
        currency: str = "USD",
        allow_deposit: bool = False,
        histories: Histories | None = None,
        reads_per_player: int = 4,
    ) -> None:
        self.hub, self.accounts, self.chat = hub, accounts, chat
        #: Wallet and history reads in flight per player (ARCH 16: shed load fairly).
        self.reads = ReadLimit(reads_per_player)
        #: Set by the room when it runs tournaments.
        self.tournament_desk: TournamentDesk | None = None
        #: Set by the room when it runs casino tables (`casino_*` requests).
        self.casino_desk: CasinoDesk | None = None
        self.caps = {**DEFAULT_TABLE_CAPS, **(caps or {})}
        self.currency = currency
        self.allow_deposit = allow_deposit
        self.histories = histories
        self.tables: dict[str, TableActor] = {}
        #: Cluster mode: the tables other nodes own (docs/design/cluster.md); else None.
        self.remote: RemoteTables | None = None
        self.opening: dict[str, set[str]] = {}  # player -> tables with a sit/observe in flight
        self.subscribers: set[str] = set()
        # P-2: first answers of keyed money requests; a tournament request's retry is rechecked
        self.replies = Replies(hub.clock, recheck=self._replayed)
        hub.audience_of = self._audience
        hub.on_broadcast = self._watch_events

    # -- tables ---------------------------------------------------------------------------
    def add_table(
        self, table_id: str, actor: TableActor, info: Mapping[str, Any] | None = None
    ) -> None:
        """Register a table actor; its lobby summary comes from the actor's config."""
        self.tables[table_id] = actor

    def table_cap(self, client_kind: str) -> int:
        """C-1: how many tables this client kind may have open."""
        return self.caps[client_kind]

    def summary(self, table_id: str) -> TableSummary:
        """The lobby line of one table: its settings and how many sit there."""
        remote = self._remote(table_id)
        if remote is not None:
            return remote.summary()
        actor = self.tables[table_id]
        return cash_summary(actor.config, len(actor.by_player), len(actor.observers))

    def _audience(self, table_id: str) -> set[str]:
        actor: LobbyTable | None = self.tables.get(table_id)
        if actor is None:
            actor = self._tournament_table(table_id)
        return actor.audience if actor is not None else set()  # the actor builds a new set

    def _remote(self, table_id: str) -> RemoteTable | None:
        """The table `table_id` if another node owns it (cluster mode)."""
        if self.remote is None or table_id in self.tables:
            return None
        return self.remote.get(table_id)

    def _actor(self, table_id: str) -> CashTable:
        """The cash table `table_id` (buy-ins, top-ups, sitting out and leaving are cash's)."""
        actor: CashTable | None = self.tables.get(table_id) or self._remote(table_id)
        if actor is None:
            if self._tournament_table(table_id) is not None:
                raise ProtocolError(NOT_A_CASH_TABLE, f"{table_id!r} is a tournament table")
            raise ProtocolError(errors.UNKNOWN_TABLE, f"no table {table_id!r}")
        return actor

    def _tournament_table(self, table_id: str) -> LobbyTable | None:
        desk = self.tournament_desk  # cluster mode: a table of another node's tournament too
        return None if desk is None else desk.any_table(table_id)

    def _table(self, table_id: str) -> LobbyTable:
        """Any table: a cash table, or a running tournament's (`<tournament_id>.<n>`)."""
        table: LobbyTable | None = self.tables.get(table_id) or self._remote(table_id)
        if table is None:
            table = self._tournament_table(table_id)
        if table is None:
            raise ProtocolError(errors.UNKNOWN_TABLE, f"no table {table_id!r}")
        return table

    def open_tables(self, player: str) -> list[str]:
        """The tables the player has open (watches or sits at), sorted; tournament tables
        count too (C-1)."""
        cash = [t for t, actor in self.tables.items() if player in actor.audience]
        if self.remote is not None:
            cash += self.remote.open_tables(player)
        desk = self.tournament_desk
        return sorted(cash + desk.open_tables(player)) if desk is not None else sorted(cash)

    def _check_cap(self, player: str, client_kind: str, table_id: str) -> bool:
        """C-1: may `player` open `table_id`? True if it was not open (nor opening) before."""
        held = set(self.open_tables(player)) | self.opening.get(player, set())
        if table_id in held:
            return False
        cap = self.table_cap(client_kind)
        if len(held) >= cap:
            raise ProtocolError(
                errors.TABLE_CAP_REACHED,
                f"a {client_kind} client may have {cap} tables open; close one first (C-1)",
                {"cap": cap},
            )
        return True

    def _watch_events(self, table_id: str, message: Frame) -> None:
        """Seat changes update the lobby line of subscribers."""
        if frame_type(message) in ("seat_taken", "seat_left") and table_id in self.tables:
            self.hub.send_all(self.subscribers, LobbyUpdate(table=self.summary(table_id)))

    # -- connection events (C-14) ------------------------------------------------------------
    def reconnected(self, player: str) -> list[str]:
        """After login/resume: every open table resends its snapshot to the player (C-14)."""
        tables = self.open_tables(player)
        for table_id in tables:
            self._quietly(self._table(table_id).reconnected, player, table_id)
        if self.tournament_desk is not None:  # T-18: a deal a restart voided, told once
            self.tournament_desk.reconnected(player)
        return tables

    def disconnected(self, player: str) -> None:
        """The player dropped: seats are kept, clocks run on (C-14)."""
        self.subscribers.discard(player)
        for table_id in self.open_tables(player):
            self._quietly(self._table(table_id).disconnected, player, table_id)
        if self.casino_desk is not None:  # confirmed bets still settle (K-9)
            self.casino_desk.disconnected(player)

    def _quietly(self, method: Callable[[str], object], player: str, table_id: str) -> None:
        def failed(failure: Failure) -> None:
            log.warning(
                "table_notice_failed", table_id=table_id, player_id=player, error=str(failure.value)
            )

        maybeDeferred(method, player).addErrback(failed)

    # -- requests ---------------------------------------------------------------------------
    def handle(self, player: Player, client_kind: str, request: Request) -> Answer:
        """Run one request for `player`; returns the `ok` result or a Deferred of it.

        A money request with a `key` runs once per player and key (P-2, `Replies`). An `act`,
        the request a room gets most, goes straight to its table.
        """
        if request.message.name == "act":
            return self._on_act(player, client_kind, **request.args)
        key = request.args.get("key")
        if key is not None and request.name in KEYED_REQUESTS:
            args = tuple(sorted((k, v) for k, v in request.args.items() if k != "key"))
            run = functools.partial(self._route, player, client_kind, request)
            answer: Answer = self.replies.run(player.name, key, (request.name, args), run)
            return answer
        return self._route(player, client_kind, request)

    def _replayed(self, player: str, key: str, content: tuple[Any, ...], answer: Any) -> Any:
        """A keyed request's retry: the tournament desk says what is true now (P-2, "Keys")."""
        desk = self.tournament_desk
        return answer if desk is None else desk.replayed(player, key, content, answer)

    def _route(self, player: Player, client_kind: str, request: Request) -> Answer:
        """Hand the request to its handler (or to the tournament desk)."""
        handler: Callable[..., Answer] | None = getattr(self, f"_on_{request.name}", None)
        desk = self.tournament_desk  # tournament requests go to the tournament desk
        tournament = request.name.startswith(("tournament_", "stake_", "deal_")) or (
            request.name in ("tickets", "my_stakes")
        )
        if handler is None and desk is not None and tournament:
            return desk.handle(player.name, request)
        if handler is None and self.casino_desk is not None and request.name.startswith("casino_"):
            return self.casino_desk.handle(player.name, request)
        if handler is None:
            raise ProtocolError(errors.UNKNOWN_MESSAGE, f"the lobby does not handle {request.name}")
        return handler(player, client_kind, **request.args)

    def _on_lobby_list(
        self, player: Player, kind: str, offset: int = 0, limit: int = 200
    ) -> LobbyPage:
        ids = sorted({*self.tables, *(self.remote.ids() if self.remote is not None else ())})
        page = [self.summary(t) for t in ids[offset : offset + limit]]
        return LobbyPage(tables=page, total=len(ids), offset=offset)

    def _on_lobby_subscribe(
        self, player: Player, kind: str, offset: int = 0, limit: int = 200
    ) -> LobbyPage:
        self.subscribers.add(player.name)
        return self._on_lobby_list(player, kind, offset, limit)

    def _on_lobby_unsubscribe(self, player: Player, kind: str) -> Empty:
        self.subscribers.discard(player.name)
        return Empty()

    def _on_observe(self, player: Player, kind: str, table_id: str) -> Deferred[Observed]:
        actor = self._table(table_id)
        self._check_cap(player.name, kind, table_id)
        d: Deferred[Any] = maybeDeferred(actor.observe, player.name)
        return d.addCallback(lambda snapshot: Observed(snapshot=snapshot))

    def _on_unobserve(self, player: Player, kind: str, table_id: str) -> Deferred[Empty]:
        actor = self._table(table_id)
        if player.name not in actor.audience:
            raise ProtocolError(errors.NOT_AT_TABLE, f"table {table_id} is not open")
        return maybeDeferred(actor.unobserve, player.name).addCallback(_nothing)

    def _on_sit(
        self,
        player: Player,
        kind: str,
        table_id: str,
        buy_in: int,
        seat: int | None = None,
        wait_for_big_blind: bool = False,
    ) -> Deferred[Result]:
        actor = self._actor(table_id)
        name = player.name
        if self._check_cap(name, kind, table_id):  # C-1: count it while the buy-in runs
            self.opening.setdefault(name, set()).add(table_id)
        d = maybeDeferred(actor.sit, name, seat, buy_in, wait_for_big_blind)

        def done(result: object) -> object:
            self.opening.get(name, set()).discard(table_id)
            return result

        return d.addBoth(done).addCallback(_as_answer)

    def _on_top_up(
        self, player: Player, kind: str, table_id: str, amount: int, key: str | None = None
    ) -> Answer:
        ledger_key = None if key is None else replies_ledger_key(player.name, key)
        return _answer(self._actor(table_id).top_up(player.name, amount, ledger_key))

    def _on_sit_out(self, player: Player, kind: str, table_id: str) -> Answer:
        return _answer(self._actor(table_id).sit_out(player.name))

    def _on_sit_in(self, player: Player, kind: str, table_id: str, post: bool = True) -> Answer:
        return _answer(self._actor(table_id).sit_in(player.name, post))

    def _on_act(
        self, player: Player, kind: str, table_id: str, action: str, amount: int | None = None
    ) -> Answer:
        return _answer(self._table(table_id).act(player.name, action, amount))

    def _on_leave(self, player: Player, kind: str, table_id: str) -> Answer:
        return _answer(self._actor(table_id).leave(player.name))

    def _on_chat(self, player: Player, kind: str, table_id: str, text: str) -> Deferred[Empty]:
        remote: ChatRelay | None = self._remote(table_id)  # cluster mode: through the owner
        if remote is None and self.tournament_desk is not None:
            remote = self.tournament_desk.remote_table(table_id)
        if remote is not None:
            if player.name not in remote.audience:
                raise ProtocolError(errors.NOT_AT_TABLE, f"open table {table_id} to chat there")
            return remote.post_chat(player.name, text)
        return self.post_chat(player.name, table_id, text)

    def post_chat(self, name: str, table_id: str, text: str) -> Deferred[Empty]:
        """A chat line at a table this node runs: checked, kept and broadcast (C-13)."""
        actor = self._table(table_id)
        if name not in actor.audience:
            raise ProtocolError(errors.NOT_AT_TABLE, f"open table {table_id} to chat there")
        d = self.chat.post(
            name,
            table_id,
            text,
            in_hand=bool(actor.in_hand(name)),
            hand_running=bool(actor.hand_running),
        )

        def send(line: ChatLine) -> Empty:
            self.hub.broadcast(table_id, line)
            return Empty()

        return d.addCallback(send)

    def _on_wallet(
        self, player: Player, kind: str, currency: str | None = None
    ) -> Deferred[Balance]:
        cur = currency or self.currency
        d = self.reads.run(player.name, lambda: self.accounts.balance(player.name, cur))
        return d.addCallback(lambda balance: Balance(currency=cur, balance=balance))

    def _on_deposit(
        self,
        player: Player,
        kind: str,
        amount: int,
        currency: str | None = None,
        key: str | None = None,
    ) -> Deferred[Balance]:
        if not self.allow_deposit:
            raise ProtocolError(errors.DEPOSITS_DISABLED, "deposits are a development feature")
        cur = currency or self.currency
        d = self.accounts.deposit(player.name, amount, cur, key)
        return d.addCallback(lambda balance: Balance(currency=cur, balance=balance))

    def _on_hand_histories(
        self,
        player: Player,
        kind: str,
        table_id: str | None = None,
        limit: int = 20,
        before: str | None = None,
        format: str = "phh",  # the protocol's field name
    ) -> Deferred[HistoryPage]:
        if self.histories is None:
            raise ProtocolError(errors.UNAVAILABLE, "hand histories are not served yet")
        histories = self.histories
        d = self.reads.run(
            player.name,
            lambda: maybeDeferred(histories, player.name, table_id, limit, before, format),
        )
        return d.addCallback(lambda rows: HistoryPage(**page_histories(rows, limit)))

    def _moderator(self, player: Player, table_id: str | None) -> None:
        if not player.is_moderator:
            raise ProtocolError(errors.NOT_MODERATOR, "only moderators may do this")
        if table_id is not None:
            self._actor(table_id)

    def _on_mute(
        self,
        player: Player,
        kind: str,
        target: str,
        table_id: str | None = None,
        minutes: int | None = None,
        reason: str = "",
    ) -> Deferred[Muted]:
        self._moderator(player, table_id)
        d = self.chat.mute(
            target, by=player.name, table_id=table_id, minutes=minutes, reason=reason
        )

        def until(mute: Mute) -> Muted:
            return Muted(until_ms=mute.until_ms)

        return d.addCallback(until)

    def _on_unmute(
        self, player: Player, kind: str, target: str, table_id: str | None = None
    ) -> Deferred[Unmuted]:
        self._moderator(player, table_id)
        return self.chat.unmute(target, table_id).addCallback(lambda n: Unmuted(lifted=n))


def _nothing(_: object) -> Empty:
    """An empty `ok` result, whatever the actor answered."""
    return Empty()
