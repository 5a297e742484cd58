"""Resume tokens in PostgreSQL (cluster mode): any node redeems them, once, within their time;
only the hash is stored."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.task import Clock

from pokerroom.cluster.schema import cluster_tokens
from pokerroom.cluster.tokens import ClusterTokens, purge, token_hash
from pokerroom.server.hub import Hub, Token


class Now:
    """The ledger's log lane, run at once on the test's thread."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def write_log(self, work: Any, /, *args: Any, **kwargs: Any) -> Deferred[Any]:
        return maybeDeferred(work, self.engine, *args, **kwargs)


def redeemed(d: Deferred[Token | None]) -> Token | None:
    found: list[Token | None] = []
    d.addCallback(found.append)
    assert len(found) == 1
    return found[0]


class Conn:
    def send(self, message: Any) -> None: ...
    def send_frame(self, frame: bytes) -> None: ...
    def replaced(self) -> None: ...
    def close(self, code: str, message: str) -> None: ...


def hub_on(pg: Engine, node: str) -> Hub:
    hub = Hub(Clock(), resume_seconds=60)
    hub.token_store = ClusterTokens(Now(pg), node)
    return hub


def test_a_token_of_node_a_resumes_once_on_node_b_and_only_its_hash_is_kept(pg: Engine) -> None:
    a, b = hub_on(pg, "a"), hub_on(pg, "b")
    session = Conn()
    token = a.attach(session, "ann", True)
    with pg.connect() as conn:
        rows = conn.execute(sa.select(cluster_tokens)).all()
    assert [(r.token_hash, r.player, r.is_moderator, r.node) for r in rows] == [
        (token_hash(token), "ann", True, "a")
    ]
    assert token not in repr(rows)
    a.detach(session, "ann")  # dropped: the token works for resume_seconds
    record = redeemed(b.redeem_later(token))
    assert record is not None and (record.player, record.is_moderator) == ("ann", True)
    assert redeemed(b.redeem_later(token)) is None  # single use
    assert redeemed(a.redeem_later(token)) is None


def test_a_new_login_or_a_logout_ends_the_older_tokens(pg: Engine) -> None:
    a, b = hub_on(pg, "a"), hub_on(pg, "b")
    first = a.attach(Conn(), "bob", False)
    second = b.attach(Conn(), "bob", False)  # logged in again on B
    assert redeemed(a.redeem_later(first)) is None
    session = Conn()
    third = a.attach(session, "bob", False)
    assert third != second
    a.detach(session, "bob", logout=True)
    assert redeemed(b.redeem_later(third)) is None


def test_an_expired_token_is_refused_and_purged(pg: Engine) -> None:
    a = hub_on(pg, "a")
    a.resume_seconds = 0  # ends the moment its session does, by the database clock
    session = Conn()
    token = a.attach(session, "cat", False)
    a.detach(session, "cat")
    assert redeemed(hub_on(pg, "b").redeem_later(token)) is None  # expired, though still kept
    other = Conn()
    a.attach(other, "cat", False)
    a.detach(other, "cat")
    assert purge(pg) == 1
    with pg.connect() as conn:
        left = conn.execute(sa.select(cluster_tokens).where(cluster_tokens.c.player == "cat"))
        assert left.all() == []
