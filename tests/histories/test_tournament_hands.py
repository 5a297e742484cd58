"""Tournament hands in the hand histories (docs/HISTORIES.md): real tournaments played by bots
on SQLite and PostgreSQL store every completed hand once, in the hand's own unit, with the
stacks the room played; `pokerroom hands export` writes them in PokerStars' tournament form
(chips, antes, `Level`, `Table '<tournament> <n>'`) and PokerKit's parser replays every one to
the stored stacks; a player reads only the hands they played, with only their own and the shown
hole cards (C-15), over the protocol too; hand ids stay unique across a crash and a resume."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from pokerroom.cash.histories import StoredHand, player_history_page, stored_hands
from pokerroom.cli import main
from pokerroom.engine.pokerstars import SEPARATOR, stars_number
from pokerroom.protocol.events import HandEnded, ServerMessage
from tests.histories.stars_parser import assert_same_result, chips
from tests.histories.test_export_cli import DEALT, SHOWN, holes
from tests.postgres import fresh_pg_schema
from tests.server.conftest import CountingLedger
from tests.server.harness import Room as ServerRoom
from tests.tournaments.actor_harness import Room
from tournaments.config import make_config
from tournaments.director.structure import AnteKind, Level, Structure
from tournaments.ops.simulation import START, Bots
from tournaments.store.schema import tournament_hand_histories

LEVELS = tuple(Level(10 * 2**i, 20 * 2**i, ante=5 * 2**i, seconds=30) for i in range(14))
BUY_IN, FEE = 920, 80
PLAYERS = 12
HEADER = re.compile(
    r"^PokerStars Hand #\d+: Tournament #(?P<tid>\d+), \$9\.20\+\$0\.80 USD Hold'em No Limit"
    r" - Level (?P<level>[IVXL]+) \((?P<sb>\d+)/(?P<bb>\d+)\) - \d{4}/\d\d/\d\d \d+:\d\d:\d\d UTC"
    r" \[\d{4}/\d\d/\d\d \d+:\d\d:\d\d ET\]$"
)
TABLE = re.compile(
    r"^Table '(?P<tid>\d+) (?P<table>\d+)' 9-max Seat #(?P<button>\d) is the button$"
)


def play(room: Room, tid: str, ante: AnteKind, seed: int) -> Any:
    """A 12-player sit-and-go (two tables, then one) played to the end by seeded bots."""
    structure = Structure(f"hh-{ante}", 1500, LEVELS, ante)
    cfg = make_config(
        tid, structure, buy_in=BUY_IN, fee=FEE, sit_and_go=True, max_entries=PLAYERS,
        starts_at=START + 600,
    )  # fmt: skip
    actor = room.actor(cfg, Bots(random.Random(seed)))
    for n in range(PLAYERS):
        room.fund_player(f"{tid}p{n:02d}", 10_000)
        room.wait(actor.register(f"{tid}p{n:02d}"))
    room.run_to_end(actor)
    assert actor.status == "finished"
    return actor


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]
)
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, list[StoredHand], dict[str, int]]]:
    """The database URL, its stored hands (oldest first) and each tournament's chips: one
    tournament with classic antes (`c1`) and one with big-blind antes (`b1`)."""
    path = tmp_path_factory.mktemp("th")

    def run(url: str | None) -> Iterator[tuple[str, list[StoredHand], dict[str, int]]]:
        room = Room(path, url)
        try:
            issued = {}
            for tid, ante, seed in (("c1", AnteKind.CLASSIC, 3), ("b1", AnteKind.BIG_BLIND, 4)):
                issued[tid] = play(room, tid, ante, seed).chips_issued
            with room.engine.connect() as conn:
                hands = stored_hands(conn)
            yield url or f"sqlite:///{path / 'room.sqlite'}", hands, issued
        finally:
            room.close()

    if request.param == "sqlite":
        yield from run(None)
        return
    with fresh_pg_schema("histories_test") as url:
        yield from run(url)


def tournament_of(hand: StoredHand) -> str:
    return str(hand.fields["_tournament_id"])


def number_of(hand: StoredHand) -> int:
    return int(hand.hand_id.split(":")[2].split("r")[0])


def check_every_hand_once(
    hands: list[StoredHand], issued: dict[str, int], start: int = 1500, tables: int = 4
) -> None:
    """Each table's hands are numbered 1, 2, ... without a gap; each player's hands follow
    one another (a hand starts with the stack the last one left); the last hand of each
    tournament leaves every chip with its winner."""
    assert len({h.hand_id for h in hands}) == len(hands)
    by_table: dict[str, list[int]] = defaultdict(list)
    for hand in hands:
        assert hand.table_id == f"{tournament_of(hand)}.{hand.fields['_table_id']}"
        by_table[hand.table_id].append(number_of(hand))
    assert len(by_table) >= tables  # two tables each, the second one broken at the end
    for table, numbers in by_table.items():
        assert sorted(numbers) == list(range(1, len(numbers) + 1)), table
    left: dict[str, int] = {}
    for hand in sorted(hands, key=lambda h: (h.ended_at_ms, h.fields["_started_at_ms"])):
        f = hand.fields
        for player, stack, end in zip(
            f["players"], f["starting_stacks"], f["finishing_stacks"], strict=True
        ):
            assert left.get(player, start) == stack, (player, hand.hand_id)
            left[player] = end
    for tid, total in issued.items():
        last = [h for h in hands if tournament_of(h) == tid][-1]
        assert sorted(last.fields["finishing_stacks"])[-1] == total


def test_every_completed_hand_is_stored_once_with_the_room_stacks(
    played: tuple[str, list[StoredHand], dict[str, int]],
) -> None:
    """T-18 unit: every hand of both tournaments, each once, as the room played it."""
    _, hands, issued = played
    assert {tournament_of(h) for h in hands} == {"c1", "b1"}
    assert len(hands) >= 40
    assert issued == {"c1": PLAYERS * 1500, "b1": PLAYERS * 1500}
    check_every_hand_once(hands, issued)


def test_a_retried_write_adds_nothing(
    played: tuple[str, list[StoredHand], dict[str, int]],
) -> None:
    """The write of a hand's record run again (the ledger retries through an outage, a commit
    whose answer was lost) finds it stored: no error, no second row, the record unchanged."""
    from pokerroom.ledger import make_engine
    from pokerroom.ledger.db import in_transaction
    from tournaments.store.hand_histories import HandHistoryRow, record_hand_history

    url, hands, _ = played
    first = hands[0]
    row = HandHistoryRow(
        first.hand_id, tournament_of(first), first.table_id, first.ended_at_ms + 5,
        ["someone", *first.fields["players"]], {**first.fields, "hand": -1},
    )  # fmt: skip
    engine = make_engine(url)
    try:
        for _ in range(2):
            in_transaction(engine, lambda conn: record_hand_history(conn, row))
        with engine.connect() as conn:
            again = stored_hands(conn)
            assert stored_hands(conn, player_id="someone") == []
    finally:
        engine.dispose()
    assert again == hands


def run_export(*args: str) -> Any:
    return CliRunner().invoke(main, ["hands", "export", *args])


def texts(output: str) -> list[str]:
    return [t.strip() + "\n" for t in output.split(SEPARATOR) if t.strip()]


def test_staff_export_is_pokerstars_tournament_text_that_pokerkit_replays(
    played: tuple[str, list[StoredHand], dict[str, int]],
) -> None:
    """The tournament header, chips, antes of both kinds; PokerKit's replay of every hand
    ends with the stacks stored (no rake in a tournament)."""
    url, hands, _ = played
    for tid, ante_lines in (("c1", "all"), ("b1", "one")):
        result = run_export("--db", url, "--tournament", tid)
        assert result.exit_code == 0, result.output
        exported = texts(result.stdout)
        mine = [h for h in hands if tournament_of(h) == tid]
        assert len(exported) == len(mine)
        levels = set()
        for text, hand in zip(exported, mine, strict=True):
            first, second, rest = text.split("\n", 2)
            header = HEADER.match(first)
            table = TABLE.match(second)
            assert header is not None and table is not None, (first, second)
            assert int(header["tid"]) == int(table["tid"]) == stars_number(tid)
            assert table["table"] == str(hand.fields["_table_id"])
            levels.add(header["level"])
            assert "$" not in rest and "| Rake 0\n" in rest  # chips, and no rake
            antes = rest.count(": posts the ante ")
            dealt = len(hand.fields["players"])
            assert antes == (dealt if ante_lines == "all" else 1), text
            assert {p: c.split() for p, c in DEALT.findall(text)} == holes(hand)
            paid = zip(hand.fields["players"], hand.fields["finishing_stacks"], strict=True)
            assert_same_result(text, dict(paid), chips)
        assert len(levels) >= 2  # the level moves on in the header


def test_a_player_reads_only_the_hands_they_played(  # C-15
    played: tuple[str, list[StoredHand], dict[str, int]],
) -> None:
    """C-15: `--player` and the request's page hold the player's own hands only, `Dealt to`
    them alone; another player's cards appear only where shown down."""
    url, hands, _ = played
    player = "c1p05"
    mine = [h for h in hands if player in h.fields["players"]]
    assert 0 < len(mine) < len([h for h in hands if tournament_of(h) == "c1"])
    result = run_export("--db", url, "--player", player)
    assert result.exit_code == 0, result.output
    exported = texts(result.stdout)
    assert len(exported) == len(mine)
    hidden = 0
    for text, hand in zip(exported, mine, strict=True):
        assert DEALT.findall(text) == [(player, " ".join(holes(hand)[player]))]
        shown = {c for cards in SHOWN.findall(text) for c in cards.split()}
        for other, cards in holes(hand).items():
            for card in cards:
                if other != player and card not in shown:
                    hidden += 1
                    assert card not in text, (other, card, text)
    assert hidden >= 5
    from pokerroom.ledger import make_engine

    engine = make_engine(url)
    try:
        page = player_history_page(engine, player, limit=100, fmt="pokerstars")
        phh = player_history_page(engine, player, limit=100)
    finally:
        engine.dispose()
    assert [t for _, t in page] == list(reversed(exported))
    others = {p for h in mine for p in h.fields["players"]} - {player}
    assert all("??" in t for _, t in phh) and others


