"""JSON lines: one UTF-8 JSON object per line, at most 64 KiB a frame (docs/PROTOCOL.md).

Pure: bytes in, frames out. `FrameDecoder.feed` accepts data split at any byte and returns
each complete frame as a dict, or as a ProtocolError for a line that is not a JSON object
(the connection survives that). A line longer than MAX_FRAME raises `frame_too_large`:
the session answers and closes, because the rest of the stream cannot be trusted.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError

#: Largest frame in bytes, not counting the terminating newline.
MAX_FRAME = 64 * 1024
NEWLINE = b"\n"

#: One encoder for every frame: `json.dumps` with options builds a new encoder per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
#: The outbound encoder: compact, UTF-8, typed messages (msgspec Structs) and dicts alike.
_FAST = msgspec.json.Encoder()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build a JSON object, refusing a key given twice (no smuggled second `id`)."""
    result = dict(pairs)
    if len(result) < len(pairs):  # a key came twice: name the first one repeated
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen.add(key)
    return result


#: The fast parser (C): a compact frame is parsed by it at a fifth of the cost, and checked
#: (see `decode_frame`); every other frame goes to the json module's parsers below.
_FAST_DECODER = msgspec.json.Decoder()
#: The server's parser, built once (`json.loads` with a hook builds a decoder per call).
_STRICT = json.JSONDecoder(object_pairs_hook=_unique_object, parse_constant=_reject_constant)
_PLAIN = json.JSONDecoder()


def decode_frame(line: bytes, strict: bool = True) -> dict[str, Any]:
    """Parse one frame's bytes (newline removed) into a dict, or raise `bad_frame`.

    `strict` (the server's side) also refuses duplicate keys and NaN/Infinity; a client,
    which trusts the server's encoder, may pass False for a faster plain parse.
    """
    if line.endswith(b"\r"):
        line = line[:-1]
    try:
        fast = _FAST_DECODER.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass  # the json module below names the problem
    else:
        # msgspec keeps the last of a key given twice: a frame it parses is taken as is only
        # when encoding the result gives back the very same bytes (then no key was dropped);
        # any other spelling (spaces, escapes, a repeated key) takes the strict parse below
        if type(fast) is dict and (not strict or _FAST.encode(fast) == line):
            return fast
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError(errors.BAD_FRAME, "frame is not valid UTF-8") from None
    try:
        if text.startswith("\ufeff"):  # as json.loads says it
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        value = (_STRICT if strict else _PLAIN).decode(text)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(errors.BAD_FRAME, f"frame is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ProtocolError(errors.BAD_FRAME, "a frame must be one JSON object")
    if strict and b"\\u" in line and not _is_unicode(value):
        raise ProtocolError(errors.BAD_FRAME, "a string holds a lone surrogate (\\ud800-\\udfff)")
    return value


def _is_unicode(value: dict[str, Any]) -> bool:
    """False if a key or string holds a lone surrogate: JSON escapes can spell one, UTF-8 cannot.

    Such a string can be neither echoed nor stored, so the frame is refused as a whole (P-1).
    """
    try:
        _ENCODER.encode(value).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def encode_frame(message: Any) -> bytes:
    """Serialise one message (a typed server message or a dict) as a compact JSON line.

    msgspec encodes both, several times faster than the json module (docs/PERFORMANCE.md,
    "Frames"). Refuses a frame larger than MAX_FRAME (ValueError) and a value JSON cannot
    hold (TypeError), as json did.
    """
    try:
        raw = _FAST.encode(message)
    except msgspec.EncodeError as exc:
        raise TypeError(str(exc)) from None
    if len(raw) > MAX_FRAME:
        raise ValueError(f"outbound frame of {len(raw)} bytes exceeds {MAX_FRAME}")
    return raw + NEWLINE


class FrameDecoder:
    """Reassembles frames from a byte stream split anywhere (`strict`: see `decode_frame`)."""

    def __init__(self, max_frame: int = MAX_FRAME, *, strict: bool = True) -> None:
        self.max_frame = max_frame
        self.strict = strict
        self._buffer = bytearray()

    @property
    def pending(self) -> int:
        """Bytes received that do not yet end a frame."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[dict[str, Any] | ProtocolError]:
        """Add bytes; return the frames they complete. Raises `frame_too_large` (fatal)."""
        if not self._buffer and data.find(NEWLINE) == len(data) - 1:
            return self._one(data[:-1])  # one whole frame in one read: no reassembly
        self._buffer += data
        frames: list[dict[str, Any] | ProtocolError] = []
        start = 0
        while True:
            end = self._buffer.find(NEWLINE, start)
            if end < 0:
                break
            line = bytes(self._buffer[start:end])
            start = end + 1
            if len(line) > self.max_frame:
                raise self._too_large()
            if not line.strip():
                continue  # blank lines are allowed between frames and ignored
            try:
                frames.append(decode_frame(line, self.strict))
            except ProtocolError as exc:
                frames.append(exc)
        del self._buffer[:start]
        if len(self._buffer) > self.max_frame:
            raise self._too_large()
        return frames

    def _one(self, line: bytes) -> list[dict[str, Any] | ProtocolError]:
        """The frames of a read that holds exactly one line (`line`, without its newline)."""
        if len(line) > self.max_frame:
            raise self._too_large()
        if not line.strip():
            return []
        try:
            return [decode_frame(line, self.strict)]
        except ProtocolError as exc:
            return [exc]

    def _too_large(self) -> ProtocolError:
        self._buffer.clear()
        return ProtocolError(
            errors.FRAME_TOO_LARGE, f"a frame may hold at most {self.max_frame} bytes"
        )
