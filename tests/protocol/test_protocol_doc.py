"""docs/PROTOCOL.md names every message and every error code a client can receive, and its
tables of server messages and objects list exactly the fields of their typed definitions."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

import pokerroom.cash.errors as cash_errors
import pokerroom.protocol.results  # noqa: F401  (registers the typed results)
import pokerroom.protocol.tournament_messages as tm
from pokerroom.engine import errors as engine_errors
from pokerroom.protocol import errors
from pokerroom.protocol import events as ev
from pokerroom.protocol.events import TableEvent, fields_of, server_messages
from pokerroom.protocol.messages import client_messages

DOC = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text()

#: The doc's name of each object inside messages -> its definition.
OBJECTS: dict[str, type[msgspec.Struct]] = {
    "table summary": ev.TableSummary,
    "snapshot": ev.Snapshot,
    "snapshot seat": ev.SnapshotSeat,
    "hand view": ev.HandView,
    "hand seat": ev.HandSeat,
    "legal actions": ev.LegalView,
    "dealt seat": ev.SeatStack,
    "share": ev.Share,
    "tournament summary": tm.TournamentSummary,
    "place": tm.TournamentPlace,
}
#: Header rows of the tables that list server messages, and of the object tables.
MESSAGE_HEADERS = ("| message | fields | when |", "| event | fields | when |",
                   "| type | fields | when |")  # fmt: skip
OBJECT_HEADER = "| object | fields |"


def doc_fields(cell: str) -> dict[str, bool]:
    """The fields a table cell lists: name -> required (`name`? is optional).

    Only backticked names at the top level count: parenthesised remarks and nested `{...}` or
    `[...]` descriptions are dropped first.
    """
    text, before = cell, None
    while before != text:
        before = text
        text = re.sub(r"\([^()]*\)|\{[^{}]*\}|\[[^\[\]]*\]", "", text)
    return {m[1]: m[2] != "?" for m in re.finditer(r"`([a-z_]+)`(\??)", text)}


def doc_rows(headers: tuple[str, ...]) -> dict[str, str]:
    """First cell -> second cell of every row of the tables under one of `headers`."""
    rows: dict[str, str] = {}
    inside = False
    for line in DOC.splitlines():
        if line.strip() in headers:
            inside = True
            continue
        if not line.startswith("|"):
            inside = False
            continue
        if inside and not line.startswith("| ---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            name = cells[0].strip("`")
            assert name not in rows, f"{name} is listed twice"
            rows[name] = cells[1]
    return rows


def declared(cls: type[msgspec.Struct]) -> dict[str, bool]:
    """A definition's fields as the doc lists them (table events' `table_id` is implied)."""
    found = fields_of(cls)
    if isinstance(cls, type) and issubclass(cls, TableEvent):
        found.pop("table_id")
    return found


def test_every_message_is_documented() -> None:
    """Each client and server message appears by name, in backticks."""
    missing = [m.name for m in client_messages() + server_messages() if f"`{m.name}`" not in DOC]
    assert missing == []


def test_every_error_code_is_documented() -> None:
    """Session, table and engine codes all appear in the document."""
    table = [v for k, v in vars(cash_errors).items() if k.isupper() and isinstance(v, str)]
    codes = set(errors.SESSION_CODES) | set(table) | set(engine_errors.ALL_CODES)
    assert sorted(code for code in codes if f"`{code}`" not in DOC) == []


def test_the_doc_lists_every_server_message_and_nothing_else() -> None:
    """Every typed server message has a row in a message table, and every row a definition."""
    rows = doc_rows(MESSAGE_HEADERS)
    assert sorted(set(ev.SERVER_TYPES) - set(rows)) == []
    assert sorted(set(rows) - set(ev.SERVER_TYPES)) == []


@pytest.mark.parametrize("name", sorted(ev.SERVER_TYPES))
def test_a_message_has_the_documented_fields_both_ways(name: str) -> None:
    """P-1: the fields a client reads in the doc are the fields the server encodes: none
    missing, none extra, and the same ones optional."""
    rows = doc_rows(MESSAGE_HEADERS)
    assert doc_fields(rows[name]) == declared(ev.SERVER_TYPES[name])


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_an_object_has_the_documented_fields_both_ways(name: str) -> None:
    """The objects inside messages (summaries, snapshots, legal actions ...) too."""
    rows = doc_rows((OBJECT_HEADER,))
    assert sorted(rows) == sorted(OBJECTS)
    assert doc_fields(rows[name]) == declared(OBJECTS[name])


def test_the_field_parser_sees_optional_and_nested_fields() -> None:
    """The check itself can fail: a `?`, a remark in parentheses and nested braces."""
    cell = "`hand_id`, `amount` (to-total, `x`), `added`?, `actions` {fold: bool, `inner`}"
    assert doc_fields(cell) == {"hand_id": True, "amount": True, "added": False, "actions": True}
    assert doc_fields(cell) != declared(ev.PlayerActed)
