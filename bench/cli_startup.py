"""Benchmark: the CPU time a `pokerroom` command spends before it does anything (its imports).

Each command runs as a fresh process, `--runs` times; its CPU time (user + system, from the
kernel's accounting of the finished child) is compared in the same run with two references:
a bare interpreter (`python -c pass`) and one that imports click (what any click CLI pays).
Staff scripts call the CLI in loops, so the goal is `pokerroom --help` at 0.4 s of CPU or less.

    .venv/bin/python bench/cli_startup.py            # 10 runs of each command
    .venv/bin/python bench/cli_startup.py --runs 20 --json

Prints one line per command (median and best CPU seconds, median wall seconds) and the load
average, or one JSON object with `--json`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def _cpu_of(argv: list[str], cwd: str) -> tuple[float, float]:
    """CPU seconds (user + system) and wall seconds of one run of `argv` as a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    """Run every command `--runs` times, interleaved, and report the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    pokerroom = str(BIN / "pokerroom")
    with tempfile.TemporaryDirectory(prefix="pokerroom-bench-") as folder:
        db = f"sqlite:///{folder}/bench.sqlite"
        subprocess.run([pokerroom, "db", "upgrade", "--db", db], check=True, capture_output=True)
        commands = {
            "python -c pass (reference)": [sys.executable, "-c", "pass"],
            "python -c 'import click' (reference)": [sys.executable, "-c", "import click"],
            "pokerroom --help": [pokerroom, "--help"],
            "pokerroom --version": [pokerroom, "--version"],
            "pokerroom staff list": [pokerroom, "staff", "list", "--db", db],
            "pokerroom admin --help": [pokerroom, "admin", "--help"],
        }
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.runs):  # interleaved: a change in load hits every command alike
            for name, argv in commands.items():
                samples[name].append(_cpu_of(argv, folder))
    load = os.getloadavg()
    report = {
        name: {
            "cpu_median_s": round(statistics.median(c for c, _ in runs), 3),
            "cpu_best_s": round(min(c for c, _ in runs), 3),
            "wall_median_s": round(statistics.median(w for _, w in runs), 3),
        }
        for name, runs in samples.items()
    }
    if args.json:
        print(json.dumps({"runs": args.runs, "loadavg": load, "commands": report}))
        return
    for name, figures in report.items():
        print(
            f"{name:40} cpu {figures['cpu_median_s']:.3f} s (best {figures['cpu_best_s']:.3f})"
            f"  wall {figures['wall_median_s']:.3f} s"
        )
    print(f"runs {args.runs}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
