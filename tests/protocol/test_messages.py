"""Message validation: every bad request is refused with a stable code (P-1, ARCH 8)."""

from __future__ import annotations

from typing import Any

import pytest

from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import server_messages
from pokerroom.protocol.messages import client_messages, parse_request


def code_of(frame: dict[str, Any]) -> str:
    """The error code parse_request raises for `frame`."""
    with pytest.raises(ProtocolError) as caught:
        parse_request(frame)
    return caught.value.code


def test_a_valid_action_parses_with_its_fields() -> None:
    """A well-formed act request keeps its id and checked fields."""
    request = parse_request(
        {"type": "act", "id": "a1", "table_id": "nl-1", "action": "raise", "amount": 600}
    )
    assert request.name == "act" and request.id == "a1"
    assert request.args == {"table_id": "nl-1", "action": "raise", "amount": 600}


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"type": "ping"}, errors.BAD_REQUEST_ID),
        ({"type": "ping", "id": True}, errors.BAD_REQUEST_ID),
        ({"type": "ping", "id": 1.5}, errors.BAD_REQUEST_ID),
        ({"type": "ping", "id": "x" * 65}, errors.BAD_REQUEST_ID),
        ({"type": "teleport", "id": 1}, errors.UNKNOWN_MESSAGE),
        ({"type": "ok", "id": 1}, errors.UNKNOWN_MESSAGE),  # a server message
        ({"id": 1}, errors.UNKNOWN_MESSAGE),
        ({"type": "observe", "id": 1}, errors.MISSING_FIELD),
        ({"type": "observe", "id": 1, "table_id": "t", "x": 1}, errors.UNKNOWN_FIELD),
        ({"type": "observe", "id": 1, "table_id": 7}, errors.BAD_FIELD),
        ({"type": "observe", "id": 1, "table_id": "no spaces"}, errors.BAD_FIELD),
        ({"type": "hello", "id": 1, "version": 1, "client": "fridge"}, errors.BAD_FIELD),
        ({"type": "act", "id": 1, "table_id": "t", "action": "shove"}, errors.BAD_FIELD),
        ({"type": "sit_in", "id": 1, "table_id": "t", "post": "yes"}, errors.BAD_FIELD),
    ],
)
def test_malformed_requests_get_stable_codes(frame: dict[str, Any], code: str) -> None:
    """Missing ids, unknown messages and fields, wrong types: each has its code."""
    assert code_of(frame) == code


@pytest.mark.parametrize("amount", [-1, 0, 1.5, 2.0, "100", True, 10**13, [5]])
def test_negative_or_non_integer_amounts_are_invalid_amount(amount: object) -> None:
    """Money is a positive int of cents; anything else is invalid_amount."""
    frames = [
        {"type": "sit", "id": 1, "table_id": "t", "buy_in": amount},
        {"type": "top_up", "id": 1, "table_id": "t", "amount": amount},
        {"type": "act", "id": 1, "table_id": "t", "action": "bet", "amount": amount},
        {"type": "deposit", "id": 1, "amount": amount},
    ]
    for frame in frames:
        assert code_of(frame) == errors.INVALID_AMOUNT, frame


@pytest.mark.parametrize("key", ["player_id", "player", "user", "as"])
def test_a_field_claiming_an_identity_is_refused(key: str) -> None:
    """No request may say who acts: the session knows (ARCH 8)."""
    frame = {"type": "act", "id": 1, "table_id": "t", "action": "fold", key: "bob"}
    assert code_of(frame) == errors.IDENTITY_NOT_ALLOWED


def test_every_message_has_a_docstring_and_unique_name() -> None:
    """Messages are documented data (ARCH 8)."""
    for message in client_messages() + server_messages():
        assert message.__doc__ and message.__doc__.strip(), message.name
    names = [m.name for m in client_messages()]
    assert len(names) == len(set(names))
