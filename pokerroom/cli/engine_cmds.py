"""Engine subcommands: `replay` and `simulate`."""

from __future__ import annotations

COMMANDS: list = []
