"""An online poker room server: cash tables, tournaments and one shared ledger."""

__version__ = "0.1.0"
