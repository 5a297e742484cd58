"""What the CLI prints for people: money as money, tables that fit, nothing empty boxed.

`--json` output never goes through here: machines get integer minor units (cents).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import click

#: ISO 4217 minor-unit digits that are not 2 (every other code, and T$, has 2).
_DIGITS = {
    **dict.fromkeys(("BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG"), 0),
    **dict.fromkeys(("RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF"), 0),
    **dict.fromkeys(("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"), 3),
}


def amount(minor: int, currency: str) -> str:
    """An amount in minor units without its code: `amount(123456, "USD")` is `1,234.56`."""
    digits = _DIGITS.get(currency.upper(), 2)
    sign = "-" if minor < 0 else ""
    whole, part = divmod(abs(minor), 10**digits)
    return sign + f"{whole:,}" + (f".{part:0{digits}d}" if digits else "")


def money(minor: int, currency: str) -> str:
    """An amount in minor units as people read it: `money(123456, "USD")` is `1,234.56 USD`."""
    return f"{amount(minor, currency)} {currency}"


def span(low: int, high: int, currency: str, between: str = "/") -> str:
    """Two amounts of one currency, blinds (`0.50/1.00 USD`) or a range (`between="-"`)."""
    return f"{amount(low, currency)}{between}{money(high, currency)}"


def when(ms: int | None) -> str:
    """Epoch milliseconds as a UTC date and time (`2026-12-01 20:40:48`); "" for None."""
    if ms is None:
        return ""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def show_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Rows under a title: a rich table on a terminal (fitted to its width), plain aligned
    lines when piped; no rows is one line (`TITLE: none`), never an empty box."""
    if not rows:
        click.echo(f"{title}: none")
        return
    cells = [[_cell(v) for v in row] for row in rows]
    if not sys.stdout.isatty():
        widths = [max(len(c) for c in column) for column in zip(columns, *cells, strict=True)]
        click.echo(title)
        for line in (list(columns), *cells):
            click.echo("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, expand=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in cells:
        table.add_row(*row)
    Console().print(table)
