"""Bot players over the real protocol: `pokerroom bots` and `pokerroom demo` use them.

Each bot connects, registers (or logs in), funds its wallet with the dev `deposit`, sits at
a table and plays legal actions (seeded choices) until its table has dealt `hands` hands,
then leaves: a seeded random choice, or a policy of `pokerroom.table.bot_policy` (the functions
the in-process tournament simulation uses) fed with what the frames told the bot. Every error
answer counts as a protocol error, and so does every frame that does not match its typed
declaration (`pokerroom.protocol.events.validate`: unknown type, missing, extra or wrongly typed
field). Every frame is checked for leaks (C-15): a bot must never see a
card that is not its own, on the board, or shown.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from twisted.internet.defer import Deferred, gatherResults, inlineCallbacks
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol
from twisted.internet.interfaces import IReactorTCP, IStreamClientEndpoint
from twisted.python.failure import Failure

from pokerroom.protocol.client import ClientProtocol
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import FrameMismatch, validate
from pokerroom.table.bot_policy import Policy, Situation

PASSWORD = "bot password 1"


@dataclass
class BotReport:
    """What the bots saw: errors (must be none), leaks (must be none), hands played."""

    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    hands: dict[str, set[str]] = field(default_factory=dict)  # table -> hand ids seen ended
    unfinished: dict[str, str] = field(default_factory=dict)  # bot -> what it waits for

    @property
    def ok(self) -> bool:
        """True if no protocol error and no leak happened."""
        return not self.errors and not self.leaks


def money(cents: int) -> str:
    """Cents as 12.34 (display only; money stays an int everywhere else)."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}{whole}.{rest:02d}"


def card_lists(value: object) -> list[list[str]]:
    """Every `cards` list anywhere inside a frame."""
    found: list[list[str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "cards" and isinstance(item, list):
                found.append([c for c in item if isinstance(c, str)])
            else:
                found += card_lists(item)
    elif isinstance(value, list):
        for item in value:
            found += card_lists(item)
    return found


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
    ) -> None:
        self.name, self.hands, self.rng, self.report = name, hands, rng, report
        self.say = say
        self.policy = policy
        self.hand = HandSeen()
        self.table_id = ""
        self.seat: int | None = None
        self.seen = 0
        self.seated: set[str] = set()
        self.resting: set[str] = set()  # seated players sitting out
        self.allowed: set[str] = set()  # own hole cards, board and shown cards of this hand
        self.finished: Deferred[None] = Deferred()
        self.client = ClientProtocol(self.on_event, self.check_frame)
        self.leaving = False
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
        pick: Callable[[list[dict[str, Any]]], dict[str, Any]],
    ) -> Generator[Deferred[Any], Any, None]:
        """Connect, log in, fund, sit; fires when the bot has left and disconnected."""
        yield connectProtocol(endpoint, self.client)
        c = self.client
        yield c.request("hello", version=1, client="desktop", agent="pokerroom-bot")
        try:
            yield c.request("register", name=self.name, password=PASSWORD)
        except ProtocolError as exc:
            if exc.code != "name_taken":
                raise
            yield c.request("login", name=self.name, password=PASSWORD)
        tables: list[dict[str, Any]] = []
        while True:  # the lobby answers a page at a time
            page = yield c.request("lobby_list", offset=len(tables))
            tables += page["tables"]
            if not page["tables"] or len(tables) >= page["total"]:
                break
        table = pick(tables)
        self.table_id = table["table_id"]
        yield c.request("deposit", amount=table["max_buy_in"] * 10)
        result = yield c.request("sit", table_id=self.table_id, buy_in=table["max_buy_in"])
        self.seat = result["seat"]
        self.report.unfinished[self.name] = f"playing at {self.table_id}"
        yield self.finished
        assert c.transport is not None  # connected above
        c.transport.loseConnection()
        yield c.lost_d

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
                self.leave()  # busted (no_chips) or timed out: stand up
            elif len(self.seated - self.resting) < 2 and self.seen:
                self.leave()  # nobody left to play with
        elif kind == "action_request" and not self.leaving:
            self.act(frame)
        elif kind == "pot_awarded":
            for share in frame.get("shares", []):
                who = self.names.get(share["seat"], share["seat"])
                self.won.append(f"{who} wins {money(share['amount'])}")
        elif kind == "hand_ended":
            self.seen += 1
            seen = self.report.hands.setdefault(self.table_id, set())
            if frame["hand_id"] not in seen and self.say is not None:
                self.say(
                    f"{frame['hand_id']:>24}  {', '.join(self.won)}  (rake {money(frame['rake'])})"
                )
            seen.add(frame["hand_id"])
            if self.seen >= self.hands:
                self.leave()

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
        """Stand up once."""
        if self.leaving:
            return
        self.leaving = True
        self.report.unfinished[self.name] = f"leaving {self.table_id} after {self.seen} hands"
        d = self.client.request("leave", table_id=self.table_id)
        d.addErrback(lambda f: self.fail("leave", f))
        d.addBoth(lambda _: self.finished.callback(None))


