"""docs/PROTOCOL.md names every message and every error code a client can receive."""

from __future__ import annotations

from pathlib import Path

import pokerroom.cash.errors as cash_errors
from pokerroom.engine import errors as engine_errors
from pokerroom.protocol import errors
from pokerroom.protocol.events import server_messages
from pokerroom.protocol.messages import client_messages

DOC = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text()


def test_every_message_is_documented() -> None:
    """Each client and server message appears by name, in backticks."""
    missing = [m.name for m in client_messages() + server_messages() if f"`{m.name}`" not in DOC]
    assert missing == []


def test_every_error_code_is_documented() -> None:
    """Session, table and engine codes all appear in the document."""
    table = [v for k, v in vars(cash_errors).items() if k.isupper() and isinstance(v, str)]
    codes = set(errors.SESSION_CODES) | set(table) | set(engine_errors.ALL_CODES)
    assert sorted(code for code in codes if f"`{code}`" not in DOC) == []
