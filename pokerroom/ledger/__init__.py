"""The shared double-entry ledger: every money movement in the room goes through here (P-2).

Synchronous core (call from the ledger thread pool, tests, the CLI):
    transfer, move, reverse, get_transfer, open_account, get_account,
    check_ledger, balance, statement
Twisted boundary: LedgerService (Deferreds, its own thread pool).

The errors and kinds come with the package (they import nothing heavy); every other name is
imported from its module on first use (PEP 562), so that importing one submodule
(`pokerroom.ledger.schema` for a staff command) does not pay for Alembic and Twisted.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from pokerroom.ledger.errors import (
    AlreadyReversed,
    Busy,
    CurrencyMismatch,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    InvalidCurrency,
    InvalidKey,
    InvalidKind,
    InvalidOwner,
    InvalidPostings,
    InvalidReference,
    LedgerError,
    SchemaNotAtHead,
    ServiceUnavailable,
    Unbalanced,
    UnknownAccount,
    UnknownTransfer,
)
from pokerroom.ledger.kinds import (
    AccountKind,
    AccountRef,
    TransferKind,
    external,
    house,
    wallet,
)

if TYPE_CHECKING:
    from pokerroom.ledger.accounts import Account, get_account, list_accounts, open_account
    from pokerroom.ledger.db import default_url, make_engine, resolve_url
    from pokerroom.ledger.migrate import ensure_at_head, open_ledger_engine, upgrade
    from pokerroom.ledger.reports import CheckReport, Statement, balance, check_ledger, statement
    from pokerroom.ledger.service import LedgerService, LedgerSettings
    from pokerroom.ledger.transfers import (
        Posting,
        Transfer,
        get_transfer,
        move,
        reverse,
        transfer,
    )

#: submodule -> the public names it gives this package on first use.
_EXPORTS = {
    "accounts": ("Account", "get_account", "list_accounts", "open_account"),
    "db": ("default_url", "make_engine", "resolve_url"),
    "migrate": ("ensure_at_head", "open_ledger_engine", "upgrade"),
    "reports": ("CheckReport", "Statement", "balance", "check_ledger", "statement"),
    "service": ("LedgerService", "LedgerSettings"),
    "transfers": ("Posting", "Transfer", "get_transfer", "move", "reverse", "transfer"),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [
    "Account",
    "AccountKind",
    "AccountRef",
    "AlreadyReversed",
    "Busy",
    "CheckReport",
    "CurrencyMismatch",
    "IdempotencyConflict",
    "InsufficientFunds",
    "InvalidAmount",
    "InvalidCurrency",
    "InvalidKey",
    "InvalidKind",
    "InvalidOwner",
    "InvalidPostings",
    "InvalidReference",
    "LedgerError",
    "LedgerService",
    "LedgerSettings",
    "Posting",
    "SchemaNotAtHead",
    "ServiceUnavailable",
    "Statement",
    "Transfer",
    "TransferKind",
    "Unbalanced",
    "UnknownAccount",
    "UnknownTransfer",
    "balance",
    "check_ledger",
    "default_url",
    "ensure_at_head",
    "external",
    "get_account",
    "get_transfer",
    "house",
    "list_accounts",
    "make_engine",
    "move",
    "open_account",
    "open_ledger_engine",
    "resolve_url",
    "reverse",
    "statement",
    "transfer",
    "upgrade",
    "wallet",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its submodule the first time it is asked for."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
