"""Casino tables (docs/CASINO_RULES.md): the pure core in `core/`, settings in `settings.py`."""
