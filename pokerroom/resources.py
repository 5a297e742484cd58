"""Where the files the package ships live: default config, structures, schedule, migrations.

They are package data (pyproject.toml maps the checkout's `config/` to `pokerroom.defaults` and
`migrations/` to `pokerroom.migrations`), so the same paths work in a checkout, an editable
install and a built wheel installed anywhere.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def _folder(package: str) -> Path:
    """The folder of a package that ships data (always a real folder: wheels are unpacked)."""
    found = files(package)
    if not isinstance(found, Path):  # a zipped install: not supported
        raise RuntimeError(f"{package} is not installed as a folder")
    return found


def defaults_dir() -> Path:
    """The shipped default configuration (`config/` of the checkout)."""
    return _folder("pokerroom.defaults")


def default_config() -> Path:
    """The shipped `room.toml`."""
    return defaults_dir() / "room.toml"


def structures_dir() -> Path:
    """The shipped blind-structure templates (`config/tournaments/*.toml`)."""
    return defaults_dir() / "tournaments"


def default_schedule() -> Path:
    """The shipped tournament schedule."""
    return structures_dir() / "schedule" / "schedule.toml"


def migrations_dir() -> Path:
    """The Alembic migrations (`migrations/` of the checkout)."""
    return _folder("pokerroom.migrations")