@dataclass
class HandSeen:
    """One hand as a bot follows it from the frames: what a policy's `Situation` needs."""

    me: int | None = None  # own seat
    stack: int = 0  # own chips at the start of the hand
    big_blind: int = 0
    dealt: int = 0
    folded: int = 0
    pot: int = 0
    put_in: int = 0  # own chips in the pot
    hole: tuple[str, ...] = ()
    board: tuple[str, ...] = ()

    @classmethod
    def started(cls, frame: dict[str, Any], name: str) -> HandSeen:
        """A new hand from `hand_started`."""
        mine = next((s for s in frame["seats"] if s["player"] == name), None)
        return cls(
            me=mine["seat"] if mine else None,
            stack=mine["stack"] if mine else 0,
            big_blind=frame["blinds"][1],
            dealt=len(frame["seats"]),
        )

    def follow(self, frame: dict[str, Any]) -> None:
        """Count chips into the pot (posts, calls, bets, returns), folds, cards."""
        kind = frame["type"]
        added = 0
        if kind == "blind_posted":
            added = frame["amount"]
        elif kind == "player_acted":
            action = frame["action"]
            if action == "fold":
                self.folded += 1
            elif action == "call":
                added = frame["amount"] or 0
            elif action in ("bet", "raise"):
                added = frame.get("added") or 0
        elif kind == "pot_returned":
            added = -frame["amount"]
        elif kind == "board_dealt":
            self.board += tuple(frame["cards"])
        elif kind == "hole_cards":
            self.hole = tuple(frame["cards"])
        self.pot += added
        if frame.get("seat") == self.me and self.me is not None:
            self.put_in += added

    def situation(self, actions: dict[str, Any]) -> Situation:
        """What the policy needs, with the legal actions of `action_request`."""
        return Situation(
            hole=self.hole,
            board=self.board,
            stack=self.stack,
            behind=self.stack - self.put_in,
            big_blind=self.big_blind,
            pot=self.pot,
            dealt=self.dealt,
            live=self.dealt - self.folded,
            can_fold=actions["fold"],
            call=actions["call"],
            min_raise_to=actions.get("min_raise_to"),
            max_raise_to=actions.get("max_raise_to"),
        )


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
) -> Deferred[BotReport]:
    """Run `count` bots against host:port until each has seen `hands` hands; fires the report.

    With `policy` (`pokerroom.table.bot_policy.POLICIES`) the bots act by it.
    """
    report = report if report is not None else BotReport()
    rng = random.Random(seed)
    endpoint = TCP4ClientEndpoint(reactor, host, port)
    bots = [
        Bot(f"{prefix}_{i}", hands, random.Random(rng.random()), report, say, policy)
        for i in range(count)
    ]
    plan: list[str] = []

    def pick_for(index: int) -> Callable[[list[dict[str, Any]]], dict[str, Any]]:
        def pick(tables: list[dict[str, Any]]) -> dict[str, Any]:
            if not plan:
                plan.extend(assign_tables(count, tables))
            return next(t for t in tables if t["table_id"] == plan[index])

        return pick

    def settled(result: object, bot: Bot) -> object:
        report.unfinished.pop(bot.name, None)
        return result

    def crashed(failure: Failure, bot: Bot) -> bool | None:
        bot.fail("session", failure)
        return bot.finished.called or None

    runs: list[Deferred[object]] = []
    for index, bot in enumerate(bots):
        report.unfinished[bot.name] = "connecting"
        d = bot.run(endpoint, pick_for(index))
        runs.append(d.addBoth(settled, bot).addErrback(crashed, bot))
    return gatherResults(runs).addCallback(lambda _: report)
