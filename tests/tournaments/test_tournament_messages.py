"""Tournament protocol messages: documented, validated, never naming the player (ARCH 8, P-1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.messages import parse_request
from pokerroom.protocol.tournament_messages import TOURNAMENT_EVENTS, TOURNAMENT_REQUESTS
from tournaments.director.errors import ALL_CODES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text()


def test_every_tournament_message_and_director_code_is_documented():
    """docs/PROTOCOL.md section 9 names each message and each director code (P-1)."""
    names = [m.name for m in TOURNAMENT_REQUESTS + TOURNAMENT_EVENTS]
    assert [n for n in names if f"`{n}`" not in DOC] == []
    codes = [c for c in ALL_CODES if c != "bad_structure" and c != "bad_payout_settings"]
    assert [c for c in codes if f"`{c}`" not in DOC] == []
    assert all(m.__doc__ and m.__doc__.strip() for m in TOURNAMENT_REQUESTS + TOURNAMENT_EVENTS)


def test_register_request_is_validated():
    """T-2: a register request names the tournament and how it is paid."""
    request = parse_request(
        {"type": "tournament_register", "id": 7, "tournament_id": "sun-100", "funding": "cash"}
    )
    assert request.args == {"tournament_id": "sun-100", "funding": "cash"}
    with pytest.raises(ProtocolError):
        parse_request({"type": "tournament_register", "id": 8, "tournament_id": "x y"})
    with pytest.raises(ProtocolError):
        parse_request(
            {"type": "tournament_register", "id": 9, "tournament_id": "t", "funding": "gold"}
        )


def test_no_tournament_request_may_name_the_player():
    """ARCH 8: the session knows who acts; an identity field is refused."""
    with pytest.raises(ProtocolError) as caught:
        parse_request({"type": "tournament_rebuy", "id": 1, "tournament_id": "t", "player": "bob"})
    assert caught.value.code == errors.IDENTITY_NOT_ALLOWED


def test_tournament_act_takes_chips_as_the_to_total():
    """C-6: an action at a tournament table, amount in chips."""
    request = parse_request(
        {"type": "tournament_act", "id": 2, "tournament_id": "t", "action": "raise", "amount": 600}
    )
    assert request.args["amount"] == 600
