"""The reference desktop client (`pokerroom-client`, PySide6): docs/CLIENT.md.

The server never imports this package (tests/test_client_imports.py). The protocol state lives
in plain classes (`framing`, `table_model`, `lobby_model`, `tournament_model`) testable without
Qt; `net` is the connection, `widgets` the windows.
"""
