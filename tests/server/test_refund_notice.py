"""T-1, T-18 (docs/SERVER.md): a player connected when their refund is paid hears
`tournament_cancelled` with it — also when the refund job runs in another process
(`pokerroom jobs run refunds`, cron) while `pokerroom serve` runs: the server watches
`job_runs` every `[jobs] watch_seconds` and tells the players of the runs it did not make.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from tests.server.crowd import Crowd
from tests.server.test_durable_crash import serve
from tests.serving import CLI, ROOM_HEAD, migrated_sqlite, stop

CONFIG = (
    ROOM_HEAD
    + """[session]
max_connections_per_address = 0
[jobs]
refunds_interval_seconds = 0
watch_seconds = 0.5
"""
)

SCHEDULE = """
[[structure]]
name = "quick"
starting_stack = 1000
level_minutes = 5
levels = [[5, 10], [10, 20]]

[[mtt]]
name = "lonely"
structure = "quick"
buy_in = 100
fee = 10
every_minutes = 60
at_minute = {at_minute}
registration_open_minutes = 60
"""


def test_a_refund_paid_by_another_process_is_told_to_the_connected_player(
    tmp_path: Path,
) -> None:
    """T-1: alone at its start, the MTT is cancelled; the server does not run the refund job
    (interval 0). `pokerroom jobs run refunds` pays it from another process, and the
    registered player, connected all along, gets `tournament_cancelled` with buy-in and fee."""
    start = round(time.time()) + 8
    (tmp_path / "room.toml").write_text(CONFIG)
    at_minute = (start % 86_400) / 60
    (tmp_path / "schedule.toml").write_text(SCHEDULE.format(at_minute=at_minute))
    url = migrated_sqlite(tmp_path)
    port, proc = serve(tmp_path, url)
    crowd = Crowd(port)
    try:
        bot = crowd.connect("solo01", new=True)
        crowd.ok(bot, "deposit", amount=1_000)
        tid = f"lonely-{start}"
        crowd.ok(bot, "tournament_register", tournament_id=tid)
        crowd.pump(max(0.0, start + 1.5 - time.time()))  # the start passes: cancelled
        assert tid not in crowd.cancelled  # nobody paid it yet: nothing told
        ran = subprocess.run(
            [*CLI, "jobs", "run", "refunds", "--db", url],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert ran.returncode == 0, ran.stdout + ran.stderr
        crowd.pump_until(lambda: tid in crowd.cancelled, 20)
        told = crowd.cancelled[tid]["solo01"]
        assert told["buy_in"] == 100 and told["fee"] == 10 and told["total"] == 110
        crowd.pump(1.5)  # told once: later looks do not tell it again
        notices = [f for f in bot.frames if f.get("type") == "tournament_cancelled"]
        assert len(notices) == 1
    finally:
        crowd.drop_all()
        stop(proc)
