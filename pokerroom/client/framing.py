"""JSON lines as docs/PROTOCOL.md §1 frames them: one object a line, at most 64 KiB."""

from __future__ import annotations

import json
from typing import Any

MAX_FRAME = 65_536


class FrameError(ValueError):
    """The server sent a line that is not a JSON object, or one too long to be a frame."""


def encode(frame: dict[str, Any]) -> bytes:
    """One request as a line of compact UTF-8 JSON."""
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


class LineDecoder:
    """Bytes in, frames out: frames may arrive split at any byte or several in one read."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buffer = b""

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Every complete frame in the bytes received so far (empty lines ignored)."""
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        if len(self._buffer) > self.max_frame:
            raise FrameError(f"a line longer than {self.max_frame} bytes")
        frames = []
        for raw in lines:
            line = raw.rstrip(b"\r")
            if not line:
                continue
            if len(line) > self.max_frame:
                raise FrameError(f"a line longer than {self.max_frame} bytes")
            try:
                frame = json.loads(line)
            except ValueError as exc:
                raise FrameError(f"a line that is not JSON: {exc}") from None
            if not isinstance(frame, dict):
                raise FrameError("a frame that is not a JSON object")
            frames.append(frame)
        return frames
