"""First answers of keyed money requests (P-2): a retry with the same key gets the first answer.

A client that lost the answer to a money request (`top_up`, `deposit`, `tournament_register`,
`tournament_reenter`, `tournament_rebuy`, `tournament_addon`) sends it again with the same
`key`. Keys are scoped by player: one player's key never names another's request. Here the
lobby remembers, per player and key, what the request asked and what it answered:

- the same key and the same content: the first answer again, and nothing runs (a retry that
  arrives while the first is still running waits for it and gets the same answer);
- the same key with other content: `idempotency_conflict`, and nothing runs;
- a request that was refused is forgotten (it changed nothing, P-1): its retry runs again;
- a retry of a request whose effect was undone since (a registration left by unregistering, a
  stake refunded) is answered with what is true now: the `recheck` hook (the tournament desk's)
  sees the first answer and gives the answer of now, or raises a documented code.

Memory is bounded: a player's oldest keys go past `per_player`, and every key after
`keep_seconds`. The ledger is the durable second line: the money moves of a keyed request use
the ledger idempotency key `request:<player>:<key>`, so a retry the memory no longer holds (or
one after a restart) still moves no money twice (docs/PROTOCOL.md section 5, "Keys").
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure

from pokerroom.ledger.errors import IdempotencyConflict
from pokerroom.protocol.errors import ProtocolError

IDEMPOTENCY_CONFLICT = IdempotencyConflict.code


def ledger_key(player: str, key: str) -> str:
    """The ledger idempotency key of a keyed request: the client's key, scoped by player."""
    return f"request:{player}:{key}"


@dataclass(slots=True)
class _Entry:
    content: tuple[Any, ...]
    at: float
    done: bool = False
    answer: Any = None
    waiting: list[Deferred[Any]] = field(default_factory=list)


#: `recheck(player, key, content, first_answer)`: the answer of a retry now (or raises).
Recheck = Callable[[str, str, tuple[Any, ...], Any], Any]


class Replies:
    """The remembered answers of keyed requests, per player."""

    def __init__(
        self,
        clock: IReactorTime,
        *,
        keep_seconds: float = 86_400.0,
        per_player: int = 256,
        recheck: Recheck | None = None,
    ) -> None:
        self.clock = clock
        self.recheck = recheck
        self.keep_seconds = keep_seconds
        self.per_player = per_player
        self._by_player: dict[str, OrderedDict[str, _Entry]] = {}

    def run(self, player: str, key: str, content: tuple[Any, ...], work: Callable[[], Any]) -> Any:
        """Run `work` once for (player, key); a retry gets its answer (a value or a Deferred)."""
        now = self.clock.seconds()
        entries = self._by_player.setdefault(player, OrderedDict())
        entry = entries.get(key)
        if entry is not None and now - entry.at > self.keep_seconds:
            del entries[key]
            entry = None
        if entry is not None:
            if entry.content != content:
                raise ProtocolError(
                    IDEMPOTENCY_CONFLICT,
                    f"key {key!r} was used for another request; use a new key (P-2)",
                )
            if entry.done:
                if self.recheck is not None:
                    return self.recheck(player, key, entry.content, entry.answer)
                return entry.answer
            waiter: Deferred[Any] = Deferred()
            entry.waiting.append(waiter)
            return waiter
        entry = _Entry(content, now)
        entries[key] = entry
        while len(entries) > self.per_player:
            entries.popitem(last=False)
        try:
            answer = work()
        except BaseException:
            entries.pop(key, None)
            raise
        if isinstance(answer, Deferred):
            return answer.addBoth(self._settled, entries, key, entry)
        self._settled(answer, entries, key, entry)
        return answer

    def _settled(
        self, result: Any, entries: OrderedDict[str, _Entry], key: str, entry: _Entry
    ) -> Any:
        """Keep a success; forget a refusal (it changed nothing); answer the waiting retries."""
        if isinstance(result, Failure):
            if entries.get(key) is entry:
                del entries[key]
        else:
            entry.done, entry.answer = True, result
        waiting, entry.waiting = entry.waiting, []
        for waiter in waiting:
            if isinstance(result, Failure):
                waiter.errback(result)
            else:
                waiter.callback(result)
        return result

    def forget(self, player: str) -> None:
        """Drop a player's keys (tests, staff tools)."""
        self._by_player.pop(player, None)
