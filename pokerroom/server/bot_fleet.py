"""Many bots at once (`pokerroom bots`, `pokerroom demo`): spread over the tables, run until
their hands are done or the time limit, and summed up in one `BotReport`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred, gatherResults
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.internet.interfaces import (
    IReactorTCP,
    IReactorTime,
)
from twisted.python.failure import Failure

from pokerroom.server.bots import Bot, BotReport, BotSettings, next_table
from pokerroom.table.bot_policy import Policy


def assign_tables(count: int, tables: list[dict[str, Any]]) -> list[str]:
    """Spread `count` bots over as few tables as hold them, at least two a table."""
    usable = sorted(tables, key=lambda t: t["table_id"])
    per_table = min(6, min(t["max_seats"] for t in usable))
    used = min(len(usable), max(1, math.ceil(count / per_table)))
    return [usable[i % used]["table_id"] for i in range(count)]


def run_bots(
    reactor: IReactorTCP,
    host: str,
    port: int,
    count: int,
    hands: int,
    *,
    seed: int = 1,
    prefix: str = "bot",
    say: Callable[[str], None] | None = None,
    report: BotReport | None = None,
    policy: Policy | None = None,
    settings: BotSettings = BotSettings(),  # noqa: B008  (frozen: one shared default is safe)
    time_limit: float | None = None,
) -> Deferred[BotReport]:
    """Run `count` bots against host:port until each has seen `hands` hands (or left early,
    `BotSettings`); fires the report. At `time_limit` seconds every bot leaves.

    With `policy` (`pokerroom.table.bot_policy.POLICIES`) the bots act by it. `reactor` keeps
    the time too (IReactorTime).
    """
    report = report if report is not None else BotReport()
    clock: IReactorTime = reactor  # type: ignore[assignment]  # every real reactor keeps time
    rng = random.Random(seed)
    endpoint = TCP4ClientEndpoint(reactor, host, port)
    bots = [
        Bot(
            f"{prefix}_{i}",
            hands,
            random.Random(rng.random()),
            report,
            say,
            policy,
            clock=clock,
            settings=settings,
        )
        for i in range(count)
    ]
    plan: list[str] = []

    def pick_for(index: int) -> Callable[[list[dict[str, Any]]], dict[str, Any] | None]:
        def pick(tables: list[dict[str, Any]]) -> dict[str, Any] | None:
            if not plan:
                plan.extend(assign_tables(count, tables))
            planned = next((t for t in tables if t["table_id"] == plan[index]), None)
            return planned or next_table(tables, set(), empty_ok=True)

        return pick

    def settled(result: object, bot: Bot) -> object:
        report.unfinished.pop(bot.name, None)
        return result

    def crashed(failure: Failure, bot: Bot) -> bool | None:
        bot.fail("session", failure)
        return bot.finished.called or None

    def stop_all() -> None:
        for bot in bots:
            bot.stop()

    limit = None if time_limit is None else clock.callLater(time_limit, stop_all)

    def done(result: object) -> BotReport:
        if limit is not None and limit.active():
            limit.cancel()
        return report

    runs: list[Deferred[object]] = []
    for index, bot in enumerate(bots):
        report.unfinished[bot.name] = "connecting"
        d = bot.run(endpoint, pick_for(index))
        runs.append(d.addBoth(settled, bot).addErrback(crashed, bot))
    return gatherResults(runs).addCallback(done)
