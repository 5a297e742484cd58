"""A node whose link to NATS silently discards (docs/design/cluster.md, "Failure cases"): node b
reaches nats-server only through a loopback proxy in this test; the proxy turns to a black hole
(connections kept open, every byte dropped both ways, no RST, no FIN) during play, then forwards
again.

- b notices on its own (unanswered PINGs, `bus.PING_SECONDS` / `MAX_OUTSTANDING_PINGS`), logs
  `nats_disconnected`, and reconnects once the proxy forwards again (`nats_reconnected`).
- Meanwhile b keeps its leases (PostgreSQL, not NATS) and its own players play on at its tables;
  a cross-node request from b (observing a table of a) fails with `cluster_unavailable`.
- After: the same request works, every table deals, nothing doubled; the ledger check passes and
  wallets + escrows + house equal the deposits.
"""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pokerroom.ledger import make_engine
from tests.cluster.nodes import TABLES, Cluster, wait_for
from tests.cluster.test_failover import ledger_check, settled_after
from tests.postgres import fresh_pg_schema
from tests.server.test_settle_kills import check_money
from tests.serving import migrate

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]


class BlackHoleProxy:
    """A TCP proxy on a free loopback port to `upstream`; `black_hole()` makes every connection
    open now, and every one accepted until `restore()`, drop all bytes both ways for good."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.holed = False
        self.lock = threading.Lock()
        self.links: list[dict[str, object]] = []  # {"socks": [...], "holed": bool}
        self.stopping = False
        self.dropped = 0  # bytes discarded
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        """Where the node connects."""
        return f"nats://127.0.0.1:{self.port}"

    def black_hole(self) -> None:
        """Drop everything, on the open connections too (they never forward again)."""
        with self.lock:
            self.holed = True
            for link in self.links:
                link["holed"] = True

    def restore(self) -> None:
        """New connections forward again."""
        with self.lock:
            self.holed = False

    def close(self) -> None:
        """Stop accepting; close every connection."""
        self.stopping = True
        self.listener.close()
        with self.lock:
            for link in self.links:
                for sock in link["socks"]:  # type: ignore[attr-defined]
                    sock.close()

    def _accept(self) -> None:
        while not self.stopping:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                holed = self.holed
            socks = [client]
            if not holed:
                socks.append(socket.create_connection(self.upstream))
            link: dict[str, object] = {"socks": socks, "holed": holed}
            with self.lock:
                self.links.append(link)
            threading.Thread(target=self._pump, args=(link,), daemon=True).start()

    def _pump(self, link: dict[str, object]) -> None:
        socks: list[socket.socket] = link["socks"]  # type: ignore[assignment]
        while not self.stopping:
            try:
                ready, _, _ = select.select(socks, [], [], 0.2)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:  # one side closed: close both (as a proxy does)
                        for s in socks:
                            s.close()
                        return
                    if link["holed"] or len(socks) == 1:
                        self.dropped += len(data)
                        continue
                    other = socks[1] if sock is socks[0] else socks[0]
                    other.sendall(data)
            except OSError:
                return


@pytest.fixture
def cluster(tmp_path: Path, nats_url: str) -> Iterator[tuple[Cluster, BlackHoleProxy]]:
    """Node a on nats-server directly, node b through the proxy; tables 2 and 2, bots seated."""
    host, port = nats_url.removeprefix("nats://").split(":")
    proxy = BlackHoleProxy((host, int(port)))
    with fresh_pg_schema("cluster_blackhole") as url:
        migrate(url)
        c = Cluster(tmp_path, url, nats_url, make_engine(url))
        try:
            c.start("a")
            wait_for(lambda: c.owned() == {"a": TABLES}, 20, "a takes every table")
            c.nats = proxy.url
            c.start("b")
            c.nats = nats_url
            wait_for(lambda: c.owned() == {"a": 2, "b": 2}, 20, "the tables split 2 and 2")
            c.seat_bots()
            yield c, proxy
        finally:
            c.stop_all()
            c.engine.dispose()
            proxy.close()


def events(c: Cluster, node: str, name: str) -> int:
    """How many `name` events node `node` has logged."""
    return sum(1 for e in c.log(node) if e.get("event") == name)


def test_a_node_cut_off_by_a_silent_black_hole_plays_on_and_comes_back(
    cluster: tuple[Cluster, BlackHoleProxy],
) -> None:
    c, proxy = cluster
    crowd = c.crowd
    assert crowd is not None
    a_tables, b_tables = c.tables_of("a"), c.tables_of("b")
    crowd.port = c.ports["b"]
    asker = crowd.connect("asker", new=True)  # on b, asks about a table of a
    assert crowd.call(asker, "observe", table_id=a_tables[0])["type"] == "ok"
    crowd.ok(asker, "unobserve", table_id=a_tables[0])
    crowd.pump(1.5)
    held = {t: c.owners()[t] for t in b_tables}
    epochs = {lease["resource"]: lease["epoch"] for lease in c.status()["leases"]}
    assert events(c, "b", "nats_disconnected") == 0

    proxy.black_hole()
    last = c.last_numbers()
    answer = crowd.call(asker, "observe", table_id=a_tables[1], limit=20)  # times out or fails
    assert answer["type"] == "error" and answer["code"] == "cluster_unavailable", answer
    # b notices the silence by its PINGs (a default nats-py client would wait about 6 min)
    crowd.pump_until(lambda: events(c, "b", "nats_disconnected") > 0, limit=15)
    answer = crowd.call(asker, "observe", table_id=a_tables[0], limit=20)
    assert answer["type"] == "error" and answer["code"] == "cluster_unavailable", answer
    # b's own players play on at b's tables, b keeps its leases; a's tables play on too
    crowd.pump_until(lambda: all(settled_after(c, b_tables, last).values()), limit=30)
    crowd.pump_until(lambda: all(settled_after(c, a_tables, last).values()), limit=30)
    assert {t: c.owners()[t] for t in b_tables} == held
    assert events(c, "b", "nats_reconnected") == 0  # still cut off: nothing came through
    assert proxy.dropped > 0

    proxy.restore()
    crowd.pump_until(lambda: events(c, "b", "nats_reconnected") > 0, limit=20)
    assert crowd.call(asker, "observe", table_id=a_tables[1], limit=20)["type"] == "ok"
    last = c.last_numbers()
    crowd.pump_until(lambda: all(settled_after(c, a_tables + b_tables, last).values()), limit=30)
    after = {lease["resource"]: lease["epoch"] for lease in c.status()["leases"]}
    assert after == epochs  # no lease changed hands at any time
    lost = [e for e in c.log("b") if e.get("event") == "resource_lost"]
    assert {e["why"] for e in lost} <= {"handed_over"}  # only the split at the start
    c.stop_all()
    hands = c.hands([f"c{n}" for n in range(TABLES)])
    assert all(r.transfers <= 1 for r in hands.values())
    check_money(c.engine, c.deposits)
    assert ledger_check(c.url).returncode == 0
    assert [e for e in crowd.errors if e.get("code") != "cluster_unavailable"] == []
    print(f"black hole: {proxy.dropped} bytes dropped, b reconnected after the restore")
