"""The shared double-entry ledger: every money movement in the room goes through here (P-2).

Synchronous core (call from the ledger thread pool, tests, the CLI):
    transfer, move, reverse, get_transfer, open_account, get_account,
    check_ledger, balance, statement
Twisted boundary: LedgerService (Deferreds, its own thread pool).
"""

from __future__ import annotations

from pokerroom.ledger.accounts import Account, get_account, list_accounts, open_account
from pokerroom.ledger.db import default_url, make_engine, resolve_url
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
from pokerroom.ledger.kinds import AccountKind, AccountRef, TransferKind, external, house, wallet
from pokerroom.ledger.migrate import ensure_at_head, open_ledger_engine, upgrade
from pokerroom.ledger.reports import CheckReport, Statement, balance, check_ledger, statement
from pokerroom.ledger.service import LedgerService, LedgerSettings
from pokerroom.ledger.transfers import Posting, Transfer, get_transfer, move, reverse, transfer

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
