"""The `replay` and `simulate` commands' exact output (purity: tests/test_purity.py)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pokerroom.cli import main

ONE_HAND = """variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [200, 200, 200]
actions = ['d dh p1 AsAh', 'd dh p2 KsKh', 'd dh p3 7c2d', 'p3 f', 'p1 cbr 6', 'p2 cc', \
'd db Ac8d3s', 'p1 cbr 10', 'p2 cc', 'd db 9h', 'p1 cc', 'p2 cc', 'd db 4c', 'p1 cc', 'p2 cc', \
'p1 sm AsAh', 'p2 sm KsKh']
"""


def test_replay_prints_one_json_line_per_hand(tmp_path: Path) -> None:
    """A single-hand file is named by its file name; stacks are in the file's units. A hand of
    a variant the engine does not play makes the exit code 1 (counted on stderr), unless
    --skip-unsupported."""
    (tmp_path / "one.phh").write_text(ONE_HAND)
    (tmp_path / "stud.phh").write_text("variant = 'F7S'\nstarting_stacks = [1, 1]\nactions = []\n")
    files = [str(tmp_path / "one.phh"), str(tmp_path / "stud.phh")]
    result = CliRunner().invoke(main, ["replay", *files])
    assert result.exit_code == 1, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0] == {"hand": "one.phh", "finishing_stacks": [216, 184, 200]}
    assert lines[1]["hand"] == "stud.phh"
    assert lines[1]["error"]["code"] == "unsupported_variant"
    assert "1 replayed, 1 unsupported_variant, 0 failed" in result.stderr
    skipped = CliRunner().invoke(main, ["replay", "--skip-unsupported", *files])
    assert skipped.exit_code == 0, skipped.output
    assert skipped.stdout == result.stdout
    alone = CliRunner().invoke(main, ["replay", "--skip-unsupported", str(tmp_path / "one.phh")])
    assert alone.exit_code == 0 and "1 replayed, 0 unsupported_variant" in alone.stderr


def test_replay_reports_an_illegal_action_with_its_code(tmp_path: Path) -> None:
    """A history with an out-of-turn action is an error line and a non-zero exit, even with
    --skip-unsupported (it skips only unsupported variants)."""
    bad = ONE_HAND.replace("'p3 f', ", "")
    (tmp_path / "bad.phh").write_text(bad)
    result = CliRunner().invoke(main, ["replay", "--skip-unsupported", str(tmp_path / "bad.phh")])
    assert result.exit_code == 1
    line = json.loads(result.stdout.splitlines()[0])
    assert line["error"]["code"] == "not_your_turn"
    assert "0 replayed, 0 unsupported_variant, 1 failed" in result.stderr


def test_the_cli_names_every_engine_variant_and_policy() -> None:
    """`replay`/`simulate` name the engine's choices without importing it at start-up."""
    from pokerroom.cli.engine_cmds import POLICY_NAMES, VARIANT_NAMES
    from pokerroom.engine.simulate import POLICIES
    from pokerroom.engine.variants import VARIANTS

    assert tuple(sorted(POLICIES)) == POLICY_NAMES and tuple(sorted(VARIANTS)) == VARIANT_NAMES


def test_simulate_writes_phh_that_replays_to_the_same_stacks(tmp_path: Path) -> None:
    """`simulate --out` writes every hand with finishing_stacks; `replay` agrees on each."""
    runner = CliRunner()
    args = [
        "simulate",
        "--variant",
        "PO",
        "--players",
        "4",
        "--hands",
        "40",
        "--seed",
        "7",
        "--policy",
        "random",
        "--out",
        str(tmp_path),
    ]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.splitlines()[-1])
    assert summary["hands"] == 40 and summary["chips_conserved"] is True
    written = Path(summary["out"])
    replayed = runner.invoke(main, ["replay", str(written)])
    assert replayed.exit_code == 0
    from pokerroom.engine.phh import loads

    recorded = {h.name: h.fields["finishing_stacks"] for h in loads(written.read_text())}
    lines = [json.loads(line) for line in replayed.stdout.splitlines()]
    assert len(lines) == 40
    assert all(recorded[line["hand"]] == line["finishing_stacks"] for line in lines)


def test_simulate_is_deterministic_for_a_seed() -> None:
    """The same seed gives the same hands."""
    args = [
        "simulate",
        "--variant",
        "NT",
        "--players",
        "6",
        "--hands",
        "30",
        "--seed",
        "3",
        "--policy",
        "random",
    ]
    first = json.loads(CliRunner().invoke(main, args).output)
    second = json.loads(CliRunner().invoke(main, args).output)
    for key in ("hands", "showdowns", "side_pots"):
        assert first[key] == second[key]
