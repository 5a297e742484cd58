"""The server's own tables on PostgreSQL too (ARCH 11): accounts, chat lines, mutes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from twisted.internet.task import Clock

from pokerroom.chat import ChatRules, ChatService, chat_log
from pokerroom.ledger import make_engine, upgrade
from pokerroom.protocol import errors
from tests.ledger.conftest import QueueReactor
from tests.server.conftest import CountingLedger
from tests.server.harness import Room

pytestmark = pytest.mark.postgresql


@pytest.fixture
def pg_ledger(db_url_pg: str, reactor: QueueReactor) -> Iterator[CountingLedger]:
    """A started ledger service on a fresh PostgreSQL schema at head (skipped without one)."""
    engine = make_engine(db_url_pg)
    upgrade(engine)
    service = CountingLedger(reactor, engine)
    service.startService()
    try:
        yield service
    finally:
        service.stopService()


def test_accounts_and_chat_on_postgresql(
    pg_ledger: CountingLedger, reactor: QueueReactor, clock: Clock
) -> None:
    """Register, log in, deposit, chat log and a stored mute, all on PostgreSQL."""
    room = Room(reactor, clock, pg_ledger)
    try:
        alice = room.client()
        alice.login("alice")
        assert alice.ok("deposit", amount=500, key="a")["balance"] == 500
        other = room.client()
        other.ok("hello", version=1, client="web")
        assert other.error("login", name="alice", password="nope nope") == errors.BAD_CREDENTIALS
        chat = ChatService(clock, pg_ledger, ChatRules())
        reactor.wait(chat.post("alice", "t1", "hello", in_hand=False, hand_running=False))
        reactor.wait(chat.mute("alice", by="mod", minutes=5))
        reactor.wait(chat.flush())
        again = ChatService(clock, pg_ledger, ChatRules())
        reactor.wait(again.load())
        assert again.mute_of("alice", "t1") is not None
        assert [line["text"] for line in chat_log(pg_ledger.engine, "t1")] == ["hello"]
    finally:
        room.stop()
