"""A client side of the protocol for Twisted programs (bots, the demo, tests).

`ClientProtocol.request(type, **fields)` sends a request and returns a Deferred that fires
with the `ok` result or fails with ProtocolError(code, message). Every other frame goes to
`on_event(frame)`. The framing is the server's (pokerroom.protocol.framing).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, cast

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import ITCPTransport
from twisted.internet.protocol import Protocol, connectionDone
from twisted.python.failure import Failure

from pokerroom.protocol import errors
from pokerroom.protocol.direct import write_now
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.framing import FrameDecoder, encode_frame


class ClientProtocol(Protocol):
    """One connection to a room server, seen from the client."""

    def __init__(
        self,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        on_frame: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.on_event = on_event or (lambda frame: None)
        #: Sees every frame, answers included, before it is routed (the bots validate it).
        self.on_frame = on_frame
        self._decoder = FrameDecoder(strict=False)  # the server's frames are well-formed
        self._ids = itertools.count(1)
        #: Requests waiting for their answer, by id (looked up with the id the server echoes).
        self._waiting: dict[object, Deferred[dict[str, Any]]] = {}
        self.connected_d: Deferred[ClientProtocol] = Deferred()
        self.lost_d: Deferred[None] = Deferred()
        self.goodbye: dict[str, Any] | None = None

    def connectionMade(self) -> None:
        """Fire `connected_d`."""
        if hasattr(self.transport, "setTcpNoDelay"):  # small frames: no Nagle delay
            cast(ITCPTransport, self.transport).setTcpNoDelay(True)
        self.connected_d.callback(self)

    def dataReceived(self, data: bytes) -> None:
        """Route answers to their requests and everything else to `on_event`."""
        for frame in self._decoder.feed(data):
            if isinstance(frame, ProtocolError):
                raise frame  # the server never sends a malformed frame
            if self.on_frame is not None:
                self.on_frame(frame)
            kind = frame.get("type")
            waiter = self._waiting.pop(frame.get("id"), None) if kind in ("ok", "error") else None
            if waiter is not None:
                if kind == "ok":
                    waiter.callback(frame.get("result", {}))
                else:
                    waiter.errback(
                        ProtocolError(frame["code"], frame["message"], frame.get("details"))
                    )
                continue
            if kind == "goodbye":
                self.goodbye = frame
            elif kind == "keepalive":
                self.request("ping").addErrback(lambda _: None)
            self.on_event(frame)

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        """Fail every request still waiting."""
        waiting, self._waiting = self._waiting, {}
        for d in waiting.values():
            d.errback(ProtocolError(errors.SERVER_SHUTDOWN, "connection lost"))
        self.lost_d.callback(None)

    def request(self, kind: str, **fields: Any) -> Deferred[dict[str, Any]]:
        """Send one request; fires with its `ok` result or fails with ProtocolError."""
        transport = self.transport
        if transport is None:
            raise RuntimeError(f"request {kind!r} before the connection was made")
        request_id = next(self._ids)
        d: Deferred[dict[str, Any]] = Deferred()
        self._waiting[request_id] = d
        write_now(transport, encode_frame({"type": kind, "id": request_id, **fields}))
        return d
