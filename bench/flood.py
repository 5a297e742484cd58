"""The room under an inbound flood: hands per second with and without one client flooding.

Run: .venv/bin/python bench/flood.py [--clients 60] [--phase 4] [--rounds 3]
     [--between-hands 0.5] [--budget on|off]

A `pokerroom serve` process on a fresh SQLite file with one six-max NLHE table per six bots
(the bots of bench/server_load.py, in one worker process, calling or checking at once), and
phases of `--phase` seconds, normal and flooded, alternating (normal, flood, flood, normal,
normal, flood, ...: drift of the machine's other load falls on both kinds alike). In a flood
phase one more process logs in, observes a table and sends refused chat lines as fast as the
socket takes them: frames of 2.0-2.2 KB, half `chat_too_long` (1,900 characters), half
`bad_field` (2,100 characters: past the protocol's 2,000), reading and discarding what comes
back; when the server closes it, it logs in again. Per phase: hands ended (at all tables) per
second, and the server's CPU seconds per hand. It prints one JSON object: the phases, the
medians of each kind, `ratio` (median flooded hands/s over median normal hands/s; the goal is
at least 0.8), `cpu_ratio` (the same for hands per server CPU second), what the flooder sent
and how many refusals it got, and the load average. `--budget off` sets the inbound budget's
rates to 0 (the server as it was before the budget) for comparison. Loopback only; it stops
by itself.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import cpu_split  # bench/ is not a package

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
CLI = [PY, "-c", "from pokerroom.cli import main; main()"]


def config(tables: int, between_hands: float, budget: bool) -> str:
    """A room with `tables` six-max NLHE tables, cheap hashing, observers allowed to chat."""
    session = "[session]\noutbound_queue_max = 5000\nmax_connections_per_address = 0"
    if not budget:
        session += "\ninbound_frames_per_second = 0\ninbound_bytes_per_second = 0"
    lines = [
        '[server]\nhost = "127.0.0.1"\nlog_format = "json"',
        session,
        "[accounts]\ntime_cost = 1\nmemory_kib = 8\nhash_queue_max = 10000",
        "[dev]\nallow_deposit = true",
        "[chat]\nhand_talk_rule = false",
        '[tournaments]\nschedule = ""',
    ]
    for n in range(tables):
        lines.append(f'[tables.t{n:03d}]\nvariant = "NT"\nbetween_hands_seconds = {between_hands}')
    return "\n\n".join(lines) + "\n"


# -- the flooder: one process ------------------------------------------------------------
def _frame(kind: str, request_id: str, **fields: Any) -> bytes:
    return json.dumps({"type": kind, "id": request_id, **fields}).encode() + b"\n"


def _handshake(port: int, name: str, new: bool) -> socket.socket:
    """Connect, hello, register (or log in), observe t000, one answer at a time; a blocking
    socket."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    buffer = b""

    def ask(kind: str, **fields: Any) -> dict[str, Any]:
        nonlocal buffer
        sock.sendall(_frame(kind, kind, **fields))
        while True:
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                frame: dict[str, Any] = json.loads(line)
                if frame.get("id") == kind:
                    return frame
            data = sock.recv(65536)
            if not data:
                raise ConnectionError(f"closed during {kind}")
            buffer += data

    ask("hello", version=1, client="desktop")
    password = "flood password 1"
    answer = ask("register", name=name, password=password) if new else {"type": "error"}
    if answer["type"] != "ok":
        answer = ask("login", name=name, password=password)
    if answer["type"] != "ok" or ask("observe", table_id="t000")["type"] != "ok":
        raise ConnectionError(f"handshake refused: {answer}")
    return sock


