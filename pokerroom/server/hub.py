"""The hub: which session speaks for which player, resume tokens, and table delivery.

The hub implements the contract's `TableListener` (docs/design/room.md): table actors call
`send(player_id, message)` and `broadcast(table_id, message, exclude)`; the hub delivers to
the player's live session, if any (a dropped player keeps the seat, C-14, and simply
receives nothing until they resume).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import structlog
from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import IReactorTime

from pokerroom.protocol.events import Frame, frame_type
from pokerroom.protocol.framing import encode_frame

log = structlog.get_logger("pokerroom.hub")


class Outbound(Protocol):
    """What the hub needs from a session."""

    def send(self, message: Frame) -> None:
        """Queue one message for the client."""

    def send_frame(self, frame: bytes) -> None:
        """Queue one already encoded frame for the client."""

    def replaced(self) -> None:
        """Another connection logged in as the same player: say goodbye and close."""

    def close(self, code: str, message: str) -> None:
        """Send `goodbye` with `code` and close the connection."""


class Relay(Protocol):
    """Cluster mode: what the hub tells the other nodes (docs/design/cluster.md)."""

    def attached(self, player: str) -> None:
        """`player` logged in here: their older session on another node must close."""

    def detached(self, player: str) -> None:
        """`player`'s session here ended."""

    def send(self, player: str, frame: bytes) -> None:
        """A message for a player not connected here (they may be on another node)."""

    def broadcast(self, table_id: str, frame: bytes, exclude: Iterable[str]) -> None:
        """A table's broadcast, for its audience on the other nodes."""

    def send_all(self, players: list[str], frame: bytes) -> None:
        """One public message for several players not connected here (on other nodes)."""


class TokenStore(Protocol):
    """Cluster mode: resume tokens every node accepts (pokerroom.cluster.tokens)."""

    def issued(self, token: str, player: str, is_moderator: bool) -> None:
        """A new token of `player` (their older ones stop working)."""

    def ended(self, token: str, seconds: float) -> None:
        """Its session ended: the token works for `seconds` more."""

    def forget(self, player: str) -> None:
        """The player's tokens stop working (logout, ban)."""

    def redeem(self, token: str) -> Deferred[Token | None]:
        """Use a token once; None if unknown, used or expired."""


@dataclass(slots=True)
class Token:
    """A resume token: single use; expires `resume_seconds` after its session ends."""

    player: str
    is_moderator: bool
    expires_at: float | None  # None while its session is connected


