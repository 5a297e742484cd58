"""Server load: a `pokerroom serve` process and bot clients in other processes, on loopback.

Run: .venv/bin/python bench/server_load.py [--clients 60 300 600] [--seconds 20] [--per-worker 100]
     [--pace 0]   (seconds a bot waits before acting: 0 = at once; e.g. 2 = human pace)

For each client count: a fresh SQLite database, a server with clients/6 six-max NLHE tables,
and worker processes of `--per-worker` bots each. Bots call or check (every hand goes to the
showdown). Once every bot sits (and 3 s more), the run measures for `--seconds`:
- hands/s: distinct hands ended at all tables;
- latency: from the moment a client sends its action to the moment the next player receives
  its `action_request` (CLOCK_MONOTONIC is shared by all processes), p50 and p99;
- server CPU (user+system seconds per wall second), its CPU time per action and per hand
  (robust to other load on the machine, unlike wall latency), and peak RSS; the CPU time per
  action split into the reactor thread's and the other threads' (the database lanes);
- the bot processes' CPU (seconds per wall second, all workers) and the load average;
- runqueue wait: seconds per wall second the server's (the bots') threads were ready to run
  but waited for a CPU (/proc/PID/task/*/schedstat), i.e. how oversubscribed the cores were.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


def config(tables: int) -> str:
    """A room with `tables` six-max NLHE tables and cheap password hashing."""
    lines = [
        '[server]\nhost = "127.0.0.1"\nlog_format = "json"',
        # every bot connects from 127.0.0.1 and registers at once: no per-address cap
        "[session]\noutbound_queue_max = 5000\nmax_connections_per_address = 0",
        "[accounts]\ntime_cost = 1\nmemory_kib = 8\nhash_queue_max = 10000",
        "[dev]\nallow_deposit = true",
    ]
    for n in range(tables):
        lines.append(f'[tables.t{n:03d}]\nvariant = "NT"\nbetween_hands_seconds = 0.5')
    return "\n\n".join(lines) + "\n"


# -- worker: bots in one process ------------------------------------------------------------
def worker(port: int, first: int, count: int, pace: float, out: str) -> None:
    """Run bots first..first+count-1 (bot i sits at table i // 6); write `out`.ready once all
    sit; when `out`.stop appears, dump the timestamps to `out` and exit."""
    import random

    from twisted.internet import reactor
    from twisted.internet.defer import Deferred
    from twisted.internet.endpoints import TCP4ClientEndpoint

    from pokerroom.server.bots import Bot, BotReport

    report = BotReport()
    sent: dict[str, float] = {}  # "hand/n" -> when the n-th action of the hand was sent
    asked: dict[str, float] = {}  # "hand/n" -> when the request after n actions arrived
    ended: dict[str, float] = {}

    class LoadBot(Bot):
        counts: dict[str, int]  # hand -> actions this bot has seen

        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            self.seated_d: Any = Deferred()

        def on_event(self, frame: dict[str, Any]) -> None:
            mine = frame.get("type") == "seat_taken" and frame.get("player") == self.name
            if mine and not self.seated_d.called:
                self.seated_d.callback(None)
            self._record(frame)

        def _record(self, frame: dict[str, Any]) -> None:
            counts = self.__dict__.setdefault("counts", {})
            kind, hand = frame.get("type"), frame.get("hand_id")
            if kind == "player_acted":
                counts[hand] = counts.get(hand, 0) + 1
            elif kind == "action_request":
                asked[f"{hand}/{counts.get(hand, 0)}"] = time.monotonic()
            elif kind == "hand_ended":
                ended.setdefault(hand, time.monotonic())
            super().on_event(frame)

        def act(self, frame: dict[str, Any]) -> None:
            hand = frame["hand_id"]

            def go() -> None:
                sent[f"{hand}/{self.counts.get(hand, 0) + 1}"] = time.monotonic()
                action = "check" if frame["actions"]["check"] else "call"
                self.client.request("act", table_id=self.table_id, action=action).addErrback(
                    lambda f: self.fail("act", f)
                )

            if pace:
                reactor.callLater(random.uniform(pace / 2, pace * 1.5), go)
            else:
                go()

    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", port)
    bots = [
        LoadBot(f"load{i:04d}", 10**9, random.Random(i), report)
        for i in range(first, first + count)
    ]
    for i, bot in zip(range(first, first + count), bots, strict=True):
        table = f"t{i // 6:03d}"
        d = bot.run(endpoint, lambda tables, t=table: next(x for x in tables if x["table_id"] == t))
        d.addErrback(lambda f, b=bot: b.fail("session", f))

    seated = {"n": 0}

    def sat(_: object) -> None:
        seated["n"] += 1
        if seated["n"] == count:
            Path(out + ".ready").write_text("")

    for bot in bots:
        bot.seated_d.addCallback(sat)

    def poll() -> None:
        if not Path(out + ".stop").exists():
            reactor.callLater(0.25, poll)
            return
        data = {
            "sent": sent,
            "asked": asked,
            "ended": ended,
            "errors": report.errors,
            "leaks": report.leaks,
        }
        Path(out).write_text(json.dumps(data))
        reactor.stop()

    poll()
    reactor.run()


# -- orchestrator ---------------------------------------------------------------------------
def cpu_split_of(stat: Path) -> tuple[float, float]:
    """(user, system) CPU seconds from a /proc stat file (a process's or a thread's)."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / ticks, int(fields[12]) / ticks


def cpu_split(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process, from /proc."""
    return cpu_split_of(Path(f"/proc/{pid}/stat"))


def reactor_cpu(pid: int) -> float:
    """User+system CPU seconds of the process's main thread (the reactor's)."""
    return sum(cpu_split_of(Path(f"/proc/{pid}/task/{pid}/stat")))


def runqueue_wait(pid: int) -> float:
    """Seconds the process's threads spent runnable but waiting for a CPU (schedstat)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):  # a thread that ended meanwhile
            continue
    return total / 1e9


def proc_stats(pid: int) -> tuple[float, int]:
    """(user+system CPU seconds, RSS KiB) of a process, from /proc."""
    cpu = sum(cpu_split(pid))
    rss = next(
        int(line.split()[1])
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if line.startswith("VmRSS:")
    )
    return cpu, rss


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def run(clients: int, seconds: float, per_worker: int, pace: float) -> dict[str, Any]:
    """One measurement with `clients` bots."""
    folder = Path(tempfile.mkdtemp(prefix="pokerroom-load-"))
    url = f"sqlite:///{folder / 'room.sqlite'}"
    subprocess.run(
        [PY, "-c", "from pokerroom.cli import main; main()", "db", "upgrade", "--db", url],
        check=True,
        capture_output=True,
    )
    (folder / "room.toml").write_text(config(max(1, -(-clients // 6))))
    server = subprocess.Popen(
        [
            PY,
            "-c",
            "from pokerroom.cli import main; main()",
            "serve",
            "--db",
            url,
            "--port",
            "0",
            "--config",
            str(folder / "room.toml"),
        ],
        stdout=subprocess.PIPE,
        stderr=(folder / "server.log").open("w"),
        text=True,
    )
    assert server.stdout is not None
    for line in iter(server.stdout.readline, ""):
        if line.startswith("pokerroom listening on "):  # after the start-up summary
            break
    else:
        raise SystemExit(f"the server ended: see {folder / 'server.log'}")
    port = int(line.rsplit(":", 1)[1])
    workers = []
    for first in range(0, clients, per_worker):
        count = min(per_worker, clients - first)
        out = folder / f"w{first}.json"
        args = [PY, __file__, "--worker", str(port), str(first), str(count), str(pace), str(out)]
        workers.append((subprocess.Popen(args, cwd=ROOT), out))
    give_up = time.monotonic() + 600
    while not all(Path(f"{out}.ready").exists() for _, out in workers):
        if time.monotonic() > give_up:  # a bot could not sit: measure the others
            break
        time.sleep(0.5)  # registering, funding and seating everyone
    time.sleep(3.0)  # let the first hands start
    cpu0, peak = proc_stats(server.pid)
    user0, system0 = cpu_split(server.pid)
    reactor0 = reactor_cpu(server.pid)
    bots0 = sum(sum(cpu_split(proc.pid)) for proc, _ in workers)
    wait0 = runqueue_wait(server.pid)
    bots_wait0 = sum(runqueue_wait(proc.pid) for proc, _ in workers)
    load0 = os.getloadavg()[0]
    wall0 = time.monotonic()
    while time.monotonic() < wall0 + seconds:
        peak = max(peak, proc_stats(server.pid)[1])
        time.sleep(0.5)
    window = (wall0, time.monotonic())
    for _, out in workers:
        Path(f"{out}.stop").write_text("")
    cpu1, rss = proc_stats(server.pid)
    user1, system1 = cpu_split(server.pid)
    reactor1 = reactor_cpu(server.pid)
    bots1 = sum(sum(cpu_split(proc.pid)) for proc, _ in workers)
    wait1 = runqueue_wait(server.pid)
    bots_wait1 = sum(runqueue_wait(proc.pid) for proc, _ in workers)
    load1 = os.getloadavg()[0]
    wall = window[1] - window[0]
    for proc, _ in workers:
        proc.wait(timeout=60)
    server.terminate()
    server.wait(timeout=30)
    sent: dict[str, float] = {}
    asked: dict[str, float] = {}
    ended: set[str] = set()
    errors, leaks = 0, 0
    samples: list[str] = []
    for _, out in workers:
        data = json.loads(out.read_text())
        sent.update(data["sent"])
        asked.update(data["asked"])
        ended.update(h for h, t in data["ended"].items() if window[0] <= t <= window[1])
        errors += len(data["errors"])
        leaks += len(data["leaks"])
        samples += (data["errors"] + data["leaks"])[:3]
    lat = [
        (asked[k] - t) * 1000
        for k, t in sent.items()
        if k in asked and window[0] <= t <= window[1] and asked[k] >= t
    ]
    acted = sum(1 for t in sent.values() if window[0] <= t <= window[1])
    cpu = cpu1 - cpu0
    return {
        "clients": clients,
        "pace_s": pace,
        "hands_per_s": round(len(ended) / seconds, 1),
        "actions_per_s": round(acted / wall, 1),
        "actions": len(lat),
        "p50_ms": round(percentile(lat, 0.5), 2) if lat else None,
        "p99_ms": round(percentile(lat, 0.99), 2) if lat else None,
        "server_cpu": round(cpu / wall, 2),
        "server_user_sys": [round(user1 - user0, 2), round(system1 - system0, 2)],
        "server_cpu_ms_per_action": round(cpu * 1000 / acted, 3) if acted else None,
        "server_cpu_ms_per_hand": round(cpu * 1000 / len(ended), 1) if ended else None,
        # [reactor thread, other threads (database lanes)]
        "server_cpu_ms_per_action_split": (
            [
                round((reactor1 - reactor0) * 1000 / acted, 3),
                round((cpu - (reactor1 - reactor0)) * 1000 / acted, 3),
            ]
            if acted
            else None
        ),
        "server_runqueue_wait": round((wait1 - wait0) / wall, 2),
        "bots_cpu": round((bots1 - bots0) / wall, 2),
        "bots_runqueue_wait": round((bots_wait1 - bots_wait0) / wall, 2),
        "bots_cpu_ms_per_action": round((bots1 - bots0) * 1000 / acted, 3) if acted else None,
        "load_avg": [round(load0, 1), round(load1, 1)],
        "server_rss_mib": round(max(peak, rss) / 1024),
        "errors": errors,
        "leaks": leaks,
        "samples": samples[:6],
        "folder": str(folder),
    }


def main() -> None:
    """Parse arguments; run the worker or the measurements."""
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        port, first, count, pace, out = sys.argv[2:7]
        worker(int(port), int(first), int(count), float(pace), out)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[60, 300, 600])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--per-worker", type=int, default=100)
    parser.add_argument("--pace", type=float, default=0.0)
    args = parser.parse_args()
    for clients in args.clients:
        print(json.dumps(run(clients, args.seconds, args.per_worker, args.pace)), flush=True)


if __name__ == "__main__":
    main()
