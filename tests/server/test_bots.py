"""The bots never wait for ever (`pokerroom bots`, `pokerroom demo`): a bot left alone at its
table, or at a table that deals nothing for `idle_seconds`, moves to the table with the most
players or leaves; at the time limit it leaves. Driven with a fake room and a `task.Clock`."""

from __future__ import annotations

import random
from typing import Any

from twisted.internet.defer import Deferred, succeed
from twisted.internet.task import Clock

from pokerroom.protocol.errors import ProtocolError
from pokerroom.server.bots import Bot, BotReport, BotSettings, next_table


class FakeRoom:
    """Answers a bot's requests as the room does (seat frames before the `sit` answer)."""

    def __init__(self, bot: Bot, tables: dict[str, list[str]], max_seats: int = 6) -> None:
        self.bot, self.tables, self.max_seats = bot, tables, max_seats
        self.requests: list[tuple[str, str | None]] = []
        self.connected, self.transport = True, None
        self.full: set[str] = set()

    def summary(self, table_id: str) -> dict[str, Any]:
        """A lobby line."""
        seated = self.tables[table_id]
        return {"table_id": table_id, "max_seats": self.max_seats, "max_buy_in": 200,
                "players": len(seated)}  # fmt: skip

    def frame(self, table_id: str, kind: str, **fields: Any) -> None:
        """A table event to the bot."""
        self.bot.on_event({"type": kind, "table_id": table_id, **fields})

    def request(self, kind: str, **fields: Any) -> Deferred[dict[str, Any]]:
        """The room's answer."""
        table_id = fields.get("table_id")
        self.requests.append((kind, table_id))
        name = self.bot.name
        if kind == "lobby_list":
            lines = [self.summary(t) for t in sorted(self.tables)][fields.get("offset", 0) :]
            return succeed({"tables": lines, "total": len(self.tables), "offset": 0})
        if kind == "sit":
            assert table_id is not None
            if table_id in self.full:
                failed: Deferred[dict[str, Any]] = Deferred()
                failed.errback(ProtocolError("table_full", "the table is full"))
                return failed
            seated = self.tables[table_id]
            seated.append(name)
            self.frame(table_id, "seat_taken", seat=len(seated) - 1, player=name, stack=200)
            seats = [{"player": p, "sitting_out": False} for p in seated]
            self.frame(table_id, "table_snapshot", snapshot={"seats": seats, "hand": None})
            return succeed({"seat": len(seated) - 1, "stack": 200})
        if kind == "leave":
            assert table_id is not None
            self.tables[table_id].remove(name)
            self.frame(table_id, "seat_left", seat=0, player=name, amount=200)
        return succeed({})

    def others_leave(self, table_id: str) -> None:
        """Everyone but the bot stands up."""
        for player in [p for p in self.tables[table_id] if p != self.bot.name]:
            self.tables[table_id].remove(player)
            self.frame(table_id, "seat_left", seat=1, player=player, amount=0)


def a_bot(clock: Clock, hands: int = 300, idle: float | None = 20.0) -> tuple[Bot, BotReport]:
    """A bot on the fake clock (idle after `idle` seconds, two moves at most)."""
    report = BotReport()
    bot = Bot("bot_9", hands, random.Random(1), report, clock=clock,
              settings=BotSettings(idle_seconds=idle, moves=2))  # fmt: skip
    return bot, report


def first(table_id: str) -> Any:
    """A `pick` that chooses `table_id` as the plan would."""
    return lambda tables: next(t for t in tables if t["table_id"] == table_id)


def test_a_late_bot_alone_at_an_idle_table_moves_to_the_table_with_players() -> None:
    """Everyone at its planned table has gone: after `idle_seconds` without a hand the bot
    stands up and sits where people play; it does not wait there for ever."""
    clock = Clock()
    bot, report = a_bot(clock)
    room = FakeRoom(bot, {"a": [], "b": ["p1", "p2"], "c": ["p3"]})
    bot.client = room  # type: ignore[assignment]  # the fake answers like the room
    done = bot.play(first("a"))
    assert ("sit", "a") in room.requests and bot.table_id == "a"
    clock.advance(19.9)
    assert ("leave", "a") not in room.requests  # not before idle_seconds
    clock.advance(0.1)
    assert ("leave", "a") in room.requests and bot.table_id == "b"  # the most players: b, not c
    assert report.moves == 1 and not done.called and not report.errors