class Hub:
    """Sessions by player, resume tokens, and the TableListener of every table actor."""

    def __init__(self, clock: IReactorTime, resume_seconds: float = 1800.0) -> None:
        self.clock = clock
        self.resume_seconds = resume_seconds
        self._sessions: dict[str, Outbound] = {}
        self._tokens: dict[str, Token] = {}
        self._token_of: dict[str, str] = {}  # player -> current token
        #: Who gets a table's broadcasts: the table's `audience` (set by the lobby).
        self.audience_of: Callable[[str], Iterable[str]] = lambda table_id: ()
        #: Called with (table_id, message) for every broadcast: the lobby's summaries.
        self.on_broadcast: Callable[[str, Frame], None] | None = None
        #: Cluster mode: the other nodes' side of sessions and tables, and the shared tokens.
        self.relay: Relay | None = None
        self.token_store: TokenStore | None = None
        self.attached_at: dict[str, float] = {}  # player -> when their session here logged in

    # -- sessions ---------------------------------------------------------------------------
    def session_of(self, player: str) -> Outbound | None:
        """The live session of `player`, if connected."""
        return self._sessions.get(player)

    @property
    def connected(self) -> int:
        """How many players are logged in."""
        return len(self._sessions)

    def attach(self, session: Outbound, player: str, is_moderator: bool) -> str:
        """Make `session` the player's one session; close any older one; return a new token."""
        old = self._sessions.get(player)
        self._sessions[player] = session
        if old is not None and old is not session:
            log.info("session_replaced", player_id=player)
            old.replaced()
        self._forget_token(player, shared=False)  # the store's `issued` replaces its tokens
        token = secrets.token_urlsafe(32)
        self._tokens[token] = Token(player, is_moderator, None)
        self._token_of[player] = token
        self.attached_at[player] = self.clock.seconds()
        if self.token_store is not None:
            self.token_store.issued(token, player, is_moderator)
        if self.relay is not None:
            self.relay.attached(player)
        return token

    def evict(self, player: str) -> bool:
        """Cluster mode: the player logged in on another node; close their session here with
        `session_replaced` (their token here is gone: the new session has its own)."""
        old = self._sessions.pop(player, None)
        self.attached_at.pop(player, None)
        if old is None:
            return False
        old_token = self._token_of.pop(player, None)
        if old_token is not None:
            self._tokens.pop(old_token, None)
        log.info("session_replaced", player_id=player, elsewhere=True)
        if self.relay is not None:
            self.relay.detached(player)
        old.replaced()
        return True

    def detach(self, session: Outbound, player: str, *, logout: bool = False) -> bool:
        """The session ended; True if it was the player's current one (the player dropped)."""
        if self._sessions.get(player) is not session:
            return False
        del self._sessions[player]
        self.attached_at.pop(player, None)
        if self.relay is not None:
            self.relay.detached(player)
        if logout:
            self._forget_token(player)
        else:
            current = self._token_of.get(player, "")
            token = self._tokens.get(current)
            if token is not None:
                token.expires_at = self.clock.seconds() + self.resume_seconds
                if self.token_store is not None:
                    self.token_store.ended(current, self.resume_seconds)
        return True

    def redeem(self, token: str) -> Token | None:
        """Use a resume token once; None if unknown, used or expired."""
        record = self._tokens.pop(token, None)
        if record is None:
            return None
        self._token_of.pop(record.player, None)
        if record.expires_at is not None and self.clock.seconds() >= record.expires_at:
            return None
        return record

    def redeem_later(self, token: str) -> Deferred[Token | None]:
        """`redeem`, or in cluster mode the shared store's (a token of any node works)."""
        if self.token_store is None:
            return succeed(self.redeem(token))
        local = self._tokens.get(token)
        if local is not None:  # issued here: forget it here too
            self._tokens.pop(token)
            if self._token_of.get(local.player) == token:
                del self._token_of[local.player]
        return self.token_store.redeem(token)

    def revoke(self, player: str) -> None:
        """Forget the player's resume token: a banned player cannot resume (docs/ADMIN.md)."""
        self._forget_token(player)

    def _forget_token(self, player: str, shared: bool = True) -> None:
        old = self._token_of.pop(player, None)
        if old is not None:
            self._tokens.pop(old, None)
        if shared and self.token_store is not None:
            self.token_store.forget(player)

    def purge_tokens(self) -> int:
        """Drop expired tokens; returns how many."""
        now = self.clock.seconds()
        dead = [
            t for t, r in self._tokens.items() if r.expires_at is not None and now >= r.expires_at
        ]
        for token in dead:
            record = self._tokens.pop(token)
            if self._token_of.get(record.player) == token:
                del self._token_of[record.player]
        return len(dead)

    # -- TableListener ------------------------------------------------------------------------
    def send(self, player_id: str, message: Frame) -> None:
        """Deliver one message to one player, if connected; never raises into the table."""
        session = self._sessions.get(player_id)
        if session is None:
            if self.relay is not None:  # cluster mode: the player may be on another node
                try:
                    self.relay.send(player_id, encode_frame(message))
                except (TypeError, ValueError) as exc:
                    log.error("undeliverable", player_id=player_id, error=str(exc))
            return
        try:
            session.send(message)
        except (TypeError, ValueError) as exc:  # not JSON-able or larger than a frame: a bug
            log.error(
                "undeliverable", player_id=player_id, type=frame_type(message), error=str(exc)
            )

    def broadcast(self, table_id: str, message: Frame, exclude: Iterable[str] = ()) -> None:
        """Deliver a public table event to the table's audience (observers and seated)."""
        if self.on_broadcast is not None:
            self.on_broadcast(table_id, message)
        skip = set(exclude) if exclude else ()  # a hand's events exclude no one
        sessions = self._sessions
        frame: bytes | None = None
        if self.relay is not None:  # cluster mode: the audience on the other nodes too
            try:
                frame = encode_frame(message)
            except (TypeError, ValueError) as exc:
                log.error("undeliverable", table_id=table_id, error=str(exc))
                return
            self.relay.broadcast(table_id, frame, skip)
        for player in tuple(self.audience_of(table_id)):
            session = sessions.get(player)
            if session is None or player in skip:
                continue
            if frame is None:
                try:
                    frame = encode_frame(message)
                except (TypeError, ValueError) as exc:  # a bug in the sender: log, drop
                    log.error(
                        "undeliverable", table_id=table_id, type=frame_type(message), error=str(exc)
                    )
                    return
            session.send_frame(frame)

    def close_all(self, code: str, message: str) -> None:
        """Say goodbye to every logged-in client and close them (server shutdown)."""
        for session in tuple(self._sessions.values()):
            session.close(code, message)

    def deliver(self, players: Iterable[str], frame: bytes) -> int:
        """Cluster mode: an encoded frame from another node, to the players connected here;
        how many got it (never relayed again)."""
        sent = 0
        for player in players:
            session = self._sessions.get(player)
            if session is not None:
                session.send_frame(frame)
                sent += 1
        return sent

    def send_all(self, players: Iterable[str], message: Frame) -> None:
        """Deliver one message to several players (lobby updates), encoded once; in cluster
        mode those not connected here get it through the other nodes (a tournament's)."""
        frame: bytes | None = None
        elsewhere: list[str] = []
        for player in tuple(players):
            session = self._sessions.get(player)
            if session is None:
                elsewhere.append(player)
                continue
            if frame is None:
                try:
                    frame = encode_frame(message)
                except (TypeError, ValueError) as exc:  # a bug in the sender: log, drop
                    log.error("undeliverable", type=frame_type(message), error=str(exc))
                    return
            session.send_frame(frame)
        if elsewhere and self.relay is not None:
            try:
                self.relay.send_all(elsewhere, frame or encode_frame(message))
            except (TypeError, ValueError) as exc:
                log.error("undeliverable", type=frame_type(message), error=str(exc))
