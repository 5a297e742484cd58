"""Replay a PHH hand history through the engine, dealing the recorded cards."""

from __future__ import annotations

from typing import Any

from pokerroom.engine import errors
from pokerroom.engine.cards import FULL_DECK
from pokerroom.engine.config import HandConfig
from pokerroom.engine.errors import EngineError
from pokerroom.engine.hand import Hand, Phase
from pokerroom.engine.phh import HandHistory, parse_action
from pokerroom.engine.variants import VARIANTS


def config_from_history(history: HandHistory) -> HandConfig:
    """Build the hand's terms from PHH fields; raise `unsupported_variant` outside NT/PO/FT."""
    fields = history.fields
    variant = VARIANTS.get(history.variant)
    if variant is None:
        raise EngineError(errors.UNSUPPORTED_VARIANT, f"variant {history.variant!r} is not played")
    stacks = tuple(fields.get("starting_stacks", ()))
    n = len(stacks)
    antes = _per_player(fields.get("antes", 0), n)
    blinds = _per_player(fields.get("blinds_or_straddles", 0), n)
    if n == 2:
        # Heads-up, PHH lists the forced bets small blind first, but p1 is the big blind.
        antes, blinds = antes[::-1], blinds[::-1]
    try:
        return HandConfig(
            variant=variant,
            starting_stacks=stacks,
            blinds_or_straddles=blinds,
            antes=antes if any(antes) else (),
            min_bet=int(fields.get("min_bet", 0) or 0),
            small_bet=int(fields.get("small_bet", 0) or 0),
            big_bet=int(fields.get("big_bet", 0) or 0),
            ante_trimming=bool(fields.get("ante_trimming_status", False)),
        )
    except (TypeError, ValueError) as exc:
        raise EngineError(errors.BAD_HISTORY, str(exc)) from exc


def _per_player(value: Any, n: int) -> tuple[int, ...]:
    if isinstance(value, list):
        return tuple(value)
    return (value,) * n


def _fill_unknown(actions: list[str]) -> list[str]:
    """Replace unknown cards ('??') with unused cards; they are never shown, so never matter."""
    if not any("??" in a for a in actions):
        return actions
    known: set[str] = set()
    for action in actions:
        for token in action.split("#", 1)[0].split()[2:]:
            known.update(token[i : i + 2] for i in range(0, len(token), 2))
    spare = iter([c for c in FULL_DECK if c not in known])
    filled = []
    for action in actions:
        while "??" in action:
            action = action.replace("??", next(spare), 1)
        filled.append(action)
    return filled


def replay(history: HandHistory) -> Hand:
    """Play every recorded action; return the finished hand or raise `EngineError`."""
    hand = Hand(config_from_history(history))
    for action in _fill_unknown(history.actions):
        apply_action(hand, action)
    if hand.phase is Phase.SHOWDOWN:
        hand.resolve_showdown()
    if not hand.is_over:
        raise EngineError(errors.INCOMPLETE_HAND, "the history ends before the hand does")
    return hand


def apply_action(hand: Hand, action: str) -> None:
    """Apply one PHH action string to the hand."""
    who, player, verb, arg = parse_action(action)
    if who == "d":
        cards = _cards(arg)
        if verb == "dh":
            hand.deal_hole(player, cards)
        else:
            hand.deal_board(cards)
        return
    if verb == "f":
        hand.fold(player)
    elif verb == "cc":
        hand.check_or_call(player)
    elif verb == "cbr":
        try:
            amount = int(arg)
        except ValueError:
            raise EngineError(errors.INVALID_AMOUNT, f"{arg!r} is not an amount") from None
        hand.bet_or_raise(player, amount)
    elif verb == "sm":
        if arg and arg != "-":
            hand.show(player, _cards(arg))
        else:
            hand.muck(player)
    else:
        raise EngineError(errors.BAD_ACTION, f"unknown action {action!r}")


def _cards(text: str) -> tuple[str, ...]:
    return tuple(text[i : i + 2] for i in range(0, len(text), 2))
