"""`pokerroom hands export` on a room database with settled hands: the staff audit shows every
hole card dealt, a player's export only their own and the shown ones (C-15); PokerKit replays
every exported hand of the real tables to the stacks the room paid."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pokerroom.cash.histories import StoredHand, stored_hands
from pokerroom.cli import main
from pokerroom.engine.phh import loads
from pokerroom.engine.pokerstars import SEPARATOR
from tests.histories.stars_parser import assert_same_result
from tests.histories.stored import room_with_hands

DEALT = re.compile(r"^Dealt to (\S+) \[(.+)\]$", re.MULTILINE)
SHOWN = re.compile(r": shows \[(.+?)\]")


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[StoredHand]]]:
    """The database URL and its settled hands, oldest first."""
    room = room_with_hands(tmp_path_factory.mktemp("room"))
    with room.engine.connect() as conn:
        hands = stored_hands(conn)
    room.close()
    yield room.url, hands


def run(*args: str) -> Any:
    return CliRunner().invoke(main, ["hands", "export", *args])


def texts(output: str) -> list[str]:
    return [t for t in output.split(SEPARATOR) if t.strip()]


def holes(hand: StoredHand) -> dict[str, list[str]]:
    """player -> the hole cards the record says they were dealt."""
    players = hand.fields["players"]
    out = {}
    for action in hand.fields["actions"]:
        parts = action.split()
        if parts[:2] == ["d", "dh"]:
            cards = parts[3]
            out[players[int(parts[2][1:]) - 1]] = [
                cards[i : i + 2] for i in range(0, len(cards), 2)
            ]
    return out


def test_the_stored_sample_has_what_the_export_must_get_right(
    stored: tuple[str, list[StoredHand]],
) -> None:
    """Entry and missed-blind posts (C-2, C-4), rake (C-11), all-ins, two tables."""
    _, hands = stored
    fields = [h.fields for h in hands]
    assert {h.table_id for h in hands} == {"t1", "t2"}
    assert any(f.get("_dead_posts") for f in fields)
    assert sum(1 for f in fields if f.get("_live_posts")) >= 2
    assert all("_button" in f and "_started_at_ms" in f for f in fields)


def test_staff_export_shows_every_card_and_replays_in_pokerkit(
    stored: tuple[str, list[StoredHand]],
) -> None:
    """Without --player: every hole card dealt (an audit); PokerKit reads each hand of the
    real tables and ends with the stacks the room paid, the rake aside."""
    url, hands = stored
    result = run("--db", url)
    assert result.exit_code == 0, result.output
    exported = texts(result.stdout)
    assert len(exported) == len(hands) >= 15
    seen = {"all-in": 0, "rake": 0, "dead": 0}
    for text, hand in zip(exported, hands, strict=True):
        dealt = dict(DEALT.findall(text))
        assert {p: c.split() for p, c in dealt.items()} == holes(hand)
        paid = zip(hand.fields["players"], hand.fields["finishing_stacks"], strict=True)
        assert_same_result(text, dict(paid))
        seen["all-in"] += "and is all-in" in text
        seen["rake"] += "| Rake $0\n" not in text
        seen["dead"] += "posts small & big blinds" in text
    assert seen["all-in"] >= 2 and seen["rake"] >= 3 and seen["dead"] >= 1


def test_a_players_export_has_their_own_cards_only(  # C-15
    stored: tuple[str, list[StoredHand]],
) -> None:
    """C-15: --player shows that player's hands with `Dealt to` them alone; another player's
    hole cards appear only when that player showed them."""
    url, hands = stored
    result = run("--db", url, "--player", "eve")
    assert result.exit_code == 0, result.output
    exported = texts(result.stdout)
    mine = [h for h in hands if "eve" in h.fields["players"]]
    assert len(exported) == len(mine) >= 10
    hidden = 0
    for text, hand in zip(exported, mine, strict=True):
        assert DEALT.findall(text) == [("eve", " ".join(holes(hand)["eve"]))]
        shown = {c for cards in SHOWN.findall(text) for c in cards.split()}
        board = set(hand.fields["actions"]) and {
            a.split()[2][i : i + 2]
            for a in hand.fields["actions"]
            if a.startswith("d db")
            for i in range(0, len(a.split()[2]), 2)
        }
        for player, cards in holes(hand).items():
            if player == "eve":
                continue
            for card in cards:
                if card not in shown:
                    hidden += 1
                    assert card not in board and card not in text, (player, card, text)
    assert hidden >= 20


def test_filters_table_since_and_the_phh_format(
    stored: tuple[str, list[StoredHand]], tmp_path: Path
) -> None:
    """--table and --since choose hands; --format phh writes a PHHS file (masked for a
    player, C-15); --out writes the file and says how many hands on stderr."""
    url, hands = stored
    out = tmp_path / "t2.txt"
    result = run("--db", url, "--table", "t2", "--out", str(out))
    assert result.exit_code == 0, result.output
    t2 = [h for h in hands if h.table_id == "t2"]
    assert len(texts(out.read_text())) == len(t2) and f"{len(t2)} hand(s) exported" in result.stderr
    assert "Table 't2' 2-max" in out.read_text()
    assert texts(run("--db", url, "--since", "2100-01-01").stdout) == []
    later = hands[len(hands) // 2].ended_at_ms
    from datetime import UTC, datetime

    moment = datetime.fromtimestamp(later / 1000, UTC).isoformat()
    assert len(texts(run("--db", url, "--since", moment).stdout)) == sum(
        1 for h in hands if h.ended_at_ms >= later
    )
    phh = run("--db", url, "--format", "phh", "--player", "bob", "--table", "t2")
    parsed = loads(phh.stdout)
    assert [h.name for h in parsed] == [h.hand_id for h in t2]
    assert all("????" in " ".join(h.actions) or "sm" in " ".join(h.actions) for h in parsed)
    assert run("--db", url, "--since", "yesterday").exit_code == 2


def test_no_database_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    """A reading command: no database at the path is its exit code and no file is made."""
    path = tmp_path / "none.sqlite"
    result = run("--db", str(path))
    assert result.exit_code == 66 and not path.exists()
