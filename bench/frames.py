"""Server frames: building and encoding one message, the old dict path against the typed one.

Run: .venv/bin/python bench/frames.py [--count 200000] [--rounds 5]

What the server does per frame on the hot path (an action: `player_acted` to the table's
audience, `action_request` to the next player) and at a hand's start (`hand_started`):

- **dict + json**: the message built as a dict and encoded by the json module as the server did
  (one shared `json.JSONEncoder`, compact, `ensure_ascii=False`, then UTF-8 and a newline);
- **dict + msgspec**: the same dict through today's `encode_frame` (for comparison: no server
  frame is a dict any more);
- **typed + msgspec**: the typed definition built (`PlayerActed(...)`) and encoded by
  `encode_frame`: what every table sends.

Each variant runs `count` times per round, in rotating order, for `rounds` rounds; the figure is
the best round's CPU time of this process per frame (other processes do not count). The encoded
bytes of the three paths are checked equal first. `validate` (what the bots do with every frame
they receive, client side) is timed too.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from pokerroom.protocol.catalog import validate
from pokerroom.protocol.events import (
    ActionRequest,
    HandStarted,
    LegalView,
    PlayerActed,
    SeatStack,
)
from pokerroom.protocol.framing import encode_frame

_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
TABLE, HAND = "nlhe-micro-6max", "nlhe-micro-6max-123456"


def json_frame(message: dict[str, Any]) -> bytes:
    """The server's encoding before typed messages."""
    return _JSON.encode(message).encode("utf-8") + b"\n"


def acted_dict() -> dict[str, Any]:
    """`player_acted` as the table built it."""
    return {
        "type": "player_acted", "table_id": TABLE, "hand_id": HAND, "seat": 3,
        "action": "raise", "amount": 600, "added": 500, "all_in": False,
    }  # fmt: skip


def acted_typed() -> PlayerActed:
    """`player_acted` as its typed definition."""
    return PlayerActed(
        table_id=TABLE, hand_id=HAND, seat=3, action="raise", amount=600, added=500, all_in=False
    )


def request_dict() -> dict[str, Any]:
    """`action_request` as the table built it (the legal actions nested)."""
    return {
        "type": "action_request", "table_id": TABLE, "hand_id": HAND, "seat": 4,
        "actions": {"fold": True, "check": False, "call": 600, "min_raise_to": 1100,
                    "max_raise_to": 20000},
        "deadline_ms": 1_800_000_017_000, "timebank_ms": 30_000,
    }  # fmt: skip


def request_typed() -> ActionRequest:
    """`action_request` as its typed definition."""
    legal = LegalView(fold=True, check=False, call=600, min_raise_to=1100, max_raise_to=20000)
    return ActionRequest(
        table_id=TABLE, hand_id=HAND, seat=4, actions=legal,
        deadline_ms=1_800_000_017_000, timebank_ms=30_000,
    )  # fmt: skip


PLAYERS = [(n, f"player_{n}", 20_000 - 7 * n) for n in range(6)]


def started_dict() -> dict[str, Any]:
    """`hand_started` at six seats as the table built it."""
    return {
        "type": "hand_started", "table_id": TABLE, "hand_id": HAND, "button": 2,
        "blinds": [100, 200],
        "seats": [{"seat": s, "player": p, "stack": k} for s, p, k in PLAYERS],
    }  # fmt: skip


def started_typed() -> HandStarted:
    """`hand_started` as its typed definition."""
    seats = [SeatStack(seat=s, player=p, stack=k) for s, p, k in PLAYERS]
    return HandStarted(table_id=TABLE, hand_id=HAND, button=2, blinds=[100, 200], seats=seats)


CASES: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[], Any]]] = {
    "player_acted": (acted_dict, acted_typed),
    "action_request": (request_dict, request_typed),
    "hand_started (6 seats)": (started_dict, started_typed),
}


def per_frame(work: Callable[[], object], count: int) -> float:
    """CPU seconds per call of `work`."""
    start = time.process_time()
    for _ in range(count):
        work()
    return (time.process_time() - start) / count


def main() -> None:
    """Print a table of µs per frame, best round of each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print("| message | dict + json µs | dict + msgspec µs | typed + msgspec µs | typed / json |"
          " validate µs |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, (as_dict, as_typed) in CASES.items():
        assert json_frame(as_dict()) == encode_frame(as_dict()) == encode_frame(as_typed())
        frame = json.loads(json_frame(as_dict()))
        variants: dict[str, Callable[[], object]] = {
            "json": lambda f=as_dict: json_frame(f()),  # type: ignore[misc]
            "dict": lambda f=as_dict: encode_frame(f()),  # type: ignore[misc]
            "typed": lambda f=as_typed: encode_frame(f()),  # type: ignore[misc]
            "validate": lambda frame=frame: validate(frame),  # type: ignore[misc]
        }
        best = {key: float("inf") for key in variants}
        keys = list(variants)
        for round_number in range(args.rounds):
            order = keys[round_number % len(keys) :] + keys[: round_number % len(keys)]
            for key in order:
                best[key] = min(best[key], per_frame(variants[key], args.count))
        us = {key: value * 1e6 for key, value in best.items()}
        print(
            f"| {name} | {us['json']:.2f} | {us['dict']:.2f} | {us['typed']:.2f} | "
            f"{us['typed'] / us['json']:.2f} | {us['validate']:.2f} |"
        )


if __name__ == "__main__":
    main()
