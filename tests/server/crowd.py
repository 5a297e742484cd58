"""Many protocol clients over real sockets, one thread: bots that play tournaments by the frames
they receive (docs/PROTOCOL.md sections 6 and 9), steered by the test.

Each bot logs in, and answers every `tournament_action_request` at once by its tournament's
mode: `passive` (check, else fold: nobody busts), `duel` (at one table of the tournament only,
the first player to act goes all in and the next one calls, the others fold: at most one player
busts per hand, so the test can stop at an exact number of players left), `all_in` (everyone
shoves and calls: the tournament ends fast). A bot sees only its frames: the hand's actions at
its table (`hand_started`, `player_acted`) say whether someone already shoved or called.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PASSIVE, DUEL, ALL_IN = "passive", "duel", "all_in"


@dataclass
class Bot:
    """One client connection and what it has seen."""

    name: str
    sock: socket.socket | None = None
    buffer: bytes = b""
    next_id: int = 0
    answers: dict[int, dict[str, Any]] = field(default_factory=dict)
    frames: list[dict[str, Any]] = field(default_factory=list)
    table: dict[str, int] = field(default_factory=dict)  # tournament -> table number
    raised: dict[str, int] = field(default_factory=dict)  # table id -> shoves this hand
    called: dict[str, int] = field(default_factory=dict)  # table id -> calls this hand


class Crowd:
    """Every bot's socket in one selector; `pump` reads and answers until a test holds."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.bots: dict[str, Bot] = {}
        self.selector = selectors.DefaultSelector()
        self.mode: dict[str, str] = {}  # tournament -> mode (PASSIVE when not set)
        self.busts: dict[str, list[tuple[str, int]]] = {}  # tournament -> (player, place)
        self.results: dict[str, dict[str, Any]] = {}  # tournament -> tournament_results
        self.cancelled: dict[str, dict[str, dict[str, Any]]] = {}  # tid -> player -> message
        self.errors: list[dict[str, Any]] = []
        #: tournament -> the table whose hand holds its one duel (a shove not yet over): a
        #: second table never duels meanwhile, so knockouts come one hand at a time.
        self.dueling: dict[str, str] = {}
        #: tournament -> knockouts after which it turns passive, as soon as the last is heard
        #: (even while the test waits on an answer): a phase is never overshot.
        self.bust_limit: dict[str, int] = {}

    # ------------------------------------------------------------------ connections

    def connect(self, name: str, *, new: bool) -> Bot:
        """Open a connection for `name`: register (new) or log in again."""
        bot = self.bots.get(name) or Bot(name)
        self.bots[name] = bot
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        sock.setblocking(False)
        bot.sock, bot.buffer = sock, b""
        bot.table.clear()
        self.selector.register(sock, selectors.EVENT_READ, bot)
        self.ok(bot, "hello", version=1, client="desktop")
        self.ok(bot, "register" if new else "login", name=name, password="password 1")
        return bot

    def drop_all(self) -> None:
        """The server is gone: forget every socket."""
        for bot in self.bots.values():
            if bot.sock is not None:
                with contextlib.suppress(KeyError, ValueError):
                    self.selector.unregister(bot.sock)
                bot.sock.close()
                bot.sock = None

    def send(self, bot: Bot, kind: str, **fields: Any) -> int:
        """Send one request; its id."""
        assert bot.sock is not None
        bot.next_id += 1
        line = json.dumps({"type": kind, "id": bot.next_id, **fields}).encode() + b"\n"
        bot.sock.setblocking(True)
        try:
            bot.sock.sendall(line)
        finally:
            bot.sock.setblocking(False)
        return bot.next_id

    def call(self, bot: Bot, kind: str, limit: float = 30.0, **fields: Any) -> dict[str, Any]:
        """A request and its answer (frames that come meanwhile are handled)."""
        request = self.send(bot, kind, **fields)
        self.pump_until(lambda: request in bot.answers, limit)
        return bot.answers.pop(request)

    def ok(self, bot: Bot, kind: str, **fields: Any) -> dict[str, Any]:
        """A request that must succeed; its result."""
        answer = self.call(bot, kind, **fields)
        assert answer["type"] == "ok", (bot.name, kind, answer)
        result: dict[str, Any] = answer["result"]
        return result

    # ------------------------------------------------------------------ reading

    def pump(self, seconds: float) -> None:
        """Read and answer for `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._read(min(left, 0.05))

    def pump_until(self, test: Callable[[], bool], limit: float = 60.0) -> None:
        """Read and answer until `test()`; TimeoutError after `limit` seconds."""
        deadline = time.monotonic() + limit
        while not test():
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {limit} s")
            self._read(0.05)

    def _read(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout):
            bot: Bot = key.data
            sock = bot.sock
            if sock is None:
                continue
            try:
                data = sock.recv(1 << 16)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:
                self.selector.unregister(sock)
                sock.close()
                bot.sock = None
                continue
            bot.buffer += data
            *lines, bot.buffer = bot.buffer.split(b"\n")
            for line in lines:
                if line.strip():
                    self._frame(bot, json.loads(line))

    def _frame(self, bot: Bot, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind in ("ok", "error") and "id" in frame:
            bot.answers[frame["id"]] = frame
            if kind == "error" and frame.get("code") not in ("not_your_turn", "no_hand"):
                self.errors.append({"bot": bot.name, **frame})
            return
        bot.frames.append(frame)
        table_id = frame.get("table_id")
        if kind == "hand_ended" and isinstance(table_id, str):
            tid = table_id.rpartition(".")[0]
            if self.dueling.get(tid) == table_id:
                del self.dueling[tid]
        if kind == "hand_started" and isinstance(table_id, str):
            tid, _, number = table_id.rpartition(".")
            bot.raised[table_id] = bot.called[table_id] = 0
            if any(seat["player"] == bot.name for seat in frame["seats"]):
                bot.table[tid] = int(number)
        elif kind == "table_snapshot" and isinstance(table_id, str):
            tid, _, number = table_id.rpartition(".")
            seats = frame["snapshot"]["seats"]
            if any(seat["player"] == bot.name for seat in seats):
                bot.table[tid] = int(number)
        elif kind == "player_acted" and isinstance(table_id, str):
            if frame.get("action") == "raise" or frame.get("action") == "bet":
                bot.raised[table_id] = bot.raised.get(table_id, 0) + 1
            elif frame.get("action") == "call":
                bot.called[table_id] = bot.called.get(table_id, 0) + 1
        elif kind == "tournament_seat":
            bot.table[frame["tournament_id"]] = frame["table"]
        elif kind == "tournament_finish":
            busts = self.busts.setdefault(frame["tournament_id"], [])
            busts.append((bot.name, frame["place"]))
            if len(busts) >= self.bust_limit.get(frame["tournament_id"], len(busts) + 1):
                self.mode[frame["tournament_id"]] = PASSIVE
            bot.table.pop(frame["tournament_id"], None)
        elif kind == "tournament_results":
            self.results[frame["tournament_id"]] = frame
        elif kind == "tournament_cancelled":
            self.cancelled.setdefault(frame["tournament_id"], {})[bot.name] = frame
        elif kind == "tournament_action_request":
            self._act(bot, frame)

    # ------------------------------------------------------------------ playing

    def duel_table(self, tid: str) -> int | None:
        """The one table of `tid` where duels are played: the lowest with two bots or more."""
        counts: dict[int, int] = {}
        for bot in self.bots.values():
            number = bot.table.get(tid)
            if number is not None:
                counts[number] = counts.get(number, 0) + 1
        return min((n for n, c in counts.items() if c >= 2), default=None)

    def _act(self, bot: Bot, request: dict[str, Any]) -> None:
        tid = request["tournament_id"]
        table_id = f"{tid}.{request['table']}"
        actions = request["actions"]
        mode = self.mode.get(tid, PASSIVE)
        shoved, called = bot.raised.get(table_id, 0), bot.called.get(table_id, 0)
        act: dict[str, Any] = {"action": "check" if actions["check"] else "fold"}
        duel = mode == DUEL and request["table"] == self.duel_table(tid)
        if duel and self.dueling.get(tid, table_id) != table_id:
            duel = False  # another table's duel is not over yet
        if mode == ALL_IN or duel:
            if not shoved and actions["max_raise_to"] is not None:
                act = {"action": "raise", "amount": actions["max_raise_to"]}
                if duel:
                    self.dueling[tid] = table_id
            elif actions["call"] and (not shoved or mode == ALL_IN or not called):
                act = {"action": "call"}  # the shove answered (or all in by calling)
        self.send(bot, "tournament_act", tournament_id=tid, **act)

    def left(self, tid: str, entries: int) -> int:
        """Players left in `tid` by the busts told (re-entries add entries)."""
        return entries - len(self.busts.get(tid, []))
