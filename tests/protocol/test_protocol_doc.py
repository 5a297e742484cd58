"""docs/PROTOCOL.md names every message and every error code a client can receive, and its
tables of server messages and objects list exactly the fields of their typed definitions."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

import pokerroom.cash.errors as cash_errors
import pokerroom.protocol.casino_messages as cm
import pokerroom.protocol.results  # noqa: F401  (registers the typed results)
import pokerroom.protocol.staking_messages as sm
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
    "player bounty": tm.PlayerBounty,
    "ticket": tm.TicketView,
    "stake offer": sm.StakeOfferView,
    "stake": sm.StakeView,
    "stake result": sm.StakeResult,
    "deal state": sm.DealState,
    "deal figure": tm.DealFigure,
    "deal": tm.DealView,
    "casino table": cm.CasinoTableView,
    "casino bet": cm.CasinoBet,
    "casino total": cm.CasinoTotal,
    "casino line": cm.CasinoLine,
    "casino round": cm.CasinoRoundView,
}
#: Header rows of the tables that list server messages, and of the object tables.
MESSAGE_HEADERS = ("| message | fields | when |", "| event | fields | when |",
                   "| type | fields | when |")  # fmt: skip
OBJECT_HEADER = "| object | fields |"


def cells_of(line: str) -> list[str]:
    """The cells of a table row (`\\|` inside a cell is not a separator)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


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
            cells = cells_of(line)
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


REQUEST_HEADERS = ("| message | fields | when / `ok` result | errors |",
                   "| type | fields | answer |")  # fmt: skip
#: Rows whose answer the doc gives by reference to another request's.
SAME_AS = {"login": "register", "resume": "register", "lobby_subscribe": "lobby_list"}


def result_names(cell: str) -> set[str] | None:
    """The keys of the first `{...}` in an answer cell (top level only), or None if none."""
    start = cell.find("{")
    if start < 0:
        return None
    depth, items, item = 0, [], ""
    for char in cell[start + 1 :]:
        if char in "[{(":
            depth += 1
        elif char in "]})":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            items.append(item)
            item = ""
        elif depth == 0 and char not in "]})":
            item += char
    items.append(item)
    return {part.split(":")[0].strip(" `") for part in items if part.strip(" `")}


def request_answers() -> dict[str, str]:
    """Request name -> its answer cell, in the §5 and §9 request tables."""
    rows: dict[str, str] = {}
    inside = False
    for line in DOC.splitlines():
        if line.strip() in REQUEST_HEADERS:
            inside = True
            continue
        if not line.startswith("|"):
            inside = False
            continue
        if inside and not line.startswith("| ---"):
            cells = cells_of(line)
            rows[cells[0].strip("`")] = cells[2]
    return rows


@pytest.mark.parametrize("request_name", sorted(ev.RESULTS))
def test_an_ok_result_has_the_documented_keys(request_name: str) -> None:
    """Each request's `ok` result as the doc writes it ({a, b}) has exactly the keys of its
    typed result (`pokerroom.protocol.results`, `tournament_messages`)."""
    answers = request_answers()
    if request_name == "hello":  # listed in §3 ("The `ok` result: ...")
        found = re.search(r"The `ok` result: (.*?)\.\n", DOC, re.S)
        assert found is not None
        documented = set(re.findall(r"`([a-z_]+)`", found[1]))
    else:
        cell = answers[SAME_AS.get(request_name, request_name)]
        names = result_names(cell)
        assert names is not None, f"{request_name}: no {{...}} answer in the doc"
        documented = names
    assert documented == set(fields_of(ev.RESULTS[request_name]))


def test_the_result_parser_reads_nested_answers() -> None:
    cell = "a page: `{tables: [summary], total, offset}`; then `{x}`"
    assert result_names(cell) == {"tables", "total", "offset"}
    assert result_names("`{}`") == set() and result_names("no braces") is None
