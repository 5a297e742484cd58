"""The NATS subjects of a room's cluster (docs/design/cluster.md, "Routing over NATS").

Every subject starts `pokerroom.<cluster name>.`. A table id may hold a `.` (a tournament's
table is `<tournament_id>.<n>`), which NATS reads as a token separator, so in a subject a
table id's `.` is written `:` (table ids hold no `:`).
"""

from __future__ import annotations


def table_token(table_id: str) -> str:
    """A table id as one subject token."""
    return table_id.replace(".", ":")


class Subjects:
    """The subjects of one cluster, by what they carry."""

    def __init__(self, cluster_name: str = "room") -> None:
        self.prefix = f"pokerroom.{cluster_name}"

    def table_cmd(self, table_id: str) -> str:
        """Requests to the owner of a table (request/reply)."""
        return f"{self.prefix}.table.{table_token(table_id)}.cmd"

    def table_ev(self, table_id: str) -> str:
        """A table's broadcasts, with its sequence numbers."""
        return f"{self.prefix}.table.{table_token(table_id)}.ev"

    @property
    def all_table_ev(self) -> str:
        """Every table's broadcasts (a node delivers those of tables it does not own)."""
        return f"{self.prefix}.table.*.ev"

    def player(self, name: str) -> str:
        """Messages for one player only (C-15): only the node holding the session listens."""
        return f"{self.prefix}.player.{name}"

    def session(self, name: str) -> str:
        """ "`name` logged in on node N" (one session per player across the cluster)."""
        return f"{self.prefix}.session.{name}"

    @property
    def all_sessions(self) -> str:
        """Every player's log-in notices."""
        return f"{self.prefix}.session.*"

    @property
    def lobby(self) -> str:
        """Lobby lines of every node's tables."""
        return f"{self.prefix}.lobby"

    @property
    def mutes(self) -> str:
        """The bell: a node stored or lifted a chat mute (the others read the mutes again)."""
        return f"{self.prefix}.chat.mutes"

    @property
    def bans(self) -> str:
        """A ban or its lift took effect on a node: every other node enforces it too."""
        return f"{self.prefix}.admin.bans"

    def tourney_cmd(self, tournament_id: str) -> str:
        """Requests to the owner of a tournament (request/reply): its desk's requests and its
        tables' (observe, act, ...)."""
        return f"{self.prefix}.tourney.{table_token(tournament_id)}.cmd"

    @property
    def tourney_lobby(self) -> str:
        """Tournament lobby lines of every node's tournaments."""
        return f"{self.prefix}.tourneys"

    @property
    def tourney_lines_asked(self) -> str:
        """A node that just started asks every owner for its tournaments' lines."""
        return f"{self.prefix}.tourneys.ask"

    @property
    def fanout(self) -> str:
        """Public frames for players of several nodes (tournament tables, status, results)."""
        return f"{self.prefix}.fanout"
