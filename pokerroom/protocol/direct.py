"""Writing a frame straight to a TCP socket when nothing waits in the transport's buffer.

Twisted's `transport.write` only buffers: the bytes leave on a later reactor turn, after
the descriptor is registered for writing (an `epoll_ctl`), reported writable, sent, and
unregistered (another `epoll_ctl`). A room server writes a small frame to each of a
table's players for every action, so that round trip was a good part of its CPU under
load (docs/PERFORMANCE.md, "Server"). `write_now` sends at once when the transport holds
nothing unsent, which keeps the byte order; whatever the socket does not take, and every
write on another kind of transport, goes through `transport.write` as before.
"""

from __future__ import annotations

from twisted.internet import tcp
from twisted.internet.interfaces import ITransport


def _idle(transport: tcp.Connection) -> bool:
    """True if the TCP transport is open and holds no unsent bytes."""
    return bool(
        transport.connected
        and not transport.TLS
        and not transport.disconnecting
        and not transport._writeDisconnected
        and not transport._tempDataLen
        and len(transport.dataBuffer) == transport.offset
    )


def write_now(transport: ITransport, data: bytes) -> None:
    """Write `data` on `transport`: directly on an idle TCP socket, else buffered by Twisted."""
    connection = transport if isinstance(transport, tcp.Connection) else None
    if connection is None or not _idle(connection):
        transport.write(data)
        return
    try:
        sent = connection.socket.send(data)
    except BlockingIOError:
        sent = 0
    except OSError:  # reset or closed: Twisted's own write path notices and reports it
        transport.write(data)
        return
    if sent < len(data):
        transport.write(data[sent:])
