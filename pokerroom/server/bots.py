"""Bot players over the real protocol: `pokerroom bots` and `pokerroom demo` use them.

Each bot connects, registers (or logs in), funds its wallet with the dev `deposit`, sits at
a table and plays legal actions (seeded choices) until it has seen `hands` hands, then leaves:
a seeded random choice, or a policy of `pokerroom.table.bot_policy` (the functions the
in-process tournament simulation uses) fed with what the frames told the bot.

A bot never waits for ever (`BotSettings`): one left alone at its table (everyone else gone or
sitting out), or at a table that has dealt nothing for `idle_seconds`, moves to the table with
the most players (at most `moves` times), else leaves; one sat out (busted) leaves; at the
time limit every bot leaves. Why each bot left early is in the report. Waiting and leaving
early are not errors: every error answer (but the refusals of `REFUSED`, after which the bot
tries another table) counts as a protocol error, and so does every frame that does not match
its typed declaration (`pokerroom.protocol.catalog.validate`: unknown type, missing, extra or
wrongly typed field). Every frame is checked for leaks (C-15): a bot must never see a card that
is not its own, on the board, or shown.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.endpoints import connectProtocol
from twisted.internet.interfaces import (
    IDelayedCall,
    IReactorTime,
    IStreamClientEndpoint,
)
from twisted.internet.task import deferLater
from twisted.python.failure import Failure

from pokerroom.protocol.catalog import FrameMismatch, validate
from pokerroom.protocol.client import ClientProtocol
from pokerroom.protocol.errors import ProtocolError
from pokerroom.server.bot_hand import HandSeen, card_lists
from pokerroom.table.bot_policy import Policy

PASSWORD = "bot password 1"

#: Answers to `sit` that are the room's rules, not a bot's mistake: the bot tries another
#: table (C-1 cap, C-8 block, C-10 minimum, a full or closed table).
REFUSED = frozenset(
    {
        "table_full",
        "seat_taken",
        "blocked",
        "rathole_minimum",
        "table_closed",
        "table_cap_reached",
    }
)

#: Why a bot stopped playing (`Bot.end`): its hands are done; anything else is leaving early.
HANDS, BUSTED, ALONE, IDLE, STOP = "hands", "busted", "alone", "idle", "time limit"


@dataclass(frozen=True, slots=True)
class BotSettings:
    """When a bot stops waiting: `idle_seconds` without a hand at its table (None: never), and
    how many times it may move to another table before it leaves."""

    idle_seconds: float | None = None
    moves: int = 2


@dataclass
class BotReport:
    """What the bots saw: errors (must be none), leaks (must be none), hands played, and why
    each bot that stopped before its hands left."""

    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    hands: dict[str, set[str]] = field(default_factory=dict)  # table -> hand ids seen ended
    unfinished: dict[str, str] = field(default_factory=dict)  # bot -> what it waits for
    left_early: dict[str, str] = field(default_factory=dict)  # bot -> why, in words
    moves: int = 0  # tables changed by bots left alone or idle

    @property
    def ok(self) -> bool:
        """True if no protocol error and no leak happened."""
        return not self.errors and not self.leaks


def money(cents: int) -> str:
    """Cents as 12.34 (display only; money stays an int everywhere else)."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}{whole}.{rest:02d}"


def next_table(
    tables: list[dict[str, Any]], avoid: set[str], *, empty_ok: bool = False
) -> dict[str, Any] | None:
    """Where a bot goes next: a table not in `avoid` with a free seat and the most players
    (ties: the first table_id); an empty one only if `empty_ok`."""
    free = [
        t
        for t in tables
        if t["table_id"] not in avoid
        and t["players"] < t["max_seats"]
        and (empty_ok or t["players"] > 0)
    ]
    return min(free, key=lambda t: (-t["players"], t["table_id"]), default=None)