def flooder(port: int, seconds: float, out: str) -> None:
    """Flood refused chat lines for `seconds`, logging in again when closed; write `out`."""
    chunk = b"".join(
        _frame("chat", f"f{n}", table_id="t000", text="x" * (1900 if n % 2 else 2100))
        for n in range(32)
    )
    frames_per_chunk = 32
    stats: dict[str, Any] = {"sent_frames": 0, "sent_bytes": 0, "answers": 0, "goodbyes": {}}
    stats["connections"] = 0
    name = f"flood{os.getpid()}"
    end = time.monotonic() + seconds
    new = True
    while time.monotonic() < end:
        try:
            sock = _handshake(port, name, new)
        except (OSError, ConnectionError) as exc:
            stats.setdefault("handshake_errors", []).append(str(exc)[:200])
            time.sleep(0.1)
            continue
        new = False
        stats["connections"] += 1
        sock.setblocking(False)
        selector = selectors.DefaultSelector()
        selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE)
        offset, tail = 0, b""
        open_ = True
        while open_ and time.monotonic() < end:
            for _, mask in selector.select(timeout=0.05):
                if mask & selectors.EVENT_READ:
                    try:
                        data = sock.recv(1 << 20)
                    except (BlockingIOError, InterruptedError):
                        data = None
                    except OSError:
                        data = b""
                    if data == b"":
                        open_ = False
                        break
                    if data:
                        stats["answers"] += data.count(b'"type":"error"')  # refusals
                        if b'"goodbye"' in data:
                            for line in (tail + data).split(b"\n"):
                                if b'"goodbye"' in line:
                                    code = json.loads(line)["code"]
                                    stats["goodbyes"][code] = stats["goodbyes"].get(code, 0) + 1
                        tail = data.rsplit(b"\n", 1)[-1]
                if mask & selectors.EVENT_WRITE:
                    try:
                        sent = sock.send(chunk[offset:])
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        open_ = False
                        break
                    stats["sent_bytes"] += sent
                    before = offset
                    offset = (offset + sent) % len(chunk)
                    if offset <= before:  # wrapped: the chunk's frames went out once more
                        stats["sent_frames"] += frames_per_chunk
        selector.close()
        sock.close()
    Path(out).write_text(json.dumps(stats))


# -- the orchestrator -----------------------------------------------------------------------
def listening_port(server: subprocess.Popen[str]) -> int:
    """The port from `serve`'s `pokerroom listening on HOST:PORT` line (a summary comes first)."""
    assert server.stdout is not None
    for line in server.stdout:
        if line.startswith("pokerroom listening on "):
            return int(line.rsplit(":", 1)[1])
    raise RuntimeError("the server stopped before it listened")


def server_cpu(pid: int) -> float:
    """User+system CPU seconds of the server process."""
    return sum(cpu_split(pid))


