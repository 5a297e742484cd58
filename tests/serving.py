"""A real `pokerroom serve` process for tests: its command, a migrated database, the start-up
summary and listening lines read from its stdout, and its stop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import IO

from pokerroom.ledger import make_engine, upgrade

#: The `pokerroom` command line, run by this interpreter.
CLI = [sys.executable, "-c", "from pokerroom.cli import main; main()"]

#: The head of a test room's config: loopback, JSON logs, cheap password hashes, deposits on.
ROOM_HEAD = """
[server]
host = "127.0.0.1"
log_format = "json"
[accounts]
time_cost = 1
memory_kib = 8
[dev]
allow_deposit = true
"""


def fast_tables(prefix: str, count: int, seats: int, buy_in: int) -> str:
    """`count` no-limit cash tables `<prefix>0`… of `seats` seats, blinds 1/2, buy-in 40 to
    `buy_in`, 1 s clocks and 0.05 s between hands (bots play many hands quickly)."""
    return "".join(
        f"""[tables.{prefix}{n}]
variant = "NT"
max_seats = {seats}
small_blind = 1
big_blind = 2
min_buy_in = 40
max_buy_in = {buy_in}
action_seconds = 1.0
timebank_seconds = 0.5
between_hands_seconds = 0.05
"""
        for n in range(count)
    )


def migrate(url: str) -> str:
    """Migrate the database at `url` to head; the url."""
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    return url


def migrated_sqlite(folder: Path, name: str = "room.sqlite") -> str:
    """The url of a SQLite file `name` in `folder`, migrated to head."""
    return migrate(f"sqlite:///{folder / name}")


def summary_and_listening(stdout: IO[str]) -> tuple[list[str], str]:
    """The summary lines `serve` prints once the room is ready, and the `pokerroom listening on
    HOST:PORT` line after them ("" if the process ended first)."""
    summary: list[str] = []
    for line in iter(stdout.readline, ""):
        if line.startswith("pokerroom listening on "):
            return summary, line
        summary.append(line)
    return summary, ""


def listening_line(stdout: IO[str]) -> str:
    """The `pokerroom listening on HOST:PORT` line, after the start-up summary ("" if none)."""
    return summary_and_listening(stdout)[1]


def start_serve(args: list[str], log: Path) -> tuple[int, subprocess.Popen[str]]:
    """`pokerroom ARGS` (a `serve`), its stderr appended to `log`; returns once it listens
    (recovery done) with the players' port and the process."""
    with log.open("a") as err:
        proc = subprocess.Popen(CLI + args, stdout=subprocess.PIPE, stderr=err, text=True)
    assert proc.stdout is not None
    line = listening_line(proc.stdout)
    assert "listening on" in line, line + log.read_text()[-3000:]
    return int(line.rsplit(":", 1)[1]), proc


def stop(proc: subprocess.Popen[str], timeout: float = 20) -> None:
    """Terminate a process (if it still runs) and wait for it."""
    if proc.poll() is None:
        proc.terminate()
    proc.wait(timeout=timeout)
