"""Routing between real nodes (docs/design/cluster.md, "Routing over NATS"): two `pokerroom serve
--cluster --node` processes on one PostgreSQL and a nats-server of the test's own.

- Bots connected to node A open, sit and play at the tables node B owns (every request carried
  to B, every event back); hole cards reach their holder only (C-15): an observer on A sees the
  hands but no card, and no bot ever gets two players' cards.
- Logging in on node B closes the player's session on node A with `session_replaced`; the new
  session gets its tables back (C-14).
- nats-server restarts during play: the tables at B go on dealing, the bots on A play on once
  NATS is back, and the money is exact (ledger check; wallets + escrows + house = deposits).
"""

from __future__ import annotations

import random
import selectors
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.cluster.schema import cluster_tokens
from pokerroom.cluster.tokens import token_hash
from pokerroom.ledger import make_engine
from tests.cluster.natsproc import NatsServer, running_nats
from tests.cluster.nodes import BUY_IN, DEPOSIT, SEATS, TABLES, Cluster, wait_for
from tests.postgres import fresh_pg_schema
from tests.server.crowd import Bot
from tests.server.test_settle_kills import CashCrowd, check_money
from tests.serving import migrate

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]


@pytest.fixture
def nats() -> Iterator[NatsServer]:
    """A nats-server of this test's own, which it may restart."""
    with running_nats() as server:
        yield server


@pytest.fixture
def cluster(tmp_path: Path, nats: NatsServer) -> Iterator[Cluster]:
    """Nodes a and b on a fresh migrated schema, the tables split 2 and 2."""
    with fresh_pg_schema("cluster_routing") as url:
        migrate(url)
        engine = make_engine(url)
        found = Cluster(tmp_path, url, nats.url, engine)
        try:
            found.start("a")
            wait_for(lambda: found.owned() == {"a": TABLES}, 30, "a takes every table")
            found.start("b")
            wait_for(lambda: found.owned() == {"a": 2, "b": 2}, 30, "the tables split 2 and 2")
            yield found
        finally:
            found.stop_all()
            engine.dispose()


def seat_on_the_other_node(c: Cluster, tables: list[str], node: str) -> CashCrowd:
    """SEATS bots at each of `tables`, every one connected to `node` (not the owner)."""
    crowd = c.crowd = CashCrowd(c.ports[node], random.Random(11))
    for table in tables:
        c.seated[table] = []
        for s in range(SEATS):
            name = f"{table}x{s}"
            bot = crowd.connect(name, new=True)
            crowd.ok(bot, "deposit", amount=DEPOSIT)
            c.deposits += DEPOSIT
            seated = crowd.ok(bot, "sit", table_id=table, buy_in=BUY_IN)
            assert seated["stack"] == BUY_IN
            c.seated[table].append(name)
    return crowd


def settled(c: Cluster, tables: list[str]) -> int:
    """Hands settled at `tables` so far."""
    return sum(1 for r in c.hands(tables).values() if r.status == "settled")


def hole_cards(bot: Bot) -> dict[str, list[str]]:
    """hand id -> the cards `bot` was dealt; fails if it got two sets for one hand."""
    found: dict[str, list[str]] = {}
    for frame in bot.frames:
        if frame.get("type") == "hole_cards":
            assert frame["hand_id"] not in found, (bot.name, frame)
            found[frame["hand_id"]] = frame["cards"]
    return found


def test_bots_on_a_play_at_b_and_only_holders_see_cards(cluster: Cluster) -> None:
    c = cluster
    far = c.tables_of("b")
    crowd = seat_on_the_other_node(c, far, "a")
    watcher = crowd.connect("watcher", new=True)
    snapshot = crowd.ok(watcher, "observe", table_id=far[0])["snapshot"]
    assert snapshot["table_id"] == far[0]
    before = settled(c, far)
    crowd.pump_until(lambda: settled(c, far) >= before + 6, 90)
    assert crowd.errors == []
    at_first = [crowd.bots[name] for name in c.seated[far[0]]]
    dealt = [hole_cards(bot) for bot in at_first]
    assert all(dealt), "every seated bot got its own cards"
    for hand in set().union(*dealt):  # no card twice at one hand: each got only its own
        cards = [card for got in dealt for card in got.get(hand, [])]
        assert len(cards) == len(set(cards)), hand
    kinds = {f.get("type") for f in watcher.frames}
    assert "hole_cards" not in kinds and {"hand_started", "hand_ended"} <= kinds, kinds
    log_a = c.log("a")
    assert any(line.get("event") == "nats_connected" for line in log_a)
    check_money_later(c, crowd)


def check_money_later(c: Cluster, crowd: CashCrowd) -> None:
    """Stand every bot up (through node a), wait for the cash-outs, check the money."""
    for table, names in c.seated.items():
        for name in names:
            crowd.send(crowd.bots[name], "leave", table_id=table)
    crowd.pump_until(lambda: not any(escrowed(c).values()), 120)
    check_money(c.engine, c.deposits)


def escrowed(c: Cluster) -> dict[str, int]:
    """Seat escrows still holding chips."""
    from tests.server.test_settle_kills import escrows

    return {k: v for k, v in escrows(c.engine).items() if v}


