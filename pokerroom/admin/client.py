"""The staff side of the admin endpoint: a blocking client for `pokerroom admin` (docs/ADMIN.md).

Addresses: `tcp:HOST:PORT` (or `HOST:PORT`), `unix:PATH`, and `ssl:HOST:PORT` (TLS, the
server's certificate checked against the system's or a given CA file). One request at a time;
each answer is matched by its `id`.
"""

from __future__ import annotations

import itertools
import socket
import ssl
from typing import Any

from pokerroom.protocol.framing import MAX_FRAME, decode_frame, encode_frame

DEFAULT_SERVER = "tcp:127.0.0.1:9998"


class AdminError(Exception):
    """The server refused a request (`code` is stable, docs/ADMIN.md) or the connection failed."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details or {}


def parse_address(text: str) -> tuple[str, str, int]:
    """(kind, host or path, port) of `tcp:HOST:PORT`, `HOST:PORT`, `unix:PATH`, `ssl:HOST:PORT`."""
    kind, _, rest = text.partition(":")
    if kind == "unix" and rest:
        return "unix", rest, 0
    if kind not in ("tcp", "ssl"):
        kind, rest = "tcp", text
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"{text!r} is not tcp:HOST:PORT, ssl:HOST:PORT or unix:PATH")
    return kind, host, int(port)


class AdminClient:
    """One connection to the admin endpoint."""

    def __init__(self, address: str, *, timeout: float = 300.0, cafile: str | None = None) -> None:
        kind, where, port = parse_address(address)
        try:
            if kind == "unix":
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(timeout)
                sock.connect(where)
            else:
                sock = socket.create_connection((where, port), timeout=timeout)
                if kind == "ssl":
                    context = ssl.create_default_context(cafile=cafile)
                    sock = context.wrap_socket(sock, server_hostname=where)
        except OSError as exc:
            raise AdminError("connection_failed", f"cannot reach {address}: {exc}") from None
        self.sock = sock
        self.file = sock.makefile("rwb")
        self._ids = itertools.count(1)

    def close(self) -> None:
        """Close the connection."""
        self.file.close()
        self.sock.close()

    def __enter__(self) -> AdminClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send one request; its `ok` result, or AdminError with the server's code."""
        request_id = next(self._ids)
        frame = {
            "type": kind,
            "id": request_id,
            **{k: v for k, v in fields.items() if v is not None},
        }
        try:
            self.file.write(encode_frame(frame))
            self.file.flush()
            while True:
                line = self.file.readline(MAX_FRAME + 2)
                if not line:
                    raise AdminError("connection_closed", "the server closed the connection")
                answer = decode_frame(line.rstrip(b"\n"), strict=False)
                if answer.get("type") == "goodbye":
                    raise AdminError(str(answer.get("code")), str(answer.get("message")))
                if answer.get("id") != request_id:
                    continue
                if answer.get("type") == "ok":
                    result: dict[str, Any] = answer.get("result") or {}
                    return result
                raise AdminError(
                    str(answer.get("code")), str(answer.get("message")), answer.get("details")
                )
        except OSError as exc:
            raise AdminError("connection_failed", str(exc)) from None

    def login(self, name: str, password: str) -> dict[str, Any]:
        """`staff_login`; the result names the staff member, the role and its commands."""
        return self.request("staff_login", name=name, password=password)