def test_a_bot_at_a_table_that_deals_is_not_idle() -> None:
    """Hands keep coming, each within idle_seconds of the last: the bot stays and plays."""
    clock = Clock()
    bot, report = a_bot(clock, hands=5)
    room = FakeRoom(bot, {"a": ["p1"], "b": ["p2", "p3"]})
    bot.client = room  # type: ignore[assignment]
    done = bot.play(first("a"))
    for n in range(4):
        clock.advance(15)
        room.frame("a", "hand_ended", hand_id=f"a-{n}", rake=0)
    assert ("leave", "a") not in room.requests and bot.seen == 4
    clock.advance(15)
    room.frame("a", "hand_ended", hand_id="a-4", rake=0)
    assert ("leave", "a") in room.requests and ("sit", "b") not in room.requests
    assert done.called and report.left_early == {} and report.moves == 0  # its hands: done


def test_a_bot_left_alone_after_a_hand_moves_at_once_then_leaves_when_no_table_has_players() -> (
    None
):
    """The others bust and leave: the bot does not wait for the idle clock; when no other table
    has players it leaves and says why (not an error)."""
    clock = Clock()
    bot, report = a_bot(clock)
    room = FakeRoom(bot, {"a": ["p1"], "b": ["p2"]})
    bot.client = room  # type: ignore[assignment]
    done = bot.play(first("a"))
    room.frame("a", "hand_ended", hand_id="a-0", rake=0)
    room.others_leave("a")
    assert bot.table_id == "b" and report.moves == 1  # at once, no clock advanced
    room.others_leave("b")
    assert done.called and not report.errors
    assert report.left_early == {"bot_9": "alone at b after 1 hands (no other table with players)"}


def test_a_bot_moves_at_most_its_moves_then_leaves() -> None:
    """Two moves at most: idle tables everywhere do not keep a bot wandering."""
    clock = Clock()
    bot, report = a_bot(clock)
    room = FakeRoom(bot, {"a": [], "b": ["p1"], "c": ["p2"], "d": ["p3"]})
    bot.client = room  # type: ignore[assignment]
    done = bot.play(first("a"))
    for _ in range(3):
        clock.advance(20)
    assert done.called and report.moves == 2
    assert [t for kind, t in room.requests if kind == "sit"] == ["a", "b", "c"]
    assert report.left_early["bot_9"] == "idle at c after 0 hands (moved 2 times already)"


def test_a_refused_seat_is_no_error_the_bot_tries_another_table() -> None:
    """`table_full` (someone took the last seat first) is the room's rule, not a bot's fault."""
    clock = Clock()
    bot, report = a_bot(clock)
    room = FakeRoom(bot, {"a": ["p1"], "b": ["p2"]})
    room.full.add("a")
    bot.client = room  # type: ignore[assignment]
    bot.play(first("a"))
    assert bot.table_id == "b" and not report.errors


def test_the_time_limit_makes_every_bot_leave_and_is_no_error() -> None:
    """`stop()` (the time limit): the bot stands up, sits nowhere again, says why."""
    clock = Clock()
    bot, report = a_bot(clock, idle=None)
    room = FakeRoom(bot, {"a": ["p1"], "b": ["p2", "p3"]})
    bot.client = room  # type: ignore[assignment]
    done = bot.play(first("a"))
    clock.advance(10_000)
    assert not done.called  # no idle clock: it would wait
    bot.stop()
    assert done.called and [k for k, _ in room.requests].count("sit") == 1
    assert report.left_early == {"bot_9": "time limit at a after 0 hands"} and report.ok


def test_next_table_prefers_the_most_players_with_a_free_seat() -> None:
    """Where a moving bot goes: players, a free seat, not a table it left."""
    line = lambda t, n, m=6: {"table_id": t, "players": n, "max_seats": m}  # noqa: E731
    tables = [line("a", 0), line("b", 2), line("c", 5), line("d", 6), line("e", 5)]
    assert next_table(tables, set())["table_id"] == "c"  # type: ignore[index]
    assert next_table(tables, {"c", "e"})["table_id"] == "b"  # type: ignore[index]
    assert next_table([line("a", 0)], set()) is None
    assert next_table([line("a", 0)], set(), empty_ok=True) == line("a", 0)
