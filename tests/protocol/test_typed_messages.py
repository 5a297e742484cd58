"""Typed server messages: one definition each, encoded from it, and frames checked against it
(the bots' `validate`): unknown type, missing, extra or wrongly typed field all fail (P-1)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pokerroom.protocol.catalog import FrameMismatch, validate
from pokerroom.protocol.events import (
    LegalView,
    Ok,
    PlayerActed,
    as_dict,
    encode,
)
from pokerroom.protocol.framing import MAX_FRAME, encode_frame

ACTED: dict[str, Any] = {
    "type": "player_acted",
    "table_id": "t1",
    "hand_id": "t1-7",
    "seat": 2,
    "action": "raise",
    "amount": 60,
    "added": 40,
    "all_in": False,
}


def test_a_typed_message_encodes_to_the_frame_a_client_reads() -> None:
    """`type` first, compact JSON, unset optional fields left out, a newline at the end."""
    typed = PlayerActed(
        table_id="t1", hand_id="t1-7", seat=2, action="raise", amount=60, added=40, all_in=False
    )
    frame = encode(typed)
    assert frame.endswith(b"\n") and b"\n" not in frame[:-1]
    assert frame.startswith(b'{"type":"player_acted",')
    assert json.loads(frame) == ACTED
    assert b"auto" not in frame  # optional and unset: absent, not null
    folded = PlayerActed(table_id="t1", hand_id="t1-7", seat=2, action="fold", amount=None)
    assert json.loads(encode(folded))["amount"] is None  # nullable: always present
    assert encode_frame(typed) == frame and as_dict(typed) == ACTED


def test_a_frame_matching_its_declaration_validates() -> None:
    assert isinstance(validate(dict(ACTED)), PlayerActed)
    ok = {"type": "ok", "id": 3, "re": "top_up", "result": {"stack": 500, "pending": 0}}
    assert isinstance(validate(ok), Ok)


@pytest.mark.parametrize(
    "change",
    [
        {"type": "player_jumped"},  # unknown type
        {"seat": None},  # wrong type (not nullable)
        {"seat": "2"},  # wrong type
        {"all_in": 1},  # an int is not a bool
        {"extra": 1},  # a field the declaration does not have
        {"hand_id": ...},  # a required field missing
    ],
)
def test_a_frame_unlike_its_declaration_is_refused(change: dict[str, Any]) -> None:
    frame = {**ACTED, **change}
    frame = {k: v for k, v in frame.items() if v is not ...}
    with pytest.raises(FrameMismatch):
        validate(frame)


def test_an_ok_result_is_checked_against_its_request() -> None:
    """The result of `top_up` is {stack, pending}: a missing or extra key is a mismatch."""
    for result in ({"stack": 500}, {"stack": 500, "pending": 0, "bonus": 1}, []):
        with pytest.raises(FrameMismatch):
            validate({"type": "ok", "id": 1, "re": "top_up", "result": result})
    register = {"entry": 1, "chips": 1500}
    validate({"type": "ok", "id": 1, "re": "tournament_register", "result": register})
    with pytest.raises(FrameMismatch):  # the old answer, {chips, action}, is not the doc's
        validate(
            {
                "type": "ok",
                "id": 1,
                "re": "tournament_register",
                "result": {"chips": 1, "action": "x"},
            }
        )


def test_frames_stay_within_the_limit_and_json() -> None:
    with pytest.raises(ValueError):
        encode(PlayerActed(table_id="t" * MAX_FRAME, hand_id="h", seat=0, action="x", amount=1))
    with pytest.raises(TypeError):
        encode({"type": "x", "bad": object()})
    legal = LegalView(fold=True, check=False, call=2, min_raise_to=4, max_raise_to=None)
    assert json.loads(encode({"type": "x", "actions": legal}))["actions"]["max_raise_to"] is None


def test_a_bot_reports_every_frame_unlike_its_declaration() -> None:
    """The bots' run fails on a mismatch: the frame is checked before it is routed."""
    import random

    from pokerroom.server.bots import Bot, BotReport

    report = BotReport()
    bot = Bot("bot_0", 1, random.Random(1), report)
    good = json.dumps({**ACTED, "table_id": ""}).encode() + b"\n"
    bad = json.dumps({**ACTED, "table_id": "", "seat": "2"}).encode() + b"\n"
    unknown = b'{"type":"hand_paused","table_id":""}\n'
    bot.client.dataReceived(good)
    assert report.errors == []
    bot.client.dataReceived(bad + unknown)
    assert len(report.errors) == 2 and not report.ok
    assert "player_acted" in report.errors[0] and "hand_paused" in report.errors[1]
