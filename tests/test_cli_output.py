"""CLI output for people: money as currency, tables that fit or fall back to plain lines."""

from __future__ import annotations

import pytest

from pokerroom.cli.output import money, show_table


@pytest.mark.parametrize(
    ("minor", "currency", "shown"),
    [
        (0, "USD", "0.00 USD"),
        (5, "USD", "0.05 USD"),
        (12345, "USD", "123.45 USD"),
        (123456789, "EUR", "1,234,567.89 EUR"),
        (-10, "USD", "-0.10 USD"),
        (-123456, "USD", "-1,234.56 USD"),
        (1500, "JPY", "1,500 JPY"),  # no minor unit
        (1500, "KWD", "1.500 KWD"),  # three digits
        (250, "T$", "2.50 T$"),  # tournament dollars: cents like the room's currency
    ],
)
def test_money_is_shown_in_major_units(minor: int, currency: str, shown: str) -> None:
    assert money(minor, currency) == shown


def test_no_rows_is_one_line_not_an_empty_box(capsys: pytest.CaptureFixture[str]) -> None:
    show_table("pending approvals", ["id", "amount"], [])
    assert capsys.readouterr().out == "pending approvals: none\n"


def test_piped_tables_are_plain_aligned_lines(capsys: pytest.CaptureFixture[str]) -> None:
    show_table("wallets", ["player", "balance"], [["ann", "1.00 USD"], ["bartholomew", None]])
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "wallets",
        "player       balance",
        "ann          1.00 USD",
        "bartholomew",
    ]
    assert all("│" not in line and "┃" not in line for line in out)
