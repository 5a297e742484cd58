"""Engine subcommands: `pokerroom replay` and `pokerroom simulate`."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import click

#: The engine's policies and variants, named here so that `--help` imports no engine.
POLICY_NAMES = ("call", "random")
VARIANT_NAMES = ("FT", "NT", "PO")


def _line(obj: object) -> None:
    click.echo(json.dumps(obj, separators=(", ", ": ")))


@click.command("replay")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--skip-unsupported",
    is_flag=True,
    help="Hands of a variant the engine does not play (unsupported_variant) do not make the "
    "exit code non-zero.",
)
def replay_command(files: tuple[str, ...], skip_unsupported: bool) -> None:
    """Replay every hand of PHH/PHHS files and print one JSON line per hand.

    Exit 0 when every hand replayed; 1 when a file or a hand failed, or a hand was of an
    unsupported variant (unless --skip-unsupported); the counts go to stderr.
    """
    from pokerroom.engine.errors import EngineError
    from pokerroom.engine.phh import loads
    from pokerroom.engine.replay import replay as replay_hand

    replayed = unsupported = failed = 0
    for file_name in files:
        path = Path(file_name)
        try:
            histories = loads(path.read_text(encoding="utf-8"), default_name=path.name)
        except EngineError as exc:
            _line({"hand": path.name, "error": {"code": exc.code, "message": exc.message}})
            failed += 1
            continue
        for history in histories:
            try:
                hand = replay_hand(history)
            except EngineError as exc:
                _line({"hand": history.name, "error": {"code": exc.code, "message": exc.message}})
                if exc.code == "unsupported_variant":
                    unsupported += 1
                else:
                    failed += 1
                continue
            replayed += 1
            _line({"hand": history.name, "finishing_stacks": list(hand.stacks)})
    counted = f"{replayed} replayed, {unsupported} unsupported_variant, {failed} failed"
    if failed or (unsupported and not skip_unsupported):
        hint = "" if failed or not unsupported else " (--skip-unsupported accepts them)"
        click.echo(f"replay: {counted}{hint}", err=True)
        raise SystemExit(1)
    click.echo(f"replay: {counted}", err=True)


def _parse_blinds(text: str) -> tuple[int, int]:
    try:
        small, big = (int(part) for part in text.split("/"))
    except ValueError:
        raise click.BadParameter("blinds look like 1/2") from None
    if not 0 < small <= big:
        raise click.BadParameter("blinds must be positive, the small no larger than the big")
    return small, big


@click.command("simulate")
@click.option("--variant", type=click.Choice(VARIANT_NAMES), required=True)
@click.option("--players", type=click.IntRange(2, 10), required=True)
@click.option("--hands", type=click.IntRange(1), required=True)
@click.option("--seed", type=int, required=True)
@click.option("--policy", type=click.Choice(POLICY_NAMES), required=True)
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
    from pokerroom.engine.phh import dumps_many
    from pokerroom.engine.simulate import simulate

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
