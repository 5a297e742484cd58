"""The ledger's domain errors: each has a stable `code` that clients and logs can rely on (P-1)."""

from __future__ import annotations

from pokerroom.errors import CodedError


class LedgerError(CodedError):
    """Base of every ledger error; each subclass names its stable `code`."""

    code = "ledger_error"

    def __init__(self, message: str) -> None:
        super().__init__(type(self).code, message)


class InvalidAmount(LedgerError):
    """An amount is not an `int`, is zero, is negative where it must not be, or is too large."""

    code = "invalid_amount"


class Unbalanced(LedgerError):
    """The postings of a transfer do not sum to zero (P-2)."""

    code = "unbalanced"


class InvalidPostings(LedgerError):
    """A transfer has fewer than two postings, or names the same account twice."""

    code = "invalid_postings"


class CurrencyMismatch(LedgerError):
    """An account's currency differs from the transfer's currency."""

    code = "currency_mismatch"


class InvalidCurrency(LedgerError):
    """A currency code is not of the form `USD`, `EUR`, ... (upper case, 2 to 8 characters)."""

    code = "invalid_currency"


class InvalidKind(LedgerError):
    """An account kind or a transfer kind is not one the ledger knows."""

    code = "invalid_kind"


class InvalidOwner(LedgerError):
    """An account owner is empty or too long."""

    code = "invalid_owner"


class InvalidKey(LedgerError):
    """An idempotency key is empty, not a string, or too long."""

    code = "invalid_key"


class InvalidReference(LedgerError):
    """A reference or memo is not a string or is too long."""

    code = "invalid_reference"


class UnknownAccount(LedgerError):
    """No account has this id or identifier."""

    code = "unknown_account"


class UnknownTransfer(LedgerError):
    """No transfer has this id."""

    code = "unknown_transfer"


class InsufficientFunds(LedgerError):
    """The transfer would take a non-external account below zero."""

    code = "insufficient_funds"

    def __init__(self, message: str, account: str = "", balance: int = 0, needed: int = 0) -> None:
        super().__init__(message)
        self.account = account
        self.balance = balance
        self.needed = needed


class IdempotencyConflict(LedgerError):
    """The idempotency key was already used for a transfer with different content (P-2)."""

    code = "idempotency_conflict"


class AlreadyReversed(LedgerError):
    """The transfer was already reversed by another correction."""

    code = "already_reversed"


class SchemaNotAtHead(LedgerError):
    """The database is not at the newest migration; the message names the command to run."""

    code = "schema_not_at_head"


class Busy(LedgerError):
    """A bounded queue of the ledger service is full: try again shortly (load shedding)."""

    code = "server_busy"


class ServiceUnavailable(LedgerError):
    """The database did not answer before the work's deadline (an outage): try again later."""

    code = "service_unavailable"
