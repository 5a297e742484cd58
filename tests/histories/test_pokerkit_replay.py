"""Every exported no-limit hold'em hand, read back by PokerKit's PokerStars parser, replays to
the stacks the room paid: seeded hands with side pots, all-ins, uncalled bets, antes, entry
posts (C-2), missed-blind posts live and dead (C-4) and rake (C-11)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pokerroom.engine.pokerstars import format_hand, format_hands
from tests.histories.hands import seeded_record
from tests.histories.stars_parser import assert_same_result, final_stacks, parse

OPTIONS: list[dict[str, Any]] = [
    {},
    {"posts": True},
    {"posts": True, "dead": True},
    {"antes": True},
    {"rake": True},
    {"antes": True, "posts": True, "dead": True, "rake": True},
]
SEEDS = range(70)


def ours(fields: dict[str, Any]) -> dict[str, int]:
    return dict(zip(fields["players"], fields["finishing_stacks"], strict=True))


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "+".join(o) or "plain")
def test_pokerkit_replays_every_exported_hand_to_our_stacks(options: dict[str, Any]) -> None:
    """Many seeded hands, as a player sees them (`Dealt to` the viewer only)."""
    seen: Counter[str] = Counter()
    for seed in SEEDS:
        fields = seeded_record(seed, **options)
        text = format_hand(fields, viewer="ann")
        assert_same_result(text, ours(fields))
        for word in ("side pot", "and is all-in", "Uncalled bet", "posts the ante",
                     "posts small & big blinds", "*** SHOW DOWN ***", "mucks hand"):  # fmt: skip
            seen[word] += word in text
        seen["entry post"] += (
            sum(1 for line in text.splitlines() if line.endswith("posts big blind $0.02")) > 1
        )
        seen["rake"] += "| Rake $0\n" not in text
    # The sample holds what the test is for.
    assert seen["side pot"] >= 5 and seen["and is all-in"] >= 20 and seen["Uncalled bet"] >= 20
    assert seen["*** SHOW DOWN ***"] >= 10
    if options.get("antes"):
        assert seen["posts the ante"] == len(SEEDS)
    if options.get("dead"):
        assert seen["posts small & big blinds"] >= 30
    elif options.get("posts"):
        assert seen["entry post"] >= 30
    if options.get("rake"):
        assert seen["rake"] >= 20


def test_staff_export_with_every_hole_card_replays_too() -> None:
    """The audit view (`Dealt to` every player) is read the same way."""
    for seed in range(30):
        fields = seeded_record(seed, posts=True, dead=True, rake=True)
        text = format_hand(fields, every_card=True)
        assert text.count("Dealt to ") == len(fields["players"])
        assert_same_result(text, ours(fields))


def test_a_file_of_many_hands_parses_hand_by_hand() -> None:
    """A session file: PokerKit finds every hand, in order, each with its own result."""
    records = [seeded_record(seed, posts=True) for seed in range(12)]
    text = format_hands(format_hand(r, viewer="bob") for r in records)
    hands = parse(text)
    assert [h.hand for h in hands] == [int(t.split("#")[1].split(":")[0]) for t in
                                       text.split("\n\n\n")]  # fmt: skip
    for hand, record in zip(hands, records, strict=True):
        assert final_stacks(hand) == ours(record)
