"""Pure chat filters (C-13): length, advertising links, word list, floods, hand talk.

Each check takes the line and the rules and returns an error code or None; `first_problem`
runs them in a fixed order. No clock and no state here: rate limits, repeats and mutes live
in `pokerroom.chat.service`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pokerroom.protocol import errors

#: A small default list; the room's list is `[chat] blocked_words` in config/room.toml.
DEFAULT_BLOCKED_WORDS = (
    "idiot",
    "moron",
    "retard",
    "kill yourself",
    "kys",
    "i will find you",
    "soft play",
    "softplay",
    "chip dump",
    "chipdump",
    "share cards",
    "what do you have",
)

LINK_RE = re.compile(
    r"(https?://|www\.|\b[a-z0-9-]{2,}\.(com|net|org|io|gg|ly|me|co|ru|xyz|biz|info|bet|site)\b"
    r"|\bt\.me/|discord\.gg)",
    re.IGNORECASE,
)
#: Words that mark talk about a hand (mode "keywords"): card codes, actions and hands.
HAND_TALK_RE = re.compile(
    r"(\b[2-9tjqka][shdc]\b|\b[2-9tjqka]{2}[so]?\b|\b(fold|folds|call|calls|raise|shove|"
    r"all.?in|bluff|nuts|flush|straight|set|trips|pair|kicker|outs|board|flop|turn|river|"
    r"he has|she has|has it|pocket)\b)",
    re.IGNORECASE,
)
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a"})


@dataclass(frozen=True, slots=True)
class ChatRules:
    """Chat settings (`[chat]` in config/room.toml); times are seconds."""

    max_length: int = 200
    rate_lines: int = 5  # at most this many lines ...
    rate_seconds: float = 10.0  # ... in this sliding window
    repeat_seconds: float = 60.0  # the same line again within this is spam
    max_symbols: int = 8  # emoji and other symbols in one line
    max_run: int = 8  # the same character this many times in a row
    block_links: bool = True
    blocked_words: tuple[str, ...] = DEFAULT_BLOCKED_WORDS
    hand_talk_rule: bool = True  # C-13 table setting: default on
    hand_talk_mode: str = "all"  # "all": no line from non-players; "keywords": hand words only
    # The log of accepted lines (pokerroom.chat.batch): a bounded queue written in batches.
    log_queue_lines: int = 5000  # lines waiting to be stored; past it chat is server_busy
    log_queue_bytes: int = 1 << 20  # ... or this many bytes of them
    log_batch_seconds: float = 0.5  # a batch is written at most this long after its first line

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> ChatRules:
        """Build from the `[chat]` TOML table; unknown keys are an error."""
        known = set(cls.__dataclass_fields__)
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown chat settings: {sorted(unknown)}")
        data = dict(values)
        if "blocked_words" in data:
            data["blocked_words"] = tuple(str(w).lower() for w in data["blocked_words"])
        if data.get("hand_talk_mode", "all") not in ("all", "keywords"):
            raise ValueError("chat.hand_talk_mode is 'all' or 'keywords'")
        return cls(**data)


@dataclass(slots=True)
class _Normalised:
    text: str
    folded: str = field(init=False)

    def __post_init__(self) -> None:
        plain = unicodedata.normalize("NFKC", self.text).lower().translate(_LEET)
        self.folded = " ".join(re.sub(r"[^\w\s]", " ", plain).split())


def normalise(text: str) -> str:
    """Lower case, NFKC, leetspeak folded, punctuation removed: what repeats are compared on."""
    return _Normalised(text).folded


def _is_symbol(char: str) -> bool:
    category = unicodedata.category(char)
    return category.startswith("S") or category in ("Cs", "Co") or ord(char) >= 0x1F000


def check_length(text: str, rules: ChatRules) -> str | None:
    """chat_empty or chat_too_long."""
    if not text.strip():
        return errors.CHAT_EMPTY
    if len(text) > rules.max_length:
        return errors.CHAT_TOO_LONG
    return None


def check_links(text: str, rules: ChatRules) -> str | None:
    """chat_advertising for links and web addresses."""
    return errors.CHAT_ADVERTISING if rules.block_links and LINK_RE.search(text) else None


def check_words(text: str, rules: ChatRules) -> str | None:
    """chat_language for a word or phrase on the room's list (whole words, leet folded)."""
    folded = f" {normalise(text)} "
    squeezed = folded.replace(" ", "")
    for word in rules.blocked_words:
        target = normalise(word)
        if not target:
            continue
        if f" {target} " in folded or (len(target) >= 6 and target.replace(" ", "") in squeezed):
            return errors.CHAT_LANGUAGE
    return None


def check_flood(text: str, rules: ChatRules) -> str | None:
    """chat_flood for too many emoji/symbols or one character repeated too often in a row."""
    if sum(1 for char in text if _is_symbol(char)) > rules.max_symbols:
        return errors.CHAT_FLOOD
    run, previous = 0, ""
    for char in text:
        run = run + 1 if char == previous and not char.isspace() else 1
        previous = char
        if run >= rules.max_run:
            return errors.CHAT_FLOOD
    return None


def check_hand_talk(
    text: str, rules: ChatRules, *, in_hand: bool, hand_running: bool
) -> str | None:
    """C-13: while a hand runs, a player not in it may not talk about it."""
    if not rules.hand_talk_rule or not hand_running or in_hand:
        return None
    if rules.hand_talk_mode == "keywords" and not HAND_TALK_RE.search(text):
        return None
    return errors.CHAT_HAND_IN_PROGRESS


def first_problem(text: str, rules: ChatRules, *, in_hand: bool, hand_running: bool) -> str | None:
    """The first content problem of a line, in a fixed order, or None if it may be shown."""
    return (
        check_length(text, rules)
        or check_hand_talk(text, rules, in_hand=in_hand, hand_running=hand_running)
        or check_links(text, rules)
        or check_words(text, rules)
        or check_flood(text, rules)
    )
