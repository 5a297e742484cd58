"""What each admin tournament command takes: its typed args class and their fields."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pokerroom.admin.args import KEY_RE, NOTE, PLAYER, REASON
from pokerroom.admin.commands import arg
from pokerroom.protocol import errors
from pokerroom.protocol import fields as f
from pokerroom.protocol.errors import ProtocolError
from tournaments.config import FORMATS

MAX_CHIPS = 10**12


def number(low: float, high: float, *, low_included: bool = False) -> Any:
    """A JSON number (int or decimal) above `low` (or from it) and at most `high`; else
    `bad_field`."""

    def check(name: str, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ProtocolError(errors.BAD_FIELD, f"{name}: must be a number")
        above = low <= value if low_included else low < value
        if not math.isfinite(value) or not above or value > high:
            word = "from" if low_included else "above"
            raise ProtocolError(errors.BAD_FIELD, f"{name}: {word} {low:g}, at most {high:g}")
        return float(value)

    return check


def prize_amounts(name: str, value: object) -> tuple[int, ...]:
    """Every place's prize, first place first: 1 to 10,000 positive whole cents."""
    if not isinstance(value, list) or not 1 <= len(value) <= 10_000:
        raise ProtocolError(errors.BAD_FIELD, f"{name}: a list of 1 to 10000 amounts")
    for amount in value:
        f.check_amount(name, amount)
    return tuple(value)


TOURNAMENT = arg(f.pattern(f.TABLE_ID_RE), "the tournament, as `tournament_list` shows it")


@dataclass(frozen=True, slots=True)
class TournamentArgs:
    """A tournament."""

    tournament_id: str = TOURNAMENT


@dataclass(frozen=True, slots=True)
class TournamentChangeArgs:
    """A tournament and, optionally, why."""

    tournament_id: str = TOURNAMENT
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class TournamentReasonArgs:
    """A tournament, and why (required)."""

    tournament_id: str = TOURNAMENT
    reason: str = REASON


@dataclass(frozen=True, slots=True)
class CreateArgs:
    """A new tournament from a blind-structure template."""

    template: str = arg(f.pattern(f.TABLE_ID_RE), "the template (config/tournaments: turbo ...)")
    starts_at_ms: int = arg(f.integer(1, 2**53), "when it starts (epoch ms, in the future)", "int")
    buy_in: int = arg(f.integer(0, f.MAX_AMOUNT), "cents to the prize pool (T-2)", "int")
    fee: int = arg(f.integer(0, f.MAX_AMOUNT), "cents to the house (T-2)", "int")
    name: str | None = arg(f.player_name, "the lobby name (default: the template's)", default=None)
    format: str = arg(f.choice(FORMATS), "freezeout | reentry | rebuy (T-4)", default="freezeout")
    max_seats: int = arg(f.integer(2, 10), "seats per table (default 9)", "int", default=9)
    late_registration_levels: int = arg(
        f.integer(0, 100), "late registration through this level (T-5)", "int", default=0
    )
    max_entries: int | None = arg(f.integer(2, 100_000), "at most this many", "int", default=None)
    guarantee: int = arg(
        f.integer(0, f.MAX_AMOUNT), "guaranteed pool, cents (T-6)", "int", default=0
    )
    between_hands_seconds: float = arg(
        number(0, 60, low_included=True),
        "pause between two hands of a table (default 3)",
        "number",
        default=3.0,
    )
    resume_within_minutes: float | None = arg(
        number(0, 1440, low_included=True),
        "T-18 after a crash (default 10)",
        "number",
        default=None,
    )
    reconnect_seconds: float | None = arg(
        number(0, 3600, low_included=True),
        "deal again this long after a resume (default 30)",
        "number",
        default=None,
    )
    satellite_target: str | None = arg(
        f.pattern(f.TABLE_ID_RE),
        "a satellite: its prizes are seats (tickets) in this open tournament (T-16)",
        default=None,
    )
    ticket_valid_days: int = arg(
        f.integer(1, 3650), "a satellite's tickets expire after (default 30)", "int", default=30
    )
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class DelayArgs:
    """A tournament not started, how much later it starts, and why."""

    tournament_id: str = TOURNAMENT
    minutes: float = arg(number(0, 1440), "minutes later (a decimal number above 0)", "number")
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class AddTimeArgs:
    """A running tournament, the seconds added to its current level, and why."""

    tournament_id: str = TOURNAMENT
    seconds: int = arg(f.integer(1, 86_400), "seconds added to the current level", "int")
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class MoveArgs:
    """A player of a running tournament, the table they move to, and why."""

    tournament_id: str = TOURNAMENT
    player: str = PLAYER
    table: int = arg(f.integer(1, 100_000), "the table number (`tournament_show`)", "int")
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class PlayerReasonArgs:
    """A player of a running tournament, and why."""

    tournament_id: str = TOURNAMENT
    player: str = PLAYER
    reason: str = REASON


@dataclass(frozen=True, slots=True)
class ChipsArgs:
    """A player of a running tournament, the stack they should have, and why."""

    tournament_id: str = TOURNAMENT
    player: str = PLAYER
    chips: int = arg(f.integer(1, MAX_CHIPS), "the stack, in chips (at least 1)", "int")
    reason: str = REASON


@dataclass(frozen=True, slots=True)
class SitoutArgs:
    """A tournament and the report's thresholds (T-12)."""

    tournament_id: str = TOURNAMENT
    min_times: int = arg(f.integer(1, 1000), "together at least this often (3)", "int", default=3)
    min_overlap_seconds: float = arg(
        number(0, 86_400, low_included=True),
        "each time at least this long (30)",
        "number",
        default=30.0,
    )


@dataclass(frozen=True, slots=True)
class PrizesArgs:
    """A T-15 prize change: the new amounts (or seats in cash), why, an idempotency key."""

    tournament_id: str = TOURNAMENT
    amounts: tuple[int, ...] = arg(prize_amounts, "every place's prize from the first", "cents[]")
    reason: str = REASON
    key: str = arg(f.pattern(KEY_RE, 40), "idempotency key: the same key changes once (P-2)")
    rounding: int | None = arg(
        f.integer(0, f.MAX_AMOUNT), "the new house rounding (T-7)", "int", default=None
    )
    seats_in_cash: bool = arg(
        f.boolean, "a satellite's seats paid in cash (T-15)", "bool", default=False
    )


@dataclass(frozen=True, slots=True)
class OutageArgs:
    """A tournament after a crash, the staff's choice (resume | refund), and why."""

    tournament_id: str = TOURNAMENT
    choice: str = arg(f.choice(("resume", "refund")), "resume | refund (T-18)")
    reason: str = REASON
