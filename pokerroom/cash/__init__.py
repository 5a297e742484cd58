"""Cash tables: one TableActor per table enforcing the cash rules C-1..C-15 (RULES.md).

The actor drives the pure engine (pokerroom.engine) with an injected clock, moves money only
through the ledger (pokerroom.ledger) and persists hands and seats through `store` (C-12).
"""

from pokerroom.cash.actor import TableActor
from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.hand_store import HandStore
from pokerroom.cash.policies import RoomPolicies
from pokerroom.table.views import TableListener

__all__ = ["CashTableConfig", "HandStore", "RoomPolicies", "TableActor", "TableListener"]
