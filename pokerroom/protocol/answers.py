"""What a request handler answers, shared by the lobby (pokerroom.server.lobby), the
tournament desk (tournaments.desk.desk) and the session that sends it (pokerroom.protocol.session).

It lives below all three, so that none of them imports another for a type.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from twisted.internet.defer import Deferred

from pokerroom.protocol.events import WireObject

#: The `ok` result of a request: a typed result (pokerroom.protocol.results), or a table
#: actor's dict while the tables move to typed results.
Result: TypeAlias = dict[str, Any] | WireObject
#: What a request handler returns: the `ok` result at once, or a Deferred that fires with it.
Answer: TypeAlias = Result | Deferred[Result]

__all__ = ["Answer", "Result"]
