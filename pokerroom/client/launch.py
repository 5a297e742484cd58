"""`pokerroom-client`'s entry point: one clear line, not a traceback, when Qt cannot load.

The command is installed with every wheel; Qt comes only with `pip install 'pokerroom[client]'`
(docs/CLIENT.md), and PySide6 needs a few system libraries (libEGL, libxkbcommon, fontconfig).
This module imports no Qt at module level, so it can say which is missing.
"""

from __future__ import annotations

import sys

#: sysexits EX_UNAVAILABLE: a library the command needs is not there.
EXIT_NO_QT = 69


def main(argv: list[str] | None = None) -> int:
    """Run the desktop client, or say in one line what to install and exit 69."""
    try:
        from pokerroom.client.app import main as run
    except ImportError as error:
        if error.name is not None and error.name.split(".")[0] in ("PySide6", "shiboken6"):
            hint = "pip install 'pokerroom[client]'"
        else:  # PySide6 is there but a system library it loads is not (libEGL.so.1 ...)
            hint = f"a system library Qt needs is missing ({error})"
        print(
            f"pokerroom-client: cannot start the desktop client: {hint} (docs/CLIENT.md)",
            file=sys.stderr,
        )
        return EXIT_NO_QT
    return run(argv)
