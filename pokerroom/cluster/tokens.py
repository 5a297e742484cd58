"""Resume tokens every node accepts: `cluster_tokens` in PostgreSQL (cluster mode).

Only a token's SHA-256 is stored, never the token. A player has one token at a time: issuing
one deletes their others. While its session is connected a token has no expiry; when the
session ends it works for `resume_minutes` more, by the database's clock. Redeeming deletes it
(single use) and returns its player if it had not expired. The hub calls the writes without
waiting (a login does not wait for the database); they run one after another, in order.
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

import sqlalchemy as sa
import structlog
from sqlalchemy.engine import Engine
from twisted.internet.defer import Deferred, succeed
from twisted.python.failure import Failure

from pokerroom.cluster.schema import cluster_tokens
from pokerroom.server.hub import Token

log = structlog.get_logger("pokerroom.cluster")


class Runner(Protocol):
    """Where the blocking database work runs (the ledger's log lane)."""

    def write_log(self, work: Any, /, *args: Any, **kwargs: Any) -> Deferred[Any]:
        """Run `work(engine, *args)` in a thread; its result."""
        ...


def token_hash(token: str) -> str:
    """What is stored of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _issue(engine: Engine, digest: str, player: str, moderator: bool, node: str) -> None:
    t = cluster_tokens
    with engine.begin() as conn:
        conn.execute(t.delete().where(t.c.player == player))
        conn.execute(
            t.insert().values(
                token_hash=digest, player=player, is_moderator=moderator, node=node, expires_at=None
            )
        )


def _end(engine: Engine, digest: str, seconds: float) -> None:
    t = cluster_tokens
    expiry = sa.func.clock_timestamp() + sa.func.make_interval(0, 0, 0, 0, 0, 0, seconds)
    with engine.begin() as conn:
        conn.execute(t.update().where(t.c.token_hash == digest).values(expires_at=expiry))


def _forget(engine: Engine, player: str) -> None:
    t = cluster_tokens
    with engine.begin() as conn:
        conn.execute(t.delete().where(t.c.player == player))


def _redeem(engine: Engine, digest: str) -> tuple[str, bool] | None:
    t = cluster_tokens
    live = sa.or_(t.c.expires_at.is_(None), t.c.expires_at > sa.func.clock_timestamp())
    with engine.begin() as conn:
        row = conn.execute(
            t.delete()
            .where(t.c.token_hash == digest)
            .returning(t.c.player, t.c.is_moderator, live.label("live"))
        ).first()
    if row is None or not row.live:
        return None
    return str(row.player), bool(row.is_moderator)


def purge(engine: Engine) -> int:
    """Delete the expired tokens; how many."""
    t = cluster_tokens
    with engine.begin() as conn:
        gone = conn.execute(t.delete().where(t.c.expires_at <= sa.func.clock_timestamp()))
    return int(gone.rowcount or 0)


class ClusterTokens:
    """The hub's `TokenStore` in cluster mode."""

    def __init__(self, runner: Runner, node: str) -> None:
        self.runner, self.node = runner, node
        self._chain: Deferred[Any] = succeed(None)

    def _then(self, work: Any, *args: Any) -> Deferred[Any]:
        """Run `work` after every earlier write; its result."""
        done: Deferred[Any] = Deferred()

        def run(_: object) -> Deferred[Any]:
            d = self.runner.write_log(work, *args)
            d.chainDeferred(done)
            return d.addErrback(lambda f: None)  # the chain goes on; `done` has the failure

        self._chain.addCallback(run)
        return done

    def _quietly(self, work: Any, *args: Any) -> None:
        def failed(failure: Failure) -> None:
            log.warning("token_write_failed", work=work.__name__, error=str(failure.value))

        self._then(work, *args).addErrback(failed)

    def issued(self, token: str, player: str, is_moderator: bool) -> None:
        """A new token of `player` (their older ones stop working)."""
        self._quietly(_issue, token_hash(token), player, is_moderator, self.node)

    def ended(self, token: str, seconds: float) -> None:
        """Its session ended: the token works for `seconds` more."""
        self._quietly(_end, token_hash(token), seconds)

    def forget(self, player: str) -> None:
        """The player's tokens stop working (logout, ban)."""
        self._quietly(_forget, player)

    def redeem(self, token: str) -> Deferred[Token | None]:
        """Use a token once; None if unknown, used or expired."""

        def found(row: tuple[str, bool] | None) -> Token | None:
            return None if row is None else Token(row[0], row[1], None)

        return self._then(_redeem, token_hash(token)).addCallback(found)
