"""Real hands from the shared PHH data replay to exactly their recorded finishing stacks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pokerroom.engine.errors import EngineError
from pokerroom.engine.phh import loads
from pokerroom.engine.replay import replay


def _replay_file(path: Path) -> tuple[Counter[str], list[str]]:
    outcome: Counter[str] = Counter()
    wrong: list[str] = []
    for history in loads(path.read_text(encoding="utf-8")):
        try:
            hand = replay(history)
        except EngineError as exc:
            outcome[exc.code] += 1
            if exc.code != "unsupported_variant":
                wrong.append(f"{history.name}: {exc}")
            continue
        if list(hand.stacks) == history.fields["finishing_stacks"]:
            outcome["exact"] += 1
        else:
            wrong.append(f"{history.name}: {hand.stacks} != {history.fields['finishing_stacks']}")
    return outcome, wrong


def test_pluribus_thousand_six_handed_hands_replay_exactly(phh_dir: Path) -> None:
    """All 1,000 Pluribus NT hands end on the recorded finishing stacks."""
    outcome, wrong = _replay_file(phh_dir / "pluribus-dev.phhs")
    assert wrong == []
    assert outcome["exact"] == 1000


def test_wsop_nt_po_ft_hands_replay_exactly_and_others_are_unsupported(phh_dir: Path) -> None:
    """Every NT, PO and FT hand of the WSOP final table replays; stud/draw/razz are refused."""
    path = phh_dir / "wsop-2023-43-5.phhs"
    histories = loads(path.read_text(encoding="utf-8"))
    in_scope = sum(h.variant in {"NT", "PO", "FT"} for h in histories)
    outcome, wrong = _replay_file(path)
    assert wrong == []
    assert outcome["exact"] == in_scope == 25
    assert outcome["unsupported_variant"] == len(histories) - in_scope


@pytest.mark.parametrize("variant", ["NT", "PO", "FT"])
def test_each_variant_of_the_wsop_file_is_covered(phh_dir: Path, variant: str) -> None:
    """The WSOP file exercises each of our variants at least once (PO, FT and big-blind antes)."""
    histories = loads((phh_dir / "wsop-2023-43-5.phhs").read_text(encoding="utf-8"))
    assert any(h.variant == variant for h in histories)
