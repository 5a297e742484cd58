"""structlog set-up for the server: JSON lines in production, readable lines in a terminal.

Loggers are bound with ids where they are made (`session_id`, `player_id`, `table_id`,
`hand_id`), so every line says which connection, player, table and hand it is about.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog


def configure_logging(fmt: str = "auto", stream: TextIO | None = None, level: str = "info") -> str:
    """Configure structlog; `fmt` is auto, json or console. Returns the format chosen."""
    out = stream or sys.stderr
    if fmt == "auto":
        fmt = "console" if out.isatty() else "json"
    if fmt not in ("json", "console"):
        raise ValueError(f"log format is auto, json or console, not {fmt!r}")
    renderer = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=out.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    return fmt
