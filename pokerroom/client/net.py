"""The client library: one TCP connection speaking docs/PROTOCOL.md, on Qt's event loop.

Qt's `QTcpSocket` rather than asyncio: the windows and the connection share one event loop with
no bridge (no qasync), and a test drives both with `qtbot.waitUntil`. The framing and every
piece of state are plain Python (`framing`, the models); this module only moves frames.

`Connection` is the socket: requests with ids matched to their answers, everything else an
event. `ClientSession` is the handshake on top of it (§3): `hello`, then `register`/`login`,
answering `keepalive` with `ping` (§4), and after a drop (C-14) connecting again and sending
`resume` with the last token.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtNetwork import QAbstractSocket, QTcpSocket

from pokerroom.client.framing import FrameError, LineDecoder, encode

Answer = Callable[[dict[str, Any]], None]
PROTOCOL_VERSION = 1
#: Waits between tries to connect again after a drop, in ms; then the client gives up.
RECONNECT_MS = (250, 500, 1000, 2000, 4000, 8000)


def now_ms() -> int:
    """This machine's clock in ms since the epoch."""
    return int(time.time() * 1000)


class Connection(QObject):
    """A socket with JSON-line requests (`request`) and server messages (`received`)."""

    received = Signal(object)  # a server message that is not an answer
    opened = Signal()
    closed = Signal(str)  # the socket closed, and why ("" when we closed it)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.socket = QTcpSocket(self)
        self.socket.connected.connect(self.opened.emit)
        self.socket.readyRead.connect(self._read)
        self.socket.disconnected.connect(self._disconnected)
        self.socket.errorOccurred.connect(self._error)
        self._decoder = LineDecoder()
        self._answers: dict[int, Answer | None] = {}
        self._next_id = 0
        self._closing = False
        self._reported = True

    @property
    def is_open(self) -> bool:
        """Whether the socket is connected."""
        return self.socket.state() == QAbstractSocket.SocketState.ConnectedState

    def open(self, host: str, port: int) -> None:
        """Connect to a room; `opened`, or `closed` with the reason."""
        self._decoder = LineDecoder()
        self._closing, self._reported = False, False
        self.socket.abort()
        self.socket.connectToHost(host, port)

    def close(self) -> None:
        """Close the connection on purpose (no resume follows)."""
        self._closing = True
        self.socket.disconnectFromHost()
        if self.socket.state() != QAbstractSocket.SocketState.UnconnectedState:
            self.socket.abort()

    def request(self, kind: str, on_answer: Answer | None = None, **fields: Any) -> int:
        """Send a request (§2); `on_answer` gets its `ok` or `error` frame. Its id."""
        self._next_id += 1
        self._answers[self._next_id] = on_answer
        self.socket.write(encode({"type": kind, "id": self._next_id, **fields}))
        return self._next_id

    def _read(self) -> None:
        data = bytes(self.socket.readAll().data())
        try:
            frames = self._decoder.feed(data)
        except FrameError as exc:
            self._fail(str(exc))
            return
        for frame in frames:
            frame_id = frame.get("id")
            if frame.get("type") in ("ok", "error") and frame_id in self._answers:
                on_answer = self._answers.pop(frame_id)
                if on_answer is not None:
                    on_answer(frame)
            else:
                self.received.emit(frame)

    def _fail(self, why: str) -> None:
        self.socket.abort()
        self._report(why)

    def _error(self, error: QAbstractSocket.SocketError) -> None:
        if self.socket.state() != QAbstractSocket.SocketState.ConnectedState:
            self._report(self.socket.errorString() or "connection failed")

    def _disconnected(self) -> None:
        self._report("" if self._closing else "the connection dropped")

    def _report(self, why: str) -> None:
        if self._reported:
            return
        self._reported = True
        lost, self._answers = self._answers, {}
        for request_id, on_answer in lost.items():
            if on_answer is not None:
                message = "the connection closed before the answer"
                on_answer(
                    {"type": "error", "id": request_id, "code": "disconnected", "message": message}
                )
        self.closed.emit("" if self._closing else why)


