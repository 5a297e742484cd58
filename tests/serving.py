"""Reading a `pokerroom serve` process's stdout: the start-up summary, then the listening lines."""

from __future__ import annotations

from typing import IO


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