def test_logging_in_on_b_replaces_the_session_on_a(cluster: Cluster) -> None:
    c = cluster
    far = c.tables_of("b")
    crowd = seat_on_the_other_node(c, far[:1], "a")
    crowd.pump_until(lambda: settled(c, far[:1]) >= 1, 60)
    name = c.seated[far[0]][0]
    old = crowd.bots[name]
    other = CashCrowd(c.ports["b"], random.Random(5))
    new = other.connect(name, new=False)  # its `ok` came: logged in on b
    crowd.pump_until(lambda: any(f.get("type") == "goodbye" for f in old.frames), 20)
    goodbye = [f for f in old.frames if f.get("type") == "goodbye"]
    assert [g["code"] for g in goodbye] == ["session_replaced"]
    # C-14: the new session gets its table back, from b, where the table is
    other.pump_until(lambda: any(f.get("type") == "table_snapshot" for f in new.frames), 20)
    other.drop_all()


def test_a_nats_restart_during_play_leaves_tables_dealing_and_money_exact(
    cluster: Cluster, nats: NatsServer
) -> None:
    c = cluster
    far = c.tables_of("b")
    crowd = seat_on_the_other_node(c, far, "a")
    crowd.pump_until(lambda: settled(c, far) >= 4, 90)
    nats.stop()
    crowd.pump(2.0)  # requests to b fail meanwhile: cluster_unavailable, never a crash
    before = settled(c, far)
    nats.start()
    crowd.pump_until(lambda: settled(c, far) >= before + 2, 120)
    back = len(crowd.errors)  # NATS is back and the tables deal: from here on, no refusal
    crowd.pump_until(lambda: settled(c, far) >= before + 8, 120)
    assert crowd.errors[back:] == []
    unexpected = [e for e in crowd.errors if e.get("code") != "cluster_unavailable"]
    assert unexpected == [], unexpected[:3]
    reconnected = [line for line in c.log("a") if line.get("event") == "nats_reconnected"]
    assert reconnected, "node a reconnected to NATS"
    check_money_later(c, crowd)


def test_when_the_owner_dies_the_players_on_a_play_on_at_its_tables_without_reconnecting(
    cluster: Cluster,
) -> None:
    c = cluster
    far = c.tables_of("b")
    crowd = seat_on_the_other_node(c, far, "a")
    crowd.pump_until(lambda: settled(c, far) >= 3, 90)
    c.procs["b"].send_signal(signal.SIGKILL)
    c.procs["b"].wait(timeout=10)
    crowd.pump_until(lambda: set(c.tables_of("a")) >= set(far), 30)  # a takes b's tables
    before = settled(c, far)
    crowd.pump_until(lambda: settled(c, far) >= before + 6, 90)  # the same connections play on
    unexpected = [e for e in crowd.errors if e.get("code") != "cluster_unavailable"]
    assert unexpected == [], unexpected[:3]
    assert all(bot.sock is not None for bot in crowd.bots.values())
    del c.procs["b"]
    check_money_later(c, crowd)


def hello(crowd: CashCrowd, player: str, kind: str, **fields: Any) -> tuple[Bot, dict[str, Any]]:
    """A new connection for `player`: hello, then `kind` (login, resume); the bot and the
    answer."""
    bot = Bot(player)
    crowd.bots[player] = bot
    sock = socket.create_connection(("127.0.0.1", crowd.port), timeout=30)
    sock.setblocking(False)
    bot.sock = sock
    crowd.selector.register(sock, selectors.EVENT_READ, bot)
    crowd.ok(bot, "hello", version=1, client="desktop")
    return bot, crowd.call(bot, kind, **fields)


def token_stored(c: Cluster, token: str) -> bool:
    """Whether the token's hash is in `cluster_tokens`."""
    t = cluster_tokens
    with c.engine.connect() as conn:
        found = conn.execute(sa.select(t.c.player).where(t.c.token_hash == token_hash(token)))
        return found.first() is not None


def test_a_token_of_node_a_resumes_on_node_b_with_the_tables_back(cluster: Cluster) -> None:
    c = cluster
    far = c.tables_of("b")
    crowd = seat_on_the_other_node(c, far[:1], "a")
    name = c.seated[far[0]][0]
    crowd.drop_all()  # everyone logs in again, to learn their token
    bot, answer = hello(crowd, name, "login", name=name, password="password 1")
    token = answer["result"]["token"]
    assert answer["result"]["tables"] == [far[0]]  # a knows the table b runs
    crowd.pump_until(lambda: settled(c, far[:1]) >= 1, 60)
    # the login does not wait for the token's row (written after it, in order): wait for it
    crowd.pump_until(lambda: token_stored(c, token), 20)
    assert bot.sock is not None
    crowd.selector.unregister(bot.sock)
    bot.sock.close()  # dropped, seat kept (C-14)
    elsewhere = CashCrowd(c.ports["b"], random.Random(3))
    resumed, answer = hello(elsewhere, name, "resume", token=token)
    assert answer["type"] == "ok" and answer["result"]["player_id"] == name
    assert answer["result"]["tables"] == [far[0]]
    elsewhere.pump_until(lambda: any(f["type"] == "table_snapshot" for f in resumed.frames), 20)
    _again, refused = hello(elsewhere, name, "resume", token=token)
    assert (refused["type"], refused["code"]) == ("error", "bad_token")  # once only
    elsewhere.drop_all()