def run(
    clients: int, phase: float, rounds: int, between_hands: float, budget: bool
) -> dict[str, Any]:
    """Serve, seat the bots, measure alternating phases; the figures."""
    folder = Path(tempfile.mkdtemp(prefix="pokerroom-flood-"))
    url = f"sqlite:///{folder / 'room.sqlite'}"
    subprocess.run([*CLI, "db", "upgrade", "--db", url], check=True, capture_output=True)
    tables = max(1, -(-clients // 6))
    (folder / "room.toml").write_text(config(tables, between_hands, budget))
    server = subprocess.Popen(
        [*CLI, "serve", "--db", url, "--port", "0", "--config", str(folder / "room.toml")],
        stdout=subprocess.PIPE,
        stderr=(folder / "server.log").open("w"),
        text=True,
    )
    procs: list[subprocess.Popen[Any]] = [server]
    try:
        port = listening_port(server)
        out = folder / "bots.json"
        bots = subprocess.Popen(
            [PY, str(ROOT / "bench" / "server_load.py"), "--worker", str(port), "0",
             str(clients), "0", str(out)],
            cwd=ROOT,
        )  # fmt: skip
        procs.append(bots)
        give_up = time.monotonic() + 120
        while not Path(f"{out}.ready").exists():
            if time.monotonic() > give_up or bots.poll() is not None:
                raise RuntimeError("the bots did not sit within 120 s")
            time.sleep(0.2)
        time.sleep(2.0)  # the first hands start
        order = [("normal", "flood") if r % 2 == 0 else ("flood", "normal") for r in range(rounds)]
        phases: list[dict[str, Any]] = []
        floods: list[dict[str, Any]] = []
        load0 = os.getloadavg()[0]
        for pair in order:
            for kind in pair:
                flood_proc = None
                flood_out = folder / f"flood{len(phases)}.json"
                if kind == "flood":
                    flood_proc = subprocess.Popen(
                        [PY, __file__, "--flooder", str(port), str(phase), str(flood_out)],
                        cwd=ROOT,
                    )
                    procs.append(flood_proc)
                    time.sleep(0.3)  # its login; the flood then runs through the phase
                cpu0, t0 = server_cpu(server.pid), time.monotonic()
                time.sleep(phase - (0.3 if flood_proc else 0))
                cpu1, t1 = server_cpu(server.pid), time.monotonic()
                phases.append({"kind": kind, "start": t0, "end": t1, "cpu": cpu1 - cpu0})
                if flood_proc is not None:
                    flood_proc.wait(timeout=60)
                    floods.append(json.loads(flood_out.read_text()))
                    time.sleep(0.5)  # what the flooder left in the buffers is read
        load1 = os.getloadavg()[0]
        Path(f"{out}.stop").write_text("")
        bots.wait(timeout=60)
        ended = json.loads(out.read_text())["ended"].values()
        for p in phases:
            hands = sum(1 for t in ended if p["start"] <= t < p["end"])
            wall = p["end"] - p["start"]
            p["hands_per_s"] = round(hands / wall, 2)
            p["hands_per_cpu_s"] = round(hands / p["cpu"], 1) if p["cpu"] else None
            p["server_cpu"] = round(p["cpu"] / wall, 2)
            del p["start"], p["end"], p["cpu"]
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)

    def median(kind: str, key: str) -> float:
        return statistics.median(p[key] or 0 for p in phases if p["kind"] == kind)

    normal, flooded = median("normal", "hands_per_s"), median("flood", "hands_per_s")
    normal_cpu, flooded_cpu = (
        median("normal", "hands_per_cpu_s"),
        median("flood", "hands_per_cpu_s"),
    )
    goodbyes: dict[str, int] = {}
    for f in floods:
        for code, n in f["goodbyes"].items():
            goodbyes[code] = goodbyes.get(code, 0) + n
    return {
        "clients": clients,
        "tables": tables,
        "budget": budget,
        "phase_s": phase,
        "normal_hands_per_s": normal,
        "flooded_hands_per_s": flooded,
        "ratio": round(flooded / normal, 3) if normal else None,
        "cpu_ratio": round(flooded_cpu / normal_cpu, 3) if normal_cpu else None,
        "phases": phases,
        "flood_sent_frames_per_s": round(
            sum(f["sent_frames"] for f in floods) / (len(floods) * phase)
        ),
        "flood_sent_mib": round(sum(f["sent_bytes"] for f in floods) / 2**20, 1),
        "flood_answers": sum(f["answers"] for f in floods),
        "flood_connections": sum(f["connections"] for f in floods),
        "flood_goodbyes": goodbyes,
        "load_avg": [round(load0, 1), round(load1, 1)],
        "folder": str(folder),
    }


def main() -> None:
    """Parse arguments; run the flooder or the measurement."""
    if len(sys.argv) > 1 and sys.argv[1] == "--flooder":
        port, seconds, out = sys.argv[2:5]
        flooder(int(port), float(seconds), out)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=60)
    parser.add_argument("--phase", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--between-hands", type=float, default=0.5)
    parser.add_argument("--budget", choices=("on", "off"), default="on")
    args = parser.parse_args()
    result = run(args.clients, args.phase, args.rounds, args.between_hands, args.budget == "on")
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
