"""Casino subcommands: `pokerroom casino simulate` (the pure core, no server, no database)."""

from __future__ import annotations

import json

import click

#: The games `simulate` plays, named here so that `--help` imports no casino module.
GAME_NAMES = ("baccarat", "super6", "progressive", "dragon_tiger", "roulette", "sicbo", "blackjack")


@click.group("casino")
def casino() -> None:
    """Casino tables: simulate rounds through the pure core (docs/CASINO_RULES.md)."""


@casino.command("simulate")
@click.option("--game", type=click.Choice(GAME_NAMES), required=True)
@click.option("--rounds", type=click.IntRange(1), required=True)
@click.option("--seed", type=int, required=True)
@click.option(
    "--config",
    "folder",
    type=click.Path(exists=True, file_okay=False),
    default=None,
    help="A folder of casino settings (default: the shipped config/casino/).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
def simulate(game: str, rounds: int, seed: int, folder: str | None, as_json: bool) -> None:
    """Play rounds of one game with a seeded RNG; each bet's measured return beside the exact one.

    Every round stakes 100 minor units on each spot; the timing is CPU time of this process
    around the rounds alone (the exact returns are computed after it).
    """
    import random
    import time
    from pathlib import Path

    from pokerroom.casino.simulate import run

    rng = random.Random(seed)
    started = time.process_time()
    result = run(game, rounds, rng, Path(folder) if folder else None)
    cpu = time.process_time() - started
    rate = rounds / cpu if cpu > 0 else None
    rows = [
        {
            "spot": spot.spot,
            "staked": spot.staked,
            "returned": spot.returned,
            "measured_rtp": round(spot.measured, 6),
            "exact_rtp": None if spot.exact is None else round(float(spot.exact), 6),
            "exact_fraction": None if spot.exact is None else str(spot.exact),
        }
        for spot in result.spots
    ]
    if as_json:
        summary = {
            "game": game,
            "rounds": rounds,
            "seed": seed,
            "cpu_seconds": round(cpu, 3),
            "rounds_per_cpu_second": None if rate is None else round(rate, 1),
            "bets": rows,
        }
        click.echo(json.dumps(summary, separators=(", ", ": ")))
        return
    from pokerroom.cli.output import show_table

    def percent(value: float | None) -> str:
        return "" if value is None else f"{value * 100:.4f} %"

    show_table(
        f"{game}: {rounds:,} rounds, seed {seed}",
        ["bet", "measured RTP", "exact RTP", "house edge"],
        [
            [
                spot.spot,
                percent(spot.measured),
                percent(None if spot.exact is None else float(spot.exact)),
                percent(None if spot.exact is None else float(1 - spot.exact)),
            ]
            for spot in result.spots
        ],
    )
    speed = f"{rate:,.0f} rounds per CPU second" if rate else "too fast to time"
    click.echo(f"{cpu:.2f} s of CPU: {speed}")
