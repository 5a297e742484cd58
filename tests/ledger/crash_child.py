"""Child process for the SIGKILL test: a bounded stream of keyed transfers, logged as it goes."""

from __future__ import annotations

import sys
from typing import Any

from pokerroom.ledger.db import make_engine
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.transfers import move

USD = "USD"


def request(n: int) -> dict[str, Any]:
    """The n-th transfer: even n deposit 10, odd n move 3 on to the next player."""
    player, following = f"p{(n // 2) % 3}", f"p{(n // 2 + 1) % 3}"
    if n % 2 == 0:
        return {
            "key": f"crash:{n}",
            "kind": "deposit",
            "currency": USD,
            "source": external(USD),
            "destination": wallet(player, USD),
            "amount": 10,
        }
    return {
        "key": f"crash:{n}",
        "kind": "transfer",
        "currency": USD,
        "source": wallet(player, USD),
        "destination": wallet(following, USD),
        "amount": 3,
    }


def main(url: str, count: int) -> None:
    """Send transfers 0..count-1, printing `begin n` before and `done n` after each."""
    engine = make_engine(url)
    for n in range(count):
        print(f"begin {n}", flush=True)
        move(engine, **request(n))
        print(f"done {n}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