class Bot:
    """One bot client."""

    def __init__(
        self,
        name: str,
        hands: int,
        rng: random.Random,
        report: BotReport,
        say: Callable[[str], None] | None = None,
        policy: Policy | None = None,
        *,
        clock: IReactorTime | None = None,
        settings: BotSettings = BotSettings(),
    ) -> None:
        self.name, self.hands, self.rng, self.report = name, hands, rng, report
        self.say = say
        self.policy = policy
        self.clock, self.settings = clock, settings
        self.hand = HandSeen()
        self.table_id = ""
        self.seat: int | None = None
        self.seen = 0  # hands seen ended, at every table
        self.here = 0  # ... at this table
        self.seated: set[str] = set()
        self.resting: set[str] = set()  # seated players sitting out
        self.allowed: set[str] = set()  # own hole cards, board and shown cards of this hand
        self.finished: Deferred[None] = Deferred()  # fires when the bot has left for good
        self.playing: Deferred[str] | None = None  # fires with why the bot stops at this table
        self.client = ClientProtocol(self.on_event, self.check_frame)
        self.leaving = False
        self.stopping = False  # the time limit: sit nowhere again
        self.idle: IDelayedCall | None = None
        self.names: dict[int, str] = {}
        self.won: list[str] = []

    def check_frame(self, frame: dict[str, Any]) -> None:
        """Every frame must match its typed declaration (docs/PROTOCOL.md): an unknown type,
        a missing, extra or wrongly typed field is a protocol error."""
        try:
            validate(frame)
        except FrameMismatch as exc:
            self.report.errors.append(f"{self.name} got a frame unlike its declaration: {exc}")

    def fail(self, what: str, failure: Failure | BaseException) -> None:
        """Record a protocol error."""
        value = getattr(failure, "value", failure)
        code = value.code if isinstance(value, ProtocolError) else repr(value)
        self.report.errors.append(f"{self.name} {what}: {code}")

    @inlineCallbacks
    def run(
        self,
        endpoint: IStreamClientEndpoint,
        pick: Callable[[list[dict[str, Any]]], dict[str, Any] | None],
    ) -> Generator[Deferred[Any], Any, None]:
        """Connect, then `play`; fires when the bot has left and disconnected."""
        yield connectProtocol(endpoint, self.client)
        try:
            yield self.play(pick)
        finally:
            self._quiet()
            c = self.client
            if c.connected and c.transport is not None:
                c.transport.loseConnection()
                yield c.lost_d

    @inlineCallbacks
    def play(
        self, pick: Callable[[list[dict[str, Any]]], dict[str, Any] | None]
    ) -> Generator[Deferred[Any], Any, None]:
        """Log in, then sit and play; move on when alone or idle; fires once the bot has left
        its last table (`report.left_early` says why if that was before its hands)."""
        c = self.client
        yield c.request("hello", version=1, client="desktop", agent="pokerroom-bot")
        try:
            yield c.request("register", name=self.name, password=PASSWORD)
        except ProtocolError as exc:
            if exc.code != "name_taken":
                raise
            yield c.request("login", name=self.name, password=PASSWORD)
        tables = yield self.lobby()
        table = pick(tables) if tables else None
        tried: set[str] = set()  # tables left or refused: not again
        moves = self.settings.moves
        why, note = "no table in the lobby", ""
        while table is not None and not self.stopping:
            tried.add(table["table_id"])
            why = yield self.sit_and_play(table)
            if why in (HANDS, BUSTED, STOP):
                break
            if moves <= 0:
                note = f"moved {self.settings.moves} times already"
                break
            tables = yield self.lobby()
            table = next_table(tables, tried, empty_ok=why.startswith("refused"))
            if table is None:
                note = "no other table with players"
                break
            moves -= 1
            self.report.moves += 1
        if self.stopping:
            why = STOP
        if why != HANDS:
            at = f" at {self.table_id}" if self.table_id and " at " not in why else ""
            note = f" ({note})" if note else ""
            self.report.left_early[self.name] = f"{why}{at} after {self.seen} hands{note}"
        if not self.finished.called:
            self.finished.callback(None)

    @inlineCallbacks
    def lobby(self) -> Generator[Deferred[Any], Any, list[dict[str, Any]]]:
        """Every cash table of the lobby (a page at a time); asked again for a while when it
        is empty (a room that has just opened its port may not list its tables yet)."""
        tables: list[dict[str, Any]] = []
        for _ in range(10):
            while True:
                page = yield self.client.request("lobby_list", offset=len(tables))
                tables += page["tables"]
                if not page["tables"] or len(tables) >= page["total"]:
                    break
            if tables or self.clock is None or self.stopping:
                break
            yield deferLater(self.clock, 0.5, lambda: None)
        return tables

    @inlineCallbacks
    def sit_and_play(self, table: dict[str, Any]) -> Generator[Deferred[Any], Any, str]:
        """Fund, sit, play until `end`; stand up and close the table. Fires with why the bot
        stopped there (`refused <code> at <table>` when the table would not seat it)."""
        c = self.client
        yield c.request("deposit", amount=table["max_buy_in"])
        # Followed from now on: the seat and the snapshot come before the answer to `sit`.
        self.table_id, self.here, self.leaving = table["table_id"], 0, True
        self.seated, self.resting = set(), set()
        try:
            result = yield c.request("sit", table_id=self.table_id, buy_in=table["max_buy_in"])
        except ProtocolError as exc:
            if exc.code not in REFUSED:
                raise
            return f"refused {exc.code} at {table['table_id']}"
        self.seat, self.leaving = result["seat"], False
        self.report.unfinished[self.name] = f"playing at {self.table_id}"
        self.playing = Deferred()
        self._rearm()
        if self.stopping:
            self.end(STOP)
        elif self.seen >= self.hands:
            self.end(HANDS)
        why: str = yield self.playing
        self.report.unfinished[self.name] = f"leaving {self.table_id} after {self.seen} hands"
        try:
            yield c.request("leave", table_id=self.table_id)
        except ProtocolError as exc:
            self.fail("leave", exc)
        else:  # stop following it (a table left stays open for watching)
            yield c.request("unobserve", table_id=self.table_id).addErrback(lambda _: None)
        return why

    def end(self, why: str) -> None:
        """Stop playing at this table (once): `sit_and_play` stands up."""
        if self.leaving or self.playing is None or self.playing.called:
            return
        self.leaving = True
        self._quiet()
        self.playing.callback(why)

    def stop(self) -> None:
        """The time limit: leave the table and sit nowhere again."""
        self.stopping = True
        self.end(STOP)

    def _rearm(self) -> None:
        """Restart the idle clock: the table showed life."""
        self._quiet()
        if self.clock is not None and self.settings.idle_seconds is not None:
            self.idle = self.clock.callLater(self.settings.idle_seconds, self.end, IDLE)

    def _quiet(self) -> None:
        if self.idle is not None and self.idle.active():
            self.idle.cancel()
        self.idle = None

    def on_event(self, frame: dict[str, Any]) -> None:
        """Follow the table, check for leaks, act when asked."""
        kind = frame.get("type")
        if frame.get("table_id") not in (None, self.table_id):
            return
        if kind == "hand_started":
            self.allowed = set()
            self.names = {s["seat"]: s["player"] for s in frame["seats"]}
            self.won = []
            self.hand = HandSeen.started(frame, self.name)
        elif kind in ("blind_posted", "player_acted", "pot_returned", "board_dealt", "hole_cards"):
            self.hand.follow(frame)
        if kind in ("hole_cards", "board_dealt", "hand_shown"):
            self.allowed.update(frame.get("cards", []))
        elif kind == "table_snapshot" and frame["snapshot"].get("hand"):
            hand = frame["snapshot"]["hand"]
            self.allowed.update(hand["board"])
            if len(hand["board"]) == 5 and hand["actor"] is None:  # showdown: shown is public
                for seat in hand["seats"]:
                    self.allowed.update(seat.get("cards", []))
        for cards in card_lists(frame):
            stray = [card for card in cards if card not in self.allowed]
            if stray:
                self.report.leaks.append(f"{self.name} saw {stray} in {kind}")
        if frame.get("table_id") is not None and kind != "table_snapshot" and not self.leaving:
            self._rearm()  # the table moves (the snapshot follows the bot's own sit)
        if kind == "table_snapshot":
            seats = frame["snapshot"]["seats"]
            self.seated = {s["player"] for s in seats}
            self.resting = {s["player"] for s in seats if s["sitting_out"]}
        elif kind == "seat_taken":
            self.seated.add(frame["player"])
        elif kind in ("seat_left", "player_sat_out", "player_sat_in"):
            who = frame["player"]
            if kind == "seat_left":
                self.seated.discard(who)
            (self.resting.add if kind == "player_sat_out" else self.resting.discard)(who)
            if who == self.name and kind == "player_sat_out":
                self.end(BUSTED)  # busted (no_chips) or timed out: stand up
            elif not self.seated - self.resting - {self.name}:
                self.end(ALONE)  # nobody left to play with: move or leave
        elif kind == "action_request" and not self.leaving:
            self.act(frame)
        elif kind == "pot_awarded":
            for share in frame.get("shares", []):
                who = self.names.get(share["seat"], share["seat"])
                self.won.append(f"{who} wins {money(share['amount'])}")
        elif kind == "hand_ended" and not self.leaving:
            self.seen += 1
            self.here += 1
            seen = self.report.hands.setdefault(self.table_id, set())
            if frame["hand_id"] not in seen and self.say is not None:
                self.say(
                    f"{frame['hand_id']:>24}  {', '.join(self.won)}  (rake {money(frame['rake'])})"
                )
            seen.add(frame["hand_id"])
            if self.seen >= self.hands:
                self.end(HANDS)

    def act(self, frame: dict[str, Any]) -> None:
        """Choose a legal action (seeded): the policy's, or mostly check/call, sometimes raise
        or fold."""
        actions = frame["actions"]
        roll = self.rng.random()
        low, high = actions.get("min_raise_to"), actions.get("max_raise_to")
        if self.policy is not None and self.hand.hole:
            kind, amount = self.policy(self.hand.situation(actions), roll)
        elif roll < 0.15 and low is not None:
            kind, amount = "raise", self.rng.choice([low, low, high or low])
        elif roll < 0.25 and actions["fold"] and actions["call"]:
            kind, amount = "fold", None
        elif actions["check"]:
            kind, amount = "check", None
        else:
            kind, amount = "call", None
        fields: dict[str, Any] = {"table_id": self.table_id, "action": kind}
        if amount is not None:
            fields["amount"] = amount
        self.client.request("act", **fields).addErrback(lambda f: self.fail(f"act {kind}", f))

    def leave(self) -> None:
        """Stand up once (the bot's hands are done)."""
        self.end(HANDS)
