"""JSON-lines framing: reassembly at every split, size limit, malformed frames (P-1)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.framing import MAX_FRAME, FrameDecoder, decode_frame, encode_frame

FRAMES = [
    {"type": "hello", "id": 1, "version": 1, "client": "desktop"},
    {"type": "chat", "id": "x", "table_id": "nl-1", "text": "gl ♠ 你好"},
    {"type": "ping", "id": 2},
]


def test_frames_split_at_every_byte_reassemble() -> None:
    """Any split of the stream into two chunks yields the same frames."""
    stream = b"".join(encode_frame(frame) for frame in FRAMES)
    for cut in range(len(stream) + 1):
        decoder = FrameDecoder()
        got = decoder.feed(stream[:cut]) + decoder.feed(stream[cut:])
        assert got == FRAMES, cut
        assert decoder.pending == 0


def test_one_byte_at_a_time() -> None:
    """Feeding a byte at a time (multi-byte UTF-8 characters cut in half) still works."""
    stream = b"".join(encode_frame(frame) for frame in FRAMES)
    decoder = FrameDecoder()
    got = []
    for i in range(len(stream)):
        got += decoder.feed(stream[i : i + 1])
    assert got == FRAMES


def test_crlf_and_blank_lines_are_accepted() -> None:
    """Lines may end in CRLF; empty lines between frames are ignored."""
    assert FrameDecoder().feed(b'\r\n{"type":"ping","id":1}\r\n\n') == [{"type": "ping", "id": 1}]


@pytest.mark.parametrize(
    "raw",
    [b"not json", b"[1,2]", b'"text"', b"\xff\xfe{}", b'{"id":1,"id":2}', b'{"a":NaN}', b"{"],
)
def test_malformed_frame_is_an_error_item_and_the_stream_goes_on(raw: bytes) -> None:
    """A bad line becomes a `bad_frame` error; the next frame still decodes."""
    decoder = FrameDecoder()
    first, second = decoder.feed(raw + b'\n{"type":"ping","id":3}\n')
    assert isinstance(first, ProtocolError) and first.code == errors.BAD_FRAME
    assert second == {"type": "ping", "id": 3}


@pytest.mark.parametrize(
    "raw",
    [
        b'{"type":"act","id":1,"id":2}',  # compact: the fast parser keeps the last and
        b'{"a":{"b":1,"b":1}}',  # would pass it on without the check (nested too)
        b'{"a":[{"b":1,"c":2,"b":3}]}',
        b'{"a":"\\ud800"}',  # a lone surrogate
        b'{"a":Infinity}',
    ],
)
def test_the_fast_parse_refuses_what_the_strict_one_refuses(raw: bytes) -> None:
    """P-1: a repeated key, a lone surrogate or a non-number is `bad_frame` however compact."""
    with pytest.raises(ProtocolError) as caught:
        decode_frame(raw)
    assert caught.value.code == errors.BAD_FRAME
    assert isinstance(decode_frame(raw, strict=False), dict)  # a client's plain parse


@pytest.mark.parametrize(
    "raw",
    [
        b'{"type":"act","id":7,"table_id":"t1","action":"call"}',
        b'{ "type" : "act", "id" : 7 }',
        b'{"t":"\\u00e9\\n","n":1.5e3,"big":123456789012345678901234567890,"x":[true,null]}',
        b'{"a":{"a":{"a":1}},"b":{"a":2}}',  # the same key in different objects is fine
    ],
)
def test_every_spelling_parses_as_the_json_module_does(raw: bytes) -> None:
    """Compact or not, escaped or not: the same dict as the strict json parse."""
    assert decode_frame(raw) == json.loads(raw) == decode_frame(raw, strict=False)


def test_oversized_frame_is_fatal_even_before_its_newline() -> None:
    """More than 64 KiB without a newline raises frame_too_large at once."""
    decoder = FrameDecoder()
    decoder.feed(b'{"type":"chat","text":"' + b"a" * (MAX_FRAME - 40))
    with pytest.raises(ProtocolError) as caught:
        decoder.feed(b"a" * 100)
    assert caught.value.code == errors.FRAME_TOO_LARGE


def test_frame_of_exactly_the_limit_is_accepted() -> None:
    """A frame of MAX_FRAME bytes plus its newline is fine; one byte more is not."""
    head, tail = b'{"type":"ping","id":1,"pad":"', b'"}'
    body = head + b"a" * (MAX_FRAME - len(head) - len(tail)) + tail
    assert len(body) == MAX_FRAME
    assert FrameDecoder().feed(body + b"\n")[0]["type"] == "ping"
    with pytest.raises(ProtocolError):
        FrameDecoder().feed(body[:-2] + b'a"}\n')


def test_encode_refuses_an_oversized_outbound_frame() -> None:
    """The server never sends a frame the client could not accept."""
    with pytest.raises(ValueError):
        encode_frame({"type": "x", "pad": "a" * MAX_FRAME})
    assert decode_frame(encode_frame(FRAMES[1])) == FRAMES[1]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    frames=st.lists(st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=5), max_size=6),
    cuts=st.lists(st.integers(min_value=0), max_size=8),
)
def test_any_frames_split_anywhere_come_back_whole(frames: list[dict], cuts: list[int]) -> None:
    """Property: any JSON objects, encoded and cut at any points, decode to the same objects."""
    stream = b"".join(encode_frame(frame) for frame in frames)
    points = sorted({cut % (len(stream) + 1) for cut in cuts})
    decoder, got, start = FrameDecoder(), [], 0
    for point in [*points, len(stream)]:
        got += decoder.feed(stream[start:point])
        start = point
    assert got == frames and decoder.pending == 0
