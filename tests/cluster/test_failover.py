"""Real cluster nodes on PostgreSQL (docs/design/cluster.md, "Failure cases"): two `pokerroom
serve --cluster --node` processes split the tables (`cluster status` shows it); bots play at
each node's tables (RENEW 0.5 s, TTL 3 s, margin 1 s: tests/cluster/nodes.py).

- SIGKILL a node mid-hand: the other takes its tables within TTL + renew (+ its recovery), the
  interrupted hands are void with their stacks in escrow (C-12), the bots play on at the new
  owner, and the ledger check passes with wallets + escrows + house equal to the deposits.
- SIGSTOP a node past its leases, let the other take over and deal, SIGCONT it: PostgreSQL has
  ended its transaction left open (idle_in_transaction_session_timeout: its row locks do not
  stall the other node), it stops its tables on its own, whatever it writes is refused by the
  epoch (lease_lost), it takes tables again only at new epochs; no hand doubled; money exact.
- `cluster drain`: the drained node's tables move between hands, no hand void.
- SIGTERM (no drain): the node releases its leases and deletes its row; the other takes its
  tables at its next round, not after the TTL. A node that cannot reach NATS registers nothing.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.ledger import make_engine
from tests.cluster.nodes import RENEW, TABLES, TTL, Cluster, wait_for
from tests.postgres import fresh_pg_schema
from tests.server.test_settle_kills import check_money, escrows, stacks
from tests.serving import CLI, migrate

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]


@pytest.fixture
def cluster(tmp_path: Path, nats_url: str) -> Iterator[Cluster]:
    """Nodes a and b on a fresh migrated schema, tables split 2 and 2, bots seated at each."""
    with fresh_pg_schema("cluster_nodes") as url:
        migrate(url)
        engine = make_engine(url)
        found = Cluster(tmp_path, url, nats_url, engine)
        try:
            found.start("a")
            wait_for(lambda: found.owned() == {"a": TABLES}, 20, "a takes every table")
            found.start("b")
            # a owns more than ceil(4 / 2): it hands two idle tables over, b takes them
            wait_for(lambda: found.owned() == {"a": 2, "b": 2}, 20, "the tables split 2 and 2")
            found.seat_bots()
            yield found
        finally:
            found.stop_all()
            engine.dispose()


def ledger_check(url: str) -> subprocess.CompletedProcess[str]:
    """`pokerroom ledger check` on the database."""
    return subprocess.run(
        [*CLI, "ledger", "check", "--db", url], capture_output=True, text=True, timeout=120
    )


def settled_after(c: Cluster, tables: list[str], last: dict[str, int]) -> dict[str, int]:
    """table -> hands settled there with a number above `last`."""
    counts = dict.fromkeys(tables, 0)
    for hand_id, r in c.hands(tables).items():
        if r.status == "settled" and int(hand_id.rsplit("-", 1)[1]) > last.get(r.table_id, 0):
            counts[r.table_id] += 1
    return counts


def dealt_after(c: Cluster, tables: list[str], last: dict[str, int]) -> int:
    """Hands dealt at `tables` with a number above `last` (any status)."""
    return sum(
        1 for h, r in c.hands(tables).items() if int(h.rsplit("-", 1)[1]) > last.get(r.table_id, 0)
    )


def settled_down(c: Cluster, tables: list[str]) -> dict[str, Any]:
    """The hand rows of `tables` once two reads 0.3 s apart agree (the dead node's last
    transaction, if its COMMIT was on the wire, has been applied by PostgreSQL)."""
    before = {h: r.status for h, r in c.hands(tables).items()}
    while True:
        time.sleep(0.3)
        now = c.hands(tables)
        if {h: r.status for h, r in now.items()} == before:
            return now
        before = {h: r.status for h, r in now.items()}


def epochs(c: Cluster) -> dict[str, int]:
    """resource -> its lease's epoch (`cluster status --json`)."""
    return {lease["resource"]: lease["epoch"] for lease in c.status()["leases"]}


def wallet(c: Cluster, player: str) -> int:
    """A player's wallet balance."""
    with c.engine.connect() as conn:
        found = conn.execute(
            sa.text("SELECT balance FROM accounts WHERE kind = 'wallet' AND owner = :p"),
            {"p": player},
        ).scalar_one()
    return int(found)


def topups(c: Cluster) -> int:
    """Top-up transfers in the journal."""
    with c.engine.connect() as conn:
        found = conn.execute(
            sa.text("SELECT count(*) FROM journal WHERE idempotency_key LIKE 'topup:%'")
        ).scalar_one()
    return int(found)


