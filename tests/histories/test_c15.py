"""C-15 over many seeded hands: a player's text holds no card of another player's hand that
was not shown down, whatever the hand did (folds, mucks, all-ins, uncalled bets)."""

from __future__ import annotations

import re

from pokerroom.engine.pokerstars import format_hand
from pokerroom.server.lobby import page_histories
from tests.histories.hands import seeded_record

SHOWS = re.compile(r"^(\S+): shows \[(.+?)\]", re.MULTILINE)


def test_no_unshown_card_of_another_player_in_a_players_text() -> None:  # C-15
    hidden = 0
    for seed in range(150):
        fields = seeded_record(seed, posts=True, dead=seed % 2 == 0, rake=True)
        players = fields["players"]
        dealt = {}
        for action in fields["actions"]:
            parts = action.split()
            if parts[:2] == ["d", "dh"]:
                dealt[players[int(parts[2][1:]) - 1]] = {
                    parts[3][i : i + 2] for i in range(0, len(parts[3]), 2)
                }
        for viewer in players[:3]:
            text = format_hand(fields, viewer=viewer)
            shown = {who for who, _ in SHOWS.findall(text)}
            assert re.findall(r"^Dealt to (\S+)", text, re.MULTILINE) == [viewer]
            cards = set(re.findall(r"\b[2-9TJQKA][cdhs]\b", text))
            for player, hole in dealt.items():
                if player == viewer or player in shown:
                    continue
                hidden += len(hole)
                assert not hole & cards, (viewer, player, hole & cards, text)
    assert hidden > 800


def test_a_hand_that_cannot_be_written_is_left_out_of_the_page() -> None:
    """A "" text (a record the format cannot write) is skipped; the cursor still moves on."""
    rows = [("5:a", "A"), ("4:b", ""), ("3:c", "C"), ("2:d", "D")]
    assert page_histories(rows, 3) == {"hands": ["A", "C"], "truncated": False, "next": "3:c"}
    assert page_histories(rows[:2], 2) == {"hands": ["A"], "truncated": False, "next": None}
    assert page_histories([("4:b", ""), ("3:c", "C")], 1) == {
        "hands": [],
        "truncated": False,
        "next": "4:b",
    }