def every_page(client: Any, **fields: Any) -> list[str]:
    """Every hand `hand_histories` gives, following `next` to the oldest."""
    page = client.ok("hand_histories", limit=100, **fields)
    got = list(page["hands"])
    while page["next"] is not None:
        page = client.ok("hand_histories", limit=100, before=page["next"], **fields)
        got += page["hands"]
    return got


def test_hand_histories_request_serves_tournament_hands(
    played: tuple[str, list[StoredHand], dict[str, int]],
) -> None:
    """`hand_histories` over the protocol: the player's tournament hands, one table of them
    by its client id (`<tournament>.<n>`), PokerStars text or PHH."""
    url, hands, _ = played
    from twisted.internet.task import Clock

    from pokerroom.ledger import make_engine
    from tests.ledger.conftest import QueueReactor

    player = "b1p03"
    engine = make_engine(url)
    reactor = QueueReactor()
    ledger = CountingLedger(reactor, engine)
    ledger.startService()
    room = ServerRoom(reactor, Clock(), ledger)
    try:
        client = room.client()
        client.login(player)
        mine = [h for h in hands if player in h.fields["players"]]
        got = every_page(client, format="pokerstars")
        assert len(got) == len(mine) and all("Tournament #" in t for t in got)
        assert all([who for who, _ in DEALT.findall(t)] == [player] for t in got)
        table = mine[-1].table_id
        at_table = every_page(client, table_id=table)  # PHH, the default
        assert len(at_table) == sum(1 for h in mine if h.table_id == table) > 0
        assert all(f"_table_id = '{table.split('.')[1]}'" in t for t in at_table)
    finally:
        room.stop()
        ledger.stopService()
        engine.dispose()