class ClientSession(QObject):
    """Logged-in use of a room: the handshake, keepalives and resume after a drop (C-14)."""

    logged_in = Signal(object)  # the result of register/login/resume (§3)
    login_failed = Signal(str, str)  # code, message
    dropped = Signal(str)  # the connection dropped; a resume is being tried
    resumed = Signal()
    ended = Signal(str)  # the session is over (goodbye, logout, a resume refused): why
    received = Signal(object)

    def __init__(self, client_kind: str = "desktop", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.connection = Connection(self)
        self.connection.opened.connect(self._opened)
        self.connection.closed.connect(self._closed)
        self.connection.received.connect(self._event)
        self.client_kind = client_kind
        self.host, self.port = "127.0.0.1", 9999
        self.player_id = ""
        self.token = ""
        self.table_cap = 0
        self.clock_offset_ms = 0  # server clock minus ours (from `ping`)
        self.goodbye: dict[str, Any] | None = None
        self._login: tuple[str, dict[str, Any]] | None = None
        self._tries = 0
        self._logged_in = False
        self._resuming = False

    @property
    def online(self) -> bool:
        """Whether we are logged in on an open connection."""
        return self._logged_in and self.connection.is_open and not self._resuming

    def server_now_ms(self) -> int:
        """The server's clock now, as far as we can tell (deadlines are on it, §1)."""
        return now_ms() + self.clock_offset_ms

    def login(self, host: str, port: int, name: str, password: str, register: bool) -> None:
        """Connect, `hello`, then `register` or `login`: `logged_in` or `login_failed`."""
        self.host, self.port = host, port
        self._login = ("register" if register else "login", {"name": name, "password": password})
        self._resuming, self._logged_in, self.goodbye = False, False, None
        self.connection.open(host, port)

    def logout(self) -> None:
        """Forget the token and close (seats stay as after a drop, §3)."""
        if self.connection.is_open and self._logged_in:
            self.connection.request("logout")
        self._logged_in = False
        self.token = ""
        self.connection.close()
        self.ended.emit("logged out")

    def request(self, kind: str, on_answer: Answer | None = None, **fields: Any) -> int | None:
        """A request on the logged-in connection; None (and an error answer) while offline."""
        if not self.online:
            if on_answer is not None:
                on_answer(
                    {
                        "type": "error",
                        "id": None,
                        "code": "disconnected",
                        "message": "not connected: reconnecting",
                    }
                )
            return None
        return self.connection.request(kind, on_answer, **fields)

    # -- the handshake -------------------------------------------------------------------------
    def _opened(self) -> None:
        hello = {
            "version": PROTOCOL_VERSION,
            "client": self.client_kind,
            "agent": "pokerroom-client",
        }
        self.connection.request("hello", self._helloed, **hello)

    def _helloed(self, answer: dict[str, Any]) -> None:
        if answer["type"] != "ok":
            self._refused(answer)
            return
        self.table_cap = int(answer["result"]["table_cap"])
        if self._resuming:
            self.connection.request("resume", self._answered, token=self.token)
        elif self._login is not None:
            kind, fields = self._login
            self.connection.request(kind, self._answered, **fields)

    def _answered(self, answer: dict[str, Any]) -> None:
        if answer["type"] != "ok":
            self._refused(answer)
            return
        result = answer["result"]
        self.player_id, self.token = result["player_id"], result["token"]
        self._login = None  # the password is not kept once logged in
        sent = now_ms()
        self.connection.request("ping", lambda a: self._pinged(a, sent))
        was_resuming, self._resuming, self._logged_in, self._tries = self._resuming, False, True, 0
        if was_resuming:
            self.resumed.emit()
        self.logged_in.emit(result)

    def _pinged(self, answer: dict[str, Any], sent_ms: int) -> None:
        if answer["type"] == "ok":
            middle = (sent_ms + now_ms()) // 2
            self.clock_offset_ms = int(answer["result"]["server_time_ms"]) - middle

    def _refused(self, answer: dict[str, Any]) -> None:
        code, message = str(answer.get("code")), str(answer.get("message", ""))
        self.connection.close()
        if self._resuming:
            self._resuming, self._logged_in = False, False
            self.ended.emit(f"resume refused ({code}): log in again")
        else:
            self.login_failed.emit(code, message)

    # -- traffic and drops ---------------------------------------------------------------------
    def _event(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "keepalive":
            self.connection.request("ping")
        elif kind == "goodbye":
            self.goodbye = frame
        self.received.emit(frame)

    def _closed(self, why: str) -> None:
        if not why:
            return  # we closed it
        if self.goodbye is not None and self.goodbye.get("code") in ("session_replaced", "banned"):
            self._logged_in = False
            self.ended.emit(f"{self.goodbye['code']}: {self.goodbye.get('message', '')}")
            return
        if not self._logged_in or not self.token:
            if self._resuming:
                self._retry()
            else:
                self.login_failed.emit("disconnected", why)
            return
        if not self._resuming:
            self._resuming, self._tries = True, 0
            self.dropped.emit(why)
        self._retry()

    def _retry(self) -> None:
        if self._tries >= len(RECONNECT_MS):
            self._resuming, self._logged_in = False, False
            self.ended.emit("the room cannot be reached: log in again")
            return
        wait = RECONNECT_MS[self._tries]
        self._tries += 1
        self.goodbye = None
        QTimer.singleShot(wait, lambda: self.connection.open(self.host, self.port))
