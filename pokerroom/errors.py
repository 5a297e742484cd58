"""The one base of every refusal in the room: a stable `code` and a readable `message` (P-1).

Pure: the engine and the tournament director import it too.
"""

from __future__ import annotations


class CodedError(Exception):
    """A refused request; `code` is stable for clients and logs, `message` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