def test_status_shows_the_split(cluster: Cluster) -> None:
    """`cluster status --json`: both nodes alive (heartbeat within the TTL), not draining, two
    tables and three casino tables each, each lease unexpired with an epoch."""
    found = cluster.status()
    nodes = {n["name"]: n for n in found["nodes"]}
    assert set(nodes) == {"a", "b"}
    assert all(n["heartbeat_age_seconds"] < TTL and not n["draining"] for n in nodes.values())
    assert nodes["a"]["address"].endswith(f":{cluster.ports['a']}")
    leases = [(lease["resource"].partition(":")[0], lease["owner"]) for lease in found["leases"]]
    assert sorted(owner for kind, owner in leases if kind == "table") == ["a", "a", "b", "b"]
    casino = [owner for kind, owner in leases if kind == "casino"]
    assert sorted(casino) == ["a", "a", "a", "b", "b", "b"]  # balanced apart (node.APART)
    assert all(0 < lease["expires_in_seconds"] <= TTL for lease in found["leases"])


def test_sigkill_an_owner_mid_hand_the_other_node_deals_again(cluster: Cluster) -> None:
    """C-12 across nodes: kill a mid-hand; b takes a's tables, voids the hands a left
    `started` (escrows are their start stacks), deals again; bots play on; money exact."""
    c = cluster
    crowd = c.crowd
    assert crowd is not None
    a_tables = c.tables_of("a")
    crowd.pump(2.0)
    c.mid_hand(a_tables)
    c.procs["a"].send_signal(signal.SIGKILL)
    c.procs["a"].wait(timeout=20)
    killed = time.monotonic()
    at_kill = settled_down(c, a_tables)  # a COMMIT a sent just before it died may still land
    assert "b" not in {c.owners().get(t) for t in a_tables}  # read before b took anything
    interrupted = {h for h, r in at_kill.items() if r.status == "started"}
    assert interrupted  # the kill cut a hand
    held = escrows(c.engine)
    for hand_id in interrupted:  # nothing of the hand moved: the escrows are its start
        for player, chips in stacks(at_kill[hand_id].start_stacks).items():
            assert held[f"{at_kill[hand_id].table_id}/{player}"] == chips
    last = c.last_numbers()
    crowd.pump_until(lambda: c.owned() == {"b": TABLES}, limit=TTL + RENEW + 10)
    taken = time.monotonic() - killed
    assert taken <= TTL + RENEW + 2.0, taken
    c.reconnect(a_tables, "b")
    crowd.pump_until(lambda: dealt_after(c, a_tables, last) > 0, limit=30)
    first_deal = time.monotonic() - killed  # kill -> the first hand dealt elsewhere
    print(
        f"failover: lease taken {taken:.2f} s, first hand dealt {first_deal:.2f} s after the kill"
    )
    crowd.pump_until(lambda: all(settled_after(c, a_tables, last).values()), limit=30)
    hands = c.hands(a_tables)
    for hand_id in interrupted:
        assert hands[hand_id].status == "void" and hands[hand_id].transfers == 0
    before = c.last_numbers()
    crowd.pump(2.0)  # every table plays on, at b
    assert all(settled_after(c, [f"c{n}" for n in range(TABLES)], before).values())
    c.stop_all()
    check_money(c.engine, c.deposits)
    assert ledger_check(c.url).returncode == 0
    assert crowd.errors == []


