"""The chat service (C-13): mutes, rate limit, repeats, filters, and a log of every line.

Decisions are made on the reactor thread from memory, with time from an injected
IReactorTime. Every line shown is kept: accepted lines go to a bounded queue that
`pokerroom.chat.batch.LineWriter` writes to `chat_lines` in batches through the ledger's log
lane, never on the path that settles hands (docs/ARCHITECTURE.md rule 16). A refused line
(muted, rate-limited, too long, filtered) is answered at once and touches no database: it is
only counted (`ChatService.refused`). Mutes are written through the log lane too.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
import structlog
from sqlalchemy.engine import Engine
from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import IReactorTime

from pokerroom.chat.batch import ChatLine, LineWriter
from pokerroom.chat.filters import ChatRules, first_problem, normalise
from pokerroom.ledger import LedgerService
from pokerroom.ledger.db import in_transaction, read
from pokerroom.protocol import errors, events
from pokerroom.protocol.errors import ProtocolError
from pokerroom.server.schema import chat_lines, chat_mutes

log = structlog.get_logger("pokerroom.chat")

MESSAGES = {
    errors.CHAT_EMPTY: "the line is empty",
    errors.CHAT_TOO_LONG: "the line is too long",
    errors.CHAT_HAND_IN_PROGRESS: "no talk about a hand in progress by a player not in it",
    errors.CHAT_ADVERTISING: "links and advertising are not allowed",
    errors.CHAT_LANGUAGE: "that language is not allowed here",
    errors.CHAT_FLOOD: "too many symbols or repeated characters",
    errors.CHAT_REPEATED: "you just said that",
    errors.CHAT_RATE_LIMITED: "you are chatting too fast; wait a moment",
}


@dataclass(frozen=True, slots=True)
class Mute:
    """A mute: at `table_id` (None: everywhere), until `until_ms` (None: for good)."""

    id: int
    player: str
    table_id: str | None
    until_ms: int | None

    def applies(self, table_id: str | None, now_ms: int) -> bool:
        """True if it silences the player at `table_id` at `now_ms`."""
        at_table = self.table_id is None or self.table_id == table_id
        return at_table and (self.until_ms is None or now_ms < self.until_ms)


def _insert_mute(engine: Engine, values: dict[str, Any]) -> int:
    return _inserted_id(engine, sa.insert(chat_mutes).values(**values))


def _inserted_id(engine: Engine, statement: sa.Insert) -> int:
    """Run one INSERT in its own transaction; the new row's integer id."""

    def work(conn: sa.Connection) -> int:
        key = conn.execute(statement).inserted_primary_key
        assert key is not None  # a single-row INSERT always reports its key
        new_id: int = key[0]
        return new_id

    return in_transaction(engine, work)


def _lift_mutes(engine: Engine, ids: list[int], now_ms: int) -> None:
    stmt = chat_mutes.update().where(chat_mutes.c.id.in_(ids)).values(lifted_ms=now_ms)
    in_transaction(engine, lambda conn: conn.execute(stmt))


def _active_mutes(engine: Engine, now_ms: int) -> list[Mute]:
    query = sa.select(chat_mutes).where(
        chat_mutes.c.lifted_ms.is_(None),
        sa.or_(chat_mutes.c.until_ms.is_(None), chat_mutes.c.until_ms > now_ms),
    )
    rows = read(engine, lambda conn: list(conn.execute(query)))
    return [Mute(r.id, r.player, r.table_id, r.until_ms) for r in rows]


