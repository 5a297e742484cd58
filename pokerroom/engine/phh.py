"""Hand histories in the PHH format (TOML): read `.phh` / `.phhs` text, write one hand.

PHH is the open poker hand history standard; its fields are documented with
PokerKit. A `.phhs` file holds many hands, each under a `[name]` header line.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, assert_never

from pokerroom.engine import errors
from pokerroom.engine import events as ev
from pokerroom.engine.errors import EngineError
from pokerroom.engine.variants import Betting

if TYPE_CHECKING:
    from pokerroom.engine.hand import Hand


@dataclass(slots=True)
class HandHistory:
    """One hand as PHH fields; `fields` keeps everything, including fields we do not use."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def variant(self) -> str:
        """The PHH variant code (NT, PO, FT, ...)."""
        return str(self.fields.get("variant", ""))

    @property
    def actions(self) -> list[str]:
        """The action strings, in order."""
        return list(self.fields.get("actions", []))


def _split_sections(text: str) -> Iterator[tuple[str | None, str]]:
    """Yield (section name or None, body) for a .phhs text; headers are '[name]' lines."""
    name: str | None = None
    body: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]") and "=" not in stripped:
            if name is not None or any(b.strip() for b in body):
                yield name, "\n".join(body)
            name = stripped[1:-1]
            body = []
        else:
            body.append(line)
    if name is not None or any(b.strip() for b in body):
        yield name, "\n".join(body)


def loads(text: str, default_name: str = "hand") -> list[HandHistory]:
    """Parse PHH or PHHS text into hand histories (a single hand takes `default_name`)."""
    hands = []
    for name, body in _split_sections(text):
        try:
            fields = tomllib.loads(body)
        except tomllib.TOMLDecodeError as exc:
            raise EngineError(errors.BAD_HISTORY, f"{name or default_name}: {exc}") from exc
        hands.append(HandHistory(name or default_name, fields))
    return hands


def _toml_value(value: object) -> str:
    """One TOML value: a boolean, number, string or array of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value + "'" if "'" not in value and "\n" not in value else _toml_basic(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to PHH")


def _toml_basic(value: str) -> str:
    """A TOML basic (double-quoted) string, for text a literal string cannot hold."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'


def dumps(fields: dict[str, Any]) -> str:
    """Write one hand's fields as PHH (TOML) text."""
    return "".join(f"{key} = {_toml_value(value)}\n" for key, value in fields.items())


def dumps_many(hands: Sequence[HandHistory]) -> str:
    """Write several hands as one PHHS text, each under its `[name]` header."""
    return "\n".join(f"[{h.name}]\n{dumps(h.fields)}" for h in hands)


def actions_from_log(log: Sequence[ev.Event]) -> list[str]:
    """Turn a hand's event log into PHH action strings (players are 1-based there)."""
    out: list[str] = []
    for event in log:
        match event:
            case ev.HoleDealt(player=player, cards=cards):
                out.append(f"d dh p{player + 1} {''.join(cards)}")
            case ev.BoardDealt(cards=cards):
                out.append(f"d db {''.join(cards)}")
            case ev.Folded(player=player):
                out.append(f"p{player + 1} f")
            case ev.CheckedOrCalled(player=player):
                out.append(f"p{player + 1} cc")
            case ev.BetOrRaised(player=player, to=to):
                out.append(f"p{player + 1} cbr {to}")
            case ev.HandShown(player=player, cards=cards):
                out.append(f"p{player + 1} sm {''.join(cards)}")
            case ev.HandMucked(player=player):
                out.append(f"p{player + 1} sm")
            case (
                ev.AntePosted()
                | ev.BlindPosted()
                | ev.DeadPosted()
                | ev.BetReturned()
                | ev.PotAwarded()
                | ev.HandEnded()
            ):
                # Not PHH actions: forced bets follow from the antes and blinds fields, and
                # returns, awards and final stacks from the actions and `finishing_stacks`.
                pass
            case _:
                assert_never(event)
    return out


def parse_action(text: str) -> tuple[str, int, str, str]:
    """Split a PHH action into (actor 'd' or 'p', player index or -1, verb, argument)."""
    line = text.split("#", 1)[0].strip()
    parts = line.split()
    if len(parts) < 2:
        raise EngineError(errors.BAD_ACTION, f"cannot read {text!r}")
    if parts[0] == "d":
        if len(parts) == 4 and parts[1] == "dh" and parts[2].startswith("p"):
            return "d", _player(parts[2], text), "dh", parts[3]
        if len(parts) == 3 and parts[1] == "db":
            return "d", -1, "db", parts[2]
        raise EngineError(errors.BAD_ACTION, f"cannot read {text!r}")
    if not parts[0].startswith("p"):
        raise EngineError(errors.BAD_ACTION, f"cannot read {text!r}")
    player = _player(parts[0], text)
    verb = parts[1]
    arg = parts[2] if len(parts) > 2 else ""
    return "p", player, verb, arg


def _player(token: str, text: str) -> int:
    try:
        index = int(token[1:]) - 1
    except ValueError:
        raise EngineError(errors.BAD_ACTION, f"cannot read {text!r}") from None
    if index < 0:
        raise EngineError(errors.BAD_ACTION, f"cannot read {text!r}")
    return index


def history_fields(hand: Hand, number: int, **extra: object) -> dict[str, Any]:
    """The PHH fields of a finished hand, `finishing_stacks` included.

    `extra` adds optional PHH fields such as `players`, `seats`, `table` or `time`.
    """
    cfg = hand.config
    fields: dict[str, Any] = {"variant": cfg.variant.code}
    fields["ante_trimming_status"] = cfg.ante_trimming
    antes = list(cfg.antes) if cfg.antes else [0] * cfg.player_count
    blinds = list(cfg.blinds_or_straddles)
    if cfg.player_count == 2:
        antes, blinds = antes[::-1], blinds[::-1]  # PHH lists heads-up blinds small first
    fields["antes"] = antes
    fields["blinds_or_straddles"] = blinds
    if cfg.variant.betting is Betting.FIXED_LIMIT:
        fields["small_bet"] = cfg.small_bet
        fields["big_bet"] = cfg.big_bet
    else:
        fields["min_bet"] = cfg.min_bet
    fields["starting_stacks"] = list(cfg.starting_stacks)
    fields["actions"] = actions_from_log(hand.log)
    fields["hand"] = number
    fields.update(extra)
    fields["finishing_stacks"] = list(hand.stacks)
    return fields
