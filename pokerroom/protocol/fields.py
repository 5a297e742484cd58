"""Field types of protocol messages: each checks one value and says what is wrong (P-1).

Pure. A `Field` names its JSON key, its kind, whether it is required, and a line of docs;
`Field.check(value)` returns the value (normalised) or raises ProtocolError with a stable code.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError

#: Largest amount of money (cents) a message may carry: ten billion units.
MAX_AMOUNT = 10**12
MAX_TEXT = 2000

TABLE_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
PLAYER_NAME_RE = re.compile(r"^[a-z0-9_]{3,20}$")
CURRENCY_RE = re.compile(r"^[A-Z][A-Z0-9]{1,7}$")
#: A `before` cursor of hand_histories: `<ended_at_ms>:<hand_id>`, as returned in `next`.
HISTORY_CURSOR_RE = re.compile(r"[0-9]{1,16}:[A-Za-z0-9_.:-]{1,80}")
#: Longest name a client may type; checked before any normalization or database work.
MAX_NAME_INPUT = 64

CLIENT_KINDS = ("desktop", "mobile", "web")
ACTIONS = ("fold", "check", "call", "bet", "raise")


def is_int(value: object) -> TypeGuard[int]:
    """True for a JSON integer (a Python int that is not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _bad(name: str, why: str) -> ProtocolError:
    return ProtocolError(errors.BAD_FIELD, f"{name}: {why}")


def _string(name: str, value: object, pattern: re.Pattern[str] | None, max_len: int) -> str:
    if not isinstance(value, str):
        raise _bad(name, f"must be a string, got {type(value).__name__}")
    if not value or len(value) > max_len:
        raise _bad(name, f"must hold 1 to {max_len} characters")
    if pattern is not None and not pattern.fullmatch(value):  # all of it: no trailing newline
        raise _bad(name, f"{errors.excerpt(value)} is not of the form {pattern.pattern}")
    return value


def normalize_name(value: str) -> str | None:
    """The canonical form of a player name, or None if it is not a valid name.

    Rule (docs/PROTOCOL.md, "Accounts"): the length is checked first (at most MAX_NAME_INPUT
    characters typed); then Unicode NFKC, case folding and NFKC again; the result must be 3 to
    20 of ASCII `a-z`, `0-9`, `_`, the whole string. Full-width and styled letters fold to
    their ASCII form ("Ａｌｉｃｅ" is "alice"); lookalikes from other scripts (Cyrillic "а",
    Greek "ο") and invisible characters are refused, so two names that look alike are the same
    name or one of them is not allowed.
    """
    if not 0 < len(value) <= MAX_NAME_INPUT:
        return None
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())
    return folded if PLAYER_NAME_RE.fullmatch(folded) else None


def player_name(name: str, value: object) -> str:
    """A player named by a moderator (`target`): normalized as at registration; else `bad_field`."""
    text = _string(name, value, None, MAX_NAME_INPUT)
    normal = normalize_name(text)
    if normal is None:
        raise _bad(name, f"{errors.excerpt(text)} is not a player name")
    return normal


def check_amount(name: str, value: object) -> int:
    """A positive int of cents, at most MAX_AMOUNT; else `invalid_amount`."""
    if not is_int(value) or not 0 < value <= MAX_AMOUNT:
        raise errors.amount_error(name, value)
    return value


def check_int(name: str, value: object, low: int, high: int) -> int:
    """An int in [low, high]; else `bad_field`."""
    if not is_int(value):
        raise _bad(name, f"must be a whole number, got {errors.excerpt(value)}")
    if not low <= value <= high:
        raise _bad(name, f"must be between {low} and {high}, got {errors.excerpt(value)}")
    return value


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a message: JSON key, kind (for docs), validator, required flag, docs."""

    name: str
    kind: str
    doc: str
    required: bool = True
    validator: Callable[[str, object], Any] | None = None
    nullable: bool = False

    def check(self, value: object) -> Any:
        """The validated value, or ProtocolError (`bad_field`, `invalid_amount`, ...)."""
        if value is None and self.nullable:
            return None
        if self.validator is None:
            return value
        return self.validator(self.name, value)


def text(max_len: int = MAX_TEXT) -> Callable[[str, object], str]:
    """A free string of 1..max_len characters."""
    return lambda name, value: _string(name, value, None, max_len)


def pattern(regex: re.Pattern[str], max_len: int = 64) -> Callable[[str, object], str]:
    """A string matching `regex`."""
    return lambda name, value: _string(name, value, regex, max_len)


def choice(options: tuple[str, ...]) -> Callable[[str, object], str]:
    """One of `options`."""

    def check(name: str, value: object) -> str:
        if value not in options or not isinstance(value, str):
            raise _bad(name, f"must be one of {', '.join(options)}, got {errors.excerpt(value)}")
        return value

    return check


def integer(low: int, high: int) -> Callable[[str, object], int]:
    """An int in [low, high]."""
    return lambda name, value: check_int(name, value, low, high)


def boolean(name: str, value: object) -> bool:
    """true or false."""
    if not isinstance(value, bool):
        raise _bad(name, f"must be true or false, got {errors.excerpt(value)}")
    return value


# Ready-made fields shared by several messages.
TABLE_ID = Field(
    "table_id", "string", "the table, as listed by the lobby", True, pattern(TABLE_ID_RE)
)
AMOUNT = Field("amount", "amount", "cents: a positive integer", True, check_amount)
CURRENCY = Field(
    "currency",
    "string",
    "currency code, e.g. USD (default: the room's)",
    False,
    pattern(CURRENCY_RE, 8),
)
#: A client's idempotency key on a money request (P-2): a retry with the same key moves nothing
#: and gets the first answer; the same key with other content is `idempotency_conflict`.
KEY = Field(
    "key",
    "string",
    "idempotency key, 1-40 of A-Z a-z 0-9 _ . - (P-2): a retry moves nothing",
    False,
    pattern(TABLE_ID_RE, 40),
)