@pytest.mark.parametrize("db", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def test_hand_ids_stay_unique_across_a_crash_and_resume(db: str, tmp_path: Path) -> None:
    """T-18: killed with hands in progress (dealt, not stored: no record of them), resumed
    within the window: the tables deal those numbers again as `<n>r1`, every hand is stored
    once, and the stacks run on from the stored ones to the winner's."""
    from tests.tournaments.test_durable import Restart, Staller, advance, crashed_mtt, play_until

    def run(url: str | None) -> None:
        room = Room(tmp_path, url)
        try:
            bots = Staller(random.Random(7))
            actor = crashed_mtt(room, bots, "x9")
            play_until(room, actor, lambda: len(actor.alive) <= 20)
            bots.stalling = True
            while not any(t.hand_running for t in actor.floor.tables.values()):
                advance(room, actor)
            room.wait(actor.pending())
            cut = {t.hand_id for t in actor.floor.tables.values() if t.hand_running}
            with room.engine.connect() as conn:
                before = stored_hands(conn, tournament_id="x9")
            assert cut and not cut & {h.hand_id for h in before}
            assert all("r" not in h.hand_id for h in before)
            bots2 = Bots(random.Random(8))
            restart = Restart(room, 180.0, bots2)
            again = restart.scheduler.actors["x9"]
            bots2.actor = again
            room.run_to_end(again)
            with room.engine.connect() as conn:
                hands = stored_hands(conn, tournament_id="x9")
            after = {h.hand_id for h in hands} - {h.hand_id for h in before}
            assert after and all(h.endswith("r1") for h in after), sorted(after)[:20]
            assert {f"{h}r1" for h in cut} <= after  # the cut hands' numbers, dealt again
            check_every_hand_once(hands, {"x9": again.chips_issued}, start=1000, tables=3)
        finally:
            room.close()

    if db == "sqlite":
        run(None)
        return
    with fresh_pg_schema("histories_resume") as url:
        run(url)


class Telling(Bots):
    """Bots whose table frames go through the tournament's hold, as the desk's do: each
    `hand_ended`, when it reaches the players' side, must find its hand's record stored."""

    def __init__(self, room: Room) -> None:
        super().__init__(random.Random(12))
        self.room = room
        self.hold: Any = None
        self.told: list[str] = []
        self.early: list[str] = []

    def hold_with(self, hold: Any) -> None:
        self.hold = hold

    def table_frames(self) -> Any:
        return self

    def send(self, player_id: str, message: ServerMessage) -> None:
        self.hold(self._delivered, message)

    def broadcast(self, table_id: str, message: ServerMessage, exclude: Any = None) -> None:
        self.hold(self._delivered, message)

    def _delivered(self, message: ServerMessage) -> None:
        if not isinstance(message, HandEnded):
            return
        h = tournament_hand_histories
        with self.room.engine.connect() as conn:
            stored = conn.execute(
                sa.select(h.c.hand_id).where(h.c.hand_id == message.hand_id)
            ).first()
        (self.told if stored is not None else self.early).append(message.hand_id)


def test_a_hand_is_told_only_once_its_record_is_stored(tmp_path: Path) -> None:
    """Persist, then tell (rule 14): the record is in the hand's unit, so a player who hears
    `hand_ended` and asks for the hand finds it."""
    room = Room(tmp_path)
    try:
        bots = Telling(room)
        structure = Structure("told", 1500, LEVELS, AnteKind.CLASSIC)
        cfg = make_config("told", structure, buy_in=BUY_IN, fee=FEE, sit_and_go=True,
                          max_entries=9, starts_at=START + 600)  # fmt: skip
        actor = room.actor(cfg, bots)
        for n in range(9):
            room.fund_player(f"t{n}", 10_000)
            room.wait(actor.register(f"t{n}"))
        room.run_to_end(actor)
        assert actor.status == "finished"
        assert bots.early == [] and len(set(bots.told)) >= 10
    finally:
        room.close()