def chat_log(engine: Engine, table_id: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """The latest stored chat lines, oldest first: for staff and tests.

    Lines refused before this server stored none carry their refusal code in `refused`.
    """
    query = sa.select(chat_lines).order_by(chat_lines.c.id.desc()).limit(limit)
    if table_id is not None:
        query = query.where(chat_lines.c.table_id == table_id)
    rows = read(engine, lambda conn: list(conn.execute(query)))
    return [dict(r._mapping) for r in reversed(rows)]


class ChatService:
    """Accepts or refuses chat lines (C-13) and keeps every line it shows."""

    def __init__(self, clock: IReactorTime, ledger: LedgerService, rules: ChatRules) -> None:
        self.clock = clock
        self.ledger = ledger
        self.rules = rules
        self.writer = LineWriter(
            clock,
            ledger,
            max_lines=rules.log_queue_lines,
            max_bytes=rules.log_queue_bytes,
            batch_seconds=rules.log_batch_seconds,
        )
        self.refused: Counter[str] = Counter()  # refused lines by code: counted, never stored
        self._mutes: dict[str, list[Mute]] = {}
        #: Bumped by each mute made or lifted here: a load whose read began before one is
        #: older than what is in memory, and reads again (cluster mode reloads every 30 s).
        self._version = 0
        #: Cluster mode: called after a mute is stored or lifted here, so that the other nodes
        #: read the mutes again (docs/design/cluster.md).
        self.changed: Callable[[], None] | None = None
        self._recent: dict[str, deque[float]] = {}
        self._last_lines: dict[str, deque[tuple[float, str]]] = {}

    def now_ms(self) -> int:
        """The clock in ms."""
        return int(self.clock.seconds() * 1000)

    def load(self) -> Deferred[None]:
        """Read the active mutes from the database (at start-up; in cluster mode again when
        another node rings and every `staff_reload_seconds`)."""
        version = self._version
        d = self.ledger.read(_active_mutes, self.now_ms())

        def keep(mutes: list[Mute]) -> Deferred[None] | None:
            if self._version != version:  # a mute made or lifted here since the read began
                return self.load()
            self._mutes.clear()
            for mute in mutes:
                self._mutes.setdefault(mute.player, []).append(mute)
            return None

        return d.addCallback(keep)

    def mute_of(self, player: str, table_id: str | None) -> Mute | None:
        """The mute silencing `player` at `table_id` now, if any."""
        now = self.now_ms()
        return next((m for m in self._mutes.get(player, []) if m.applies(table_id, now)), None)

    def post(
        self, player: str, table_id: str, text: str, *, in_hand: bool, hand_running: bool
    ) -> Deferred[events.ChatLine]:
        """Check a line; fires at once with the `chat` event (the line is stored in the next
        batch), or raises the reason it is refused: nothing is stored for a refused line."""
        now = self.clock.seconds()
        code = self._check(player, table_id, text, now, in_hand=in_hand, hand_running=hand_running)
        if code is not None:
            self.refused[code] += 1
            mute = self.mute_of(player, table_id) if code == errors.CHAT_MUTED else None
            details = {"until_ms": mute.until_ms} if mute is not None else None
            message = MESSAGES.get(code) or "you are muted"
            raise ProtocolError(code, message, details)
        at_ms = int(now * 1000)
        if not self.writer.add(ChatLine(at_ms, table_id, player, text)):
            self.refused[errors.SERVER_BUSY] += 1
            raise ProtocolError(errors.SERVER_BUSY, "chat is busy; try again in a moment")
        self._recent.setdefault(player, deque()).append(now)
        self._last_lines.setdefault(player, deque()).append((now, normalise(text)))
        return succeed(events.ChatLine(table_id=table_id, player=player, text=text, at_ms=at_ms))

    def flush(self) -> Deferred[None]:
        """Fires once every accepted line so far is stored (shutdown, staff tools, tests)."""
        return self.writer.flush()

    def close(self) -> Deferred[None]:
        """Server shutdown: store the queued lines (waiting a moment at most), then stop."""
        return self.writer.close()

    def _check(
        self,
        player: str,
        table_id: str,
        text: str,
        now: float,
        *,
        in_hand: bool,
        hand_running: bool,
    ) -> str | None:
        if self.mute_of(player, table_id) is not None:
            return errors.CHAT_MUTED
        recent = self._recent.setdefault(player, deque())
        while recent and recent[0] <= now - self.rules.rate_seconds:
            recent.popleft()
        if len(recent) >= self.rules.rate_lines:
            return errors.CHAT_RATE_LIMITED
        code = first_problem(text, self.rules, in_hand=in_hand, hand_running=hand_running)
        if code is not None:
            return code
        lines = self._last_lines.setdefault(player, deque())
        while lines and lines[0][0] <= now - self.rules.repeat_seconds:
            lines.popleft()
        folded = normalise(text)
        if folded and any(previous == folded for _, previous in lines):
            return errors.CHAT_REPEATED
        return None

    def mute(
        self,
        player: str,
        *,
        by: str,
        table_id: str | None = None,
        minutes: int | None = None,
        reason: str = "",
    ) -> Deferred[Mute]:
        """Mute `player` at a table or everywhere, for `minutes` or for good (C-13)."""
        now = self.now_ms()
        until = None if minutes is None else now + minutes * 60_000
        values = dict(
            player=player,
            table_id=table_id,
            until_ms=until,
            by_player=by,
            reason=reason,
            created_ms=now,
        )

        def keep(mute_id: int) -> Mute:
            mute = Mute(mute_id, player, table_id, until)
            self._mutes.setdefault(player, []).append(mute)
            self._version += 1
            log.info("chat_muted", player_id=player, table_id=table_id, by=by, until_ms=until)
            self._changed()
            return mute

        return self.ledger.write_log(_insert_mute, values).addCallback(keep)

    def remember(self, mute: Mute) -> None:
        """Apply a mute stored elsewhere (by staff, in the transaction of its audit row)."""
        self._mutes.setdefault(mute.player, []).append(mute)
        self._version += 1
        self._changed()

    def forget(self, player: str, table_id: str | None) -> None:
        """Stop applying mutes lifted elsewhere: the player's at `table_id` (None: global)."""
        self._mutes[player] = [m for m in self._mutes.get(player, []) if m.table_id != table_id]
        self._version += 1
        self._changed()

    def unmute(self, player: str, table_id: str | None = None) -> Deferred[int]:
        """Lift the player's mutes at `table_id` (None: the global ones); fires with the count."""
        lifted = [m for m in self._mutes.get(player, []) if m.table_id == table_id]
        if not lifted:
            return succeed(0)
        self._mutes[player] = [m for m in self._mutes[player] if m not in lifted]
        self._version += 1
        ids = [m.id for m in lifted]
        d = self.ledger.write_log(_lift_mutes, ids, self.now_ms())

        def lifted_now(_: object) -> int:
            # a load that read them before this write must not have put them back
            self._mutes[player] = [m for m in self._mutes.get(player, []) if m.id not in ids]
            self._version += 1
            self._changed()
            return len(lifted)

        return d.addCallback(lifted_now)

    def _changed(self) -> None:
        if self.changed is not None:
            self.changed()
