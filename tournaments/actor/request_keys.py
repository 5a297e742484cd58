"""P-2 for a tournament's keyed purchases (docs/PROTOCOL.md "Keys"): the keys the actor
remembers, the keys whose purchase was given back since, and the answer to a key it forgot.

A keyed request that went through is answered again with its first decision (`replay`); one
the actor does not remember (after a restart) that is refused now, or whose key the ledger
already holds (`purchase_keys.guard` refuses the unit), gets what the key paid for
(`paid_before`): the first answer while that purchase stands, `request_undone` once its money
went back, `idempotency_conflict` if the key paid for something else.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from pokerroom.ledger.db import read
from tournaments.actor.durable_writes import PURCHASE_KINDS
from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.director.registration import Decision, Funding, PlayerEntries
from tournaments.store import purchase_keys
from tournaments.store.purchase_keys import KeyReplayed, KeyUse

IDEMPOTENCY_CONFLICT = "idempotency_conflict"  # the ledger's code (P-2), not a director one
#: A keyed purchase retried after its money went back (the player unregistered, T-3): P-2,
#: docs/PROTOCOL.md "Keys" (the desk's code for the same case).
REQUEST_UNDONE = "request_undone"

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred

    from tournaments.actor.cashier import Cashier
    from tournaments.actor.durable import Durable
    from tournaments.director.registration import RegistrationState


class RequestKeys:
    """The keys of one tournament's purchases (see the module docstring)."""

    def __init__(self, tid: str, cashier: Cashier, durable: Durable) -> None:
        self.tid = tid
        self.cashier = cashier
        self.durable = durable
        #: Ledger key of each keyed request that went through -> (what, its decision). Kept
        #: for the tournament's life: a retry the lobby no longer remembers gets the first
        #: answer here, and moves nothing.
        self.keyed: dict[str, tuple[str, Decision]] = {}
        #: Keys of registrations whose money went back since (the player unregistered, T-3):
        #: their retry is `request_undone`, even once the player registered again.
        self.undone_keys: set[str] = set()

    def knows(self, key: str | None) -> bool:
        """Whether `key` is a keyed request that went through here."""
        return key is not None and key in self.keyed

    def remember(self, key: str, decision: Decision) -> list[Any]:
        """A keyed request reserved: remembered, and its unit's guard step (`guard`)."""
        self.keyed[key] = (decision.action, decision)
        return self.guard(decision, key)

    def given_back(self, player: str) -> None:
        """`player` unregistered: a retry of any of their keyed purchases is `request_undone`."""
        self.undone_keys.update(k for k, (_, d) in self.keyed.items() if d.player == player)

    def guard(self, decision: Decision, key: str) -> list[Any]:
        """The unit's first step for a client's key: refuse it if the key paid before (P-2)."""
        kind = PURCHASE_KINDS.get(decision.action)
        record = decision.state.players.get(decision.player)
        if kind is None or record is None or not self.durable.stores:
            return []  # not stored: the actor's memory of its keys lasts as long as it does
        seq = record.entries + record.rebuys + record.addons  # as `Durable.purchase` numbers it
        guard = partial(
            purchase_keys.guard,
            tournament_id=self.tid,
            key=key,
            player=decision.player,
            seq=seq,
            kind=kind,
        )
        return [guard]

    def find(self, key: str) -> Deferred[KeyUse | None]:
        """What `key` paid for, as stored (counted as money in flight, like a ticket read)."""
        self.cashier.in_flight += 1

        def done(result: Any) -> Any:
            self.cashier.in_flight -= 1
            return result

        found: Deferred[KeyUse | None] = self.cashier.ledger.read(_find, self.tid, key)
        return found.addBoth(done)

    def paid_before(
        self,
        action: str,
        player: str,
        key: str,
        found: KeyUse | None,
        refused: DirectorError | KeyReplayed,
        state: RegistrationState,
    ) -> Decision:
        """The answer to a purchase whose key paid before: the first one while that purchase
        stands, else `request_undone` (its money went back) or `idempotency_conflict`."""
        if found is None:  # the key paid for nothing: the refusal stands
            if isinstance(refused, KeyReplayed):  # paid and gone since the guard saw it
                raise self.undone_error(action) from None
            raise refused
        purchase = found.purchase
        if found.reference != self.cashier.reference or (
            purchase is not None and (purchase[0], purchase[3]) != (player, PURCHASE_KINDS[action])
        ):
            raise DirectorError(
                IDEMPOTENCY_CONFLICT, "this key was used for another request; use a new key"
            ) from None
        if purchase is None or not found.counts:
            raise self.undone_error(action) from None
        _, _, entry_no, _, chips = purchase
        record = state.players.get(player) or PlayerEntries(Funding.CASH)
        players = {**state.players, player: replace(record, entries=entry_no)}
        first = Decision(action, player, replace(state, players=players), chips=chips)
        self.keyed[key] = (action, first)
        return first

    def replay(self, key: str, action: str) -> Decision:
        """The first decision of a keyed request, if this request is the same kind (P-2): a
        key used for a rebuy and sent with an add-on is a conflict, whatever either would do."""
        first_action, first = self.keyed[key]
        if key in self.undone_keys and action == first_action:
            raise self.undone_error(action)
        if action != first_action:
            raise DirectorError(
                IDEMPOTENCY_CONFLICT, "this key was used for another request; use a new key"
            )
        return first

    def undone_error(self, action: str) -> DirectorError:
        """`request_undone`: the purchase this key paid for was given back since (P-2)."""
        return DirectorError(
            REQUEST_UNDONE,
            f"this key's {action} in {self.tid} was undone (its money went back); use a new key",
        )

    def undone(self, key: str) -> bool:
        """Whether the purchase `key` paid for was given back since (the player unregistered)."""
        return key in self.undone_keys

    def forget(self, key: str, decision: Decision) -> None:
        """A refused keyed request changed nothing: its key may be used again."""
        if self.keyed.get(key, (None, None))[1] is decision:
            del self.keyed[key]


#: Refusals a key's history cannot change: the ledger's funds check (the key paid nothing) and
#: a key the actor knows was used for another request.
FINAL = frozenset({errors.INSUFFICIENT_FUNDS, IDEMPOTENCY_CONFLICT})


def _find(engine: Any, tournament_id: str, key: str) -> KeyUse | None:
    """Blocking: what `key` paid for in the tournament (`purchase_keys.find`), one read."""
    return read(engine, partial(purchase_keys.find, tournament_id=tournament_id, key=key))