def test_a_paused_owner_comes_back_fenced(cluster: Cluster) -> None:
    """SIGSTOP a past its leases; b takes them over (new epochs) and deals; a player still
    connected to a asks a top-up meanwhile (it waits in a's socket); SIGCONT a: a stops those
    tables on its own (not renewed, lease lost or a write fenced). The top-up is either written
    by a for the table it lost — refused by the fence, nothing moved — or, when a has stopped
    the table first, routed to its owner b and made there once: never twice. No hand doubled
    (one settlement each), money exact."""
    c = cluster
    crowd = c.crowd
    assert crowd is not None
    a_tables = c.tables_of("a")
    crowd.pump(1.5)
    escrow_of = {p: escrows(c.engine)[f"{t}/{p}"] for t in a_tables for p in c.seated[t]}
    short = min(escrow_of, key=lambda p: escrow_of[p])  # room to top up under max_buy_in
    table_of_short = short.split("p")[0]
    wallet_before = wallet(c, short)
    c.procs["a"].send_signal(signal.SIGSTOP)
    try:
        crowd.pump_until(lambda: c.owned() == {"b": TABLES}, limit=TTL + RENEW + 10)
        crowd.send(crowd.bots[short], "top_up", table_id=table_of_short, amount=1)
        last = c.last_numbers()
        c.reconnect(a_tables, "b")
        crowd.pump_until(lambda: all(settled_after(c, a_tables, last).values()), limit=30)
    finally:
        c.procs["a"].send_signal(signal.SIGCONT)
    crowd.pump(3.0)  # a runs again: whatever it does must be refused
    lost = [  # the split at the start handed two tables over: not those
        e for e in c.log("a") if e.get("event") == "resource_lost" and e["why"] != "handed_over"
    ]
    tables = {e["resource"] for e in lost if e["resource"].startswith("table:")}  # casino too
    assert tables == {f"table:{t}" for t in a_tables}
    assert {e["why"] for e in lost} <= {"not_renewed", "lease_lost", "write_fenced"}
    halted = [e for e in c.log("a") if e.get("event") == "table_halted"]
    assert all("no longer a's" in e["error"] for e in halted)  # only lease_lost refusals
    taken_by_b = {r: e for r, e in epochs(c).items() if c.owners().get(r.split(":")[1]) == "b"}
    for resource, epoch in epochs(c).items():  # a may take tables again, each at a new epoch
        if c.owners().get(resource.split(":")[1]) == "a":
            assert epoch >= 3, (resource, epoch, taken_by_b)
    c.stop_all()
    check_money(c.engine, c.deposits)
    assert ledger_check(c.url).returncode == 0
    hands = c.hands([f"c{n}" for n in range(TABLES)])
    assert all(r.transfers <= 1 for r in hands.values())
    assert escrow_of[short] < 200, escrow_of  # the table's rules allowed the top-up
    made = topups(c)
    assert made <= 1 and wallet(c, short) == wallet_before - made  # refused, or made once
    print(f"paused owner: {len(lost)} tables stopped ({[e['why'] for e in lost]}),"
          f" {len(halted)} tables halted by a refused write,"
          f" the top-up {'made by the owner' if made else 'refused'}")  # fmt: skip


