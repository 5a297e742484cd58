"""Engine subcommands: `pokerroom replay` and `pokerroom simulate`."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import click

from pokerroom.engine.errors import EngineError
from pokerroom.engine.phh import dumps_many, loads
from pokerroom.engine.replay import replay as replay_hand
from pokerroom.engine.simulate import POLICIES, simulate
from pokerroom.engine.variants import VARIANTS


def _line(obj: object) -> None:
    click.echo(json.dumps(obj, separators=(", ", ": ")))


@click.command("replay")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
def replay_command(files: tuple[str, ...]) -> None:
    """Replay every hand of PHH/PHHS files and print one JSON line per hand."""
    failures = 0
    for file_name in files:
        path = Path(file_name)
        try:
            histories = loads(path.read_text(encoding="utf-8"), default_name=path.name)
        except EngineError as exc:
            _line({"hand": path.name, "error": {"code": exc.code, "message": exc.message}})
            failures += 1
            continue
        for history in histories:
            try:
                hand = replay_hand(history)
            except EngineError as exc:
                _line({"hand": history.name, "error": {"code": exc.code, "message": exc.message}})
                failures += exc.code != "unsupported_variant"
                continue
            _line({"hand": history.name, "finishing_stacks": list(hand.stacks)})
    if failures:
        raise SystemExit(1)


def _parse_blinds(text: str) -> tuple[int, int]:
    try:
        small, big = (int(part) for part in text.split("/"))
    except ValueError:
        raise click.BadParameter("blinds look like 1/2") from None
    if not 0 < small <= big:
        raise click.BadParameter("blinds must be positive, the small no larger than the big")
    return small, big


@click.command("simulate")
@click.option("--variant", type=click.Choice(sorted(VARIANTS)), required=True)
@click.option("--players", type=click.IntRange(2, 10), required=True)
@click.option("--hands", type=click.IntRange(1), required=True)
@click.option("--seed", type=int, required=True)
@click.option("--policy", type=click.Choice(sorted(POLICIES)), required=True)
@click.option(
    "--stack",
    type=click.IntRange(1),
    default=200,
    show_default=True,
    help="Starting stack; with --policy random each stack is drawn from [stack/4, stack].",
)
@click.option("--blinds", default="1/2", show_default=True, help="small/big blind")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Write every hand as PHH (with finishing_stacks) into this folder.",
)
def simulate_command(
    variant: str,
    players: int,
    hands: int,
    seed: int,
    policy: str,
    stack: int,
    blinds: str,
    out: str | None,
) -> None:
    """Play independent hands with a seeded policy and print a one-line JSON summary."""
    small, big = _parse_blinds(blinds)
    rng = random.Random(seed)
    prefix = f"sim/{variant}/{seed}"
    started = time.perf_counter()
    summary = simulate(
        variant,
        players,
        hands,
        rng,
        policy,
        stack,
        small,
        big,
        keep_histories=out is not None,
        name_prefix=prefix,
    )
    seconds = time.perf_counter() - started
    result: dict[str, object] = {
        "variant": variant,
        "players": players,
        "hands": summary.hands,
        "seed": seed,
        "policy": policy,
        "showdowns": summary.showdowns,
        "side_pots": summary.side_pots,
        "chips_conserved": summary.chips_conserved,
        "seconds": round(seconds, 3),
        "hands_per_second": round(summary.hands / seconds, 1) if seconds else None,
    }
    if out is not None:
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{variant}-{players}p-seed{seed}.phhs"
        target.write_text(dumps_many(summary.histories), encoding="utf-8")
        result["out"] = str(target)
    _line(result)
    if not summary.chips_conserved:
        raise SystemExit(1)
