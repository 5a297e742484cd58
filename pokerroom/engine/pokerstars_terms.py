"""The small words of a PokerStars-style hand history: numbers, money, time, hand names.

Pure helpers of `pokerroom.engine.pokerstars` (no clock, no `datetime`: the engine imports
neither, docs/ARCHITECTURE.md rule 1), so the calendar arithmetic is written out here.
"""

from __future__ import annotations

import hashlib

#: Symbols trackers read before an amount; another currency is written without one.
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}

#: Where each hand class ends in the treys rank scale (1 best .. 7462 worst).
_CLASSES = (
    (10, "a straight flush"),
    (166, "four of a kind"),
    (322, "a full house"),
    (1599, "a flush"),
    (1609, "a straight"),
    (2467, "three of a kind"),
    (3325, "two pair"),
    (6185, "a pair"),
    (7462, "high card"),
)

_ROMAN = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)  # fmt: skip


def stars_number(text: str) -> int:
    """A room id as the digits a PokerStars header needs: itself when it is digits, else a
    stable 56-bit hash (unique enough for trackers that key hands by number)."""
    if text.isdigit() and len(text) <= 18:
        return int(text)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=7).digest(), "big")


def money(amount: int, currency: str | None) -> str:
    """Cents as PokerStars writes them ($1, $0.25, €3.50), or tournament chips (None)."""
    if currency is None:
        return str(amount)
    sign = "-" if amount < 0 else ""
    units, cents = divmod(abs(amount), 100)
    number = f"{units}" if cents == 0 else f"{units}.{cents:02d}"
    return f"{sign}{SYMBOLS.get(currency, '')}{number}"


def roman(number: int) -> str:
    """A tournament level as PokerStars numbers it (Level IV)."""
    out = []
    for value, letters in _ROMAN:
        while number >= value:
            out.append(letters)
            number -= value
    return "".join(out) or "0"


def hand_name(rank: int) -> str:
    """The class of a treys rank in PokerStars' words ('a flush', 'two pair')."""
    for last, name in _CLASSES:
        if rank <= last:
            return name
    return "high card"


# ---------------------------------------------------------------------------- time


def _civil(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a count of days since 1970-01-01 (proleptic Gregorian)."""
    days += 719_468
    era = (days if days >= 0 else days - 146_096) // 146_097
    doe = days - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def _days(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a civil date (the inverse of `_civil`)."""
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    yoe = year - era * 400
    doy = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def _nth_sunday(year: int, month: int, nth: int) -> int:
    """Days since the epoch of the nth Sunday of a month (1970-01-01 was a Thursday)."""
    first = _days(year, month, 1)
    to_sunday = (3 - first) % 7  # weekday: (days + 4) % 7 with Sunday 0
    return first + to_sunday + 7 * (nth - 1)


def eastern_offset_hours(ms: int) -> int:
    """UTC offset of US Eastern time at `ms` (-4 in daylight time, else -5): daylight from
    the second Sunday of March 02:00 EST to the first Sunday of November 02:00 EDT."""
    year = _civil(ms // 86_400_000)[0]
    starts = _nth_sunday(year, 3, 2) * 86_400_000 + 7 * 3_600_000
    ends = _nth_sunday(year, 11, 1) * 86_400_000 + 6 * 3_600_000
    return -4 if starts <= ms < ends else -5


def clock_text(ms: int, offset_hours: int = 0) -> str:
    """`2026/12/01 9:05:07` for a time in ms since the epoch, shifted by `offset_hours`."""
    seconds = ms // 1000 + offset_hours * 3600
    days, rest = divmod(seconds, 86_400)
    year, month, day = _civil(days)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    return f"{year:04d}/{month:02d}/{day:02d} {hour}:{minute:02d}:{second:02d}"


def stamps(ms: int) -> str:
    """Both header times: the room's (UTC) and the ET PokerStars prints in brackets."""
    return f"{clock_text(ms)} UTC [{clock_text(ms, eastern_offset_hours(ms))} ET]"