def test_drain_moves_tables_between_hands_with_no_hand_void(cluster: Cluster) -> None:
    """`cluster drain a`: a deals no new hand, hands each table over at the end of its hand;
    b takes it (epoch + 1) and deals; no hand is void anywhere; money exact. An observer of
    one of a's tables on each node is brought back at b: a fresh snapshot, then b's hands."""
    c = cluster
    crowd = c.crowd
    assert crowd is not None
    a_tables = c.tables_of("a")
    watched = a_tables[0]
    watchers = {}  # one observer of a's table on each node (docs/design/cluster.md, moves)
    for node in ("a", "b"):
        crowd.port = c.ports[node]
        watchers[node] = crowd.connect(f"watch{node}", new=True)
        crowd.ok(watchers[node], "observe", table_id=watched)
    crowd.pump(1.5)
    epochs = {lease["resource"]: lease["epoch"] for lease in c.status()["leases"]}
    # before the drain: b may bring its watcher back as soon as it takes the table
    seen = {node: len(bot.frames) for node, bot in watchers.items()}
    done = subprocess.run(
        [*CLI, "cluster", "drain", "a", "--db", c.url], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    crowd.pump_until(lambda: c.owned() == {"b": TABLES}, limit=30)
    last = c.last_numbers()
    c.reconnect(a_tables, "b")
    crowd.pump_until(lambda: all(settled_after(c, a_tables, last).values()), limit=30)
    for node, bot in watchers.items():  # each still watches, now b's table: snapshot, hands
        later = [f for f in bot.frames[seen[node] :] if f.get("table_id") == watched]
        kinds = [f["type"] for f in later]
        assert "table_snapshot" in kinds and "hand_started" in kinds, (node, kinds)
    after = {lease["resource"]: lease["epoch"] for lease in c.status()["leases"]}
    for table in a_tables:
        assert after[f"table:{table}"] == epochs[f"table:{table}"] + 1
    hands = c.hands([f"c{n}" for n in range(TABLES)])
    assert [h for h, r in hands.items() if r.status == "void"] == []
    assert {e["why"] for e in c.log("a") if e.get("event") == "resource_lost"} == {"handed_over"}
    assert c.status()["nodes"][0]["draining"] is True
    c.stop_all()
    check_money(c.engine, c.deposits)
    assert ledger_check(c.url).returncode == 0
    assert crowd.errors == []


def test_sigterm_an_owner_the_other_node_takes_its_tables_at_its_next_round(
    cluster: Cluster,
) -> None:
    """SIGTERM a (no drain) mid-hand: a exits 0 having released its leases and deleted its row;
    b takes a's tables within a couple of renew rounds (far below the TTL), voids the hand a
    left `started` (C-12), deals again; `cluster status` lists b only; money exact."""
    c = cluster
    crowd = c.crowd
    assert crowd is not None
    a_tables = c.tables_of("a")
    crowd.pump(1.5)
    c.mid_hand(a_tables)
    last = c.last_numbers()
    c.procs["a"].send_signal(signal.SIGTERM)
    assert c.procs["a"].wait(timeout=20) == 0
    stopped = time.monotonic()
    crowd.pump_until(lambda: c.owned() == {"b": TABLES}, limit=TTL + RENEW + 10)
    taken = time.monotonic() - stopped
    assert taken <= 3 * RENEW, taken  # not the TTL (3 s): b's next rounds
    assert [n["name"] for n in c.status()["nodes"]] == ["b"]
    assert {e["why"] for e in c.log("a") if e.get("event") == "resource_lost"} <= {
        "handed_over",
        "node_stopping",
    }
    c.reconnect(a_tables, "b")
    crowd.pump_until(lambda: all(settled_after(c, a_tables, last).values()), limit=30)
    print(f"SIGTERM: a's tables taken by b {taken:.2f} s after a exited")
    c.stop_all()
    check_money(c.engine, c.deposits)
    assert ledger_check(c.url).returncode == 0
    assert crowd.errors == []


def test_a_node_that_cannot_reach_nats_writes_no_row_and_takes_no_table(
    tmp_path: Path, nats_url: str
) -> None:
    """A node started with a NATS URL nobody serves exits 1 without having registered or taken
    a lease: the running node's tables never change hands (epochs stay 1)."""
    with fresh_pg_schema("cluster_no_nats") as url:
        migrate(url)
        c = Cluster(tmp_path, url, nats_url, make_engine(url))
        try:
            c.start("a")
            wait_for(lambda: c.owned() == {"a": TABLES}, 20, "a takes every table")
            args = ["serve", "--db", url, "--port", "0", "--config", str(tmp_path / "room.toml")]
            done = subprocess.run(
                [*CLI, *args, "--cluster", "nats://127.0.0.1:9", "--node", "x"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 1 and "cannot reach NATS" in done.stderr, done.stderr
            time.sleep(2 * RENEW)  # a's rounds after x is gone: nothing to hand back
            assert [n["name"] for n in c.status()["nodes"]] == ["a"]
            assert set(epochs(c).values()) == {1} and c.owned() == {"a": TABLES}
            assert [e for e in c.log("a") if e.get("event") == "resource_lost"] == []
        finally:
            c.stop_all()
            c.engine.dispose()


def test_three_nodes_split_six_tables_and_two_share_a_dead_ones(
    tmp_path: Path, nats_url: str
) -> None:
    """Three nodes split six tables 2, 2, 2 (each joining node takes its share as the others
    hand their surplus over between hands); SIGKILL one mid-hand: the two left take one of its
    tables each (3 and 3), void its interrupted hand, deal again; money exact."""
    with fresh_pg_schema("cluster_three") as url:
        migrate(url)
        c = Cluster(tmp_path, url, nats_url, make_engine(url), tables=6)
        try:
            c.start("a")
            wait_for(lambda: c.owned() == {"a": 6}, 20, "a takes every table")
            c.start("b")
            wait_for(lambda: c.owned() == {"a": 3, "b": 3}, 20, "a and b split 3 and 3")
            c.start("c")
            wait_for(lambda: c.owned() == {"a": 2, "b": 2, "c": 2}, 20, "2, 2 and 2")
            crowd = c.seat_bots()
            c_tables = c.tables_of("c")
            crowd.pump(1.5)
            c.mid_hand(c_tables)
            c.procs["c"].send_signal(signal.SIGKILL)
            c.procs["c"].wait(timeout=20)
            at_kill = settled_down(c, c_tables)
            interrupted = {h for h, r in at_kill.items() if r.status == "started"}
            last = c.last_numbers()
            crowd.pump_until(lambda: c.owned() == {"a": 3, "b": 3}, limit=TTL + RENEW + 10)
            owners = c.owners()
            for table in c_tables:
                c.reconnect([table], owners[table])
            crowd.pump_until(lambda: all(settled_after(c, c_tables, last).values()), limit=30)
            hands = c.hands(c_tables)
            for hand_id in interrupted:
                assert hands[hand_id].status in ("void", "settled")  # settled: its COMMIT landed
                assert hands[hand_id].transfers == (hands[hand_id].status == "settled")
            assert interrupted and any(hands[h].status == "void" for h in interrupted)
            c.stop_all()
            check_money(c.engine, c.deposits)
            assert ledger_check(c.url).returncode == 0
            assert crowd.errors == []
        finally:
            c.stop_all()
            c.engine.dispose()
