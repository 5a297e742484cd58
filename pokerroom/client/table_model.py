"""One table as the client knows it, fed by the server's table events (docs/PROTOCOL.md §6).

Plain Python, no Qt: the table window draws what this holds, and the tests feed it frames.
Times are passed in (`now_ms`, server clock), never read here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pokerroom.client.lobby_model import money

#: The chat lines and hand-log lines kept per table (older ones are dropped).
HISTORY = 200


@dataclass
class SeatState:
    """A seated player: what the snapshot seat and the hand seat say about them."""

    seat: int
    player: str
    stack: int
    bet: int = 0
    sitting_out: bool = False
    waiting: bool = False
    in_hand: bool = False
    folded: bool = False
    disconnected: bool = False
    cards: list[str] | None = None  # own cards, or cards shown down (C-15)
    bounty: int | None = None
    last_action: str = ""


@dataclass(frozen=True)
class Legal:
    """The legal actions of an `action_request`, amounts in chips (or cents at a cash table)."""

    fold: bool
    check: bool
    call: int
    min_raise_to: int | None
    max_raise_to: int | None

    @classmethod
    def from_wire(cls, actions: dict[str, Any]) -> Legal:
        """The `actions` object of an `action_request`."""
        return cls(
            fold=bool(actions["fold"]),
            check=bool(actions["check"]),
            call=int(actions["call"]),
            min_raise_to=actions.get("min_raise_to"),
            max_raise_to=actions.get("max_raise_to"),
        )


@dataclass
class Turn:
    """It is this client's turn: what it may do and until when (C-6 clock, C-7 time bank)."""

    hand_id: str
    seat: int
    legal: Legal
    deadline_ms: int
    timebank_ms: int
    in_timebank: bool = False


@dataclass(frozen=True)
class Clock:
    """What is left of a turn at one moment: the action clock, then the time bank."""

    action_ms: int
    timebank_ms: int


@dataclass(frozen=True)
class ChatEntry:
    """A chat line of the table, or a refusal of one of ours (`error` set, C-13)."""

    player: str
    text: str
    at_ms: int
    error: str = ""


@dataclass
class TableModel:
    """The state of one open table, seen by the logged-in player `me`."""

    table_id: str
    me: str
    variant: str = "NT"
    max_seats: int = 6
    blinds: tuple[int, int] = (0, 0)
    currency: str | None = None
    buy_in: tuple[int, int] | None = None
    button: int | None = None
    tournament_id: str | None = None
    ante: int = 0
    seats: dict[int, SeatState] = field(default_factory=dict)
    hand_id: str | None = None
    hand_over: bool = True
    board: list[str] = field(default_factory=list)
    collected: int = 0  # chips in the pots, the bets of the running street not included
    actor: int | None = None
    actor_deadline_ms: int | None = None
    turn: Turn | None = None
    status: str = ""  # table_paused / table_halted, for people
    results: list[str] = field(default_factory=list)  # the last hand's pots, for people
    chat: list[ChatEntry] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    snapshots: int = 0

    # -- what the window asks ------------------------------------------------------------------
    @property
    def my_seat(self) -> SeatState | None:
        """The seat `me` holds here, if any."""
        return next((s for s in self.seats.values() if s.player == self.me), None)

    @property
    def pot(self) -> int:
        """Every chip put in this hand, the bets of the running street included."""
        return self.collected + sum(s.bet for s in self.seats.values())

    def money(self, amount: int) -> str:
        """An amount as money at a cash table, as chips at a tournament table."""
        return money(amount, self.currency)

    def name_of(self, seat: int) -> str:
        """The player at a seat, or `seat N`."""
        held = self.seats.get(seat)
        return held.player if held is not None else f"seat {seat}"

    def clock(self, now_ms: int) -> Clock | None:
        """What is left of our turn at `now_ms` (server clock): action clock, then time bank."""
        turn = self.turn
        if turn is None:
            return None
        left = max(0, turn.deadline_ms - now_ms)
        if turn.in_timebank:
            return Clock(action_ms=0, timebank_ms=left)
        if left > 0:
            return Clock(action_ms=left, timebank_ms=turn.timebank_ms)
        overdue = now_ms - turn.deadline_ms
        return Clock(action_ms=0, timebank_ms=max(0, turn.timebank_ms - overdue))

    def presets(self) -> dict[str, int]:
        """The ⅓ pot, ½ pot, pot and all-in bet sizes (a "to" total), within the legal range."""
        turn = self.turn
        if turn is None or turn.legal.min_raise_to is None or turn.legal.max_raise_to is None:
            return {}
        low, high = turn.legal.min_raise_to, turn.legal.max_raise_to
        mine = self.my_seat
        my_bet = mine.bet if mine is not None else 0
        to_call = turn.legal.call
        after_call = self.pot + to_call  # the pot once we have called

        def sized(numerator: int, denominator: int) -> int:
            return min(high, max(low, my_bet + to_call + after_call * numerator // denominator))

        return {
            "⅓ pot": sized(1, 3),
            "½ pot": sized(1, 2),
            "pot": sized(1, 1),
            "all-in": high,
        }

    # -- fed by the server -----------------------------------------------------------------------
    def apply(self, event: dict[str, Any]) -> None:
        """Take one table event (its `table_id` is this table's)."""
        handler = getattr(self, "_on_" + str(event.get("type")), None)
        if handler is not None:
            handler(event)

    def topped_up(self, stack: int, pending: int) -> None:
        """Our `top_up` was answered (C-9): the stack now, and chips due after the hand. No
        table event says it (the others see it at the next `hand_started`)."""
        if (mine := self.my_seat) is not None:
            mine.stack = stack
            if pending:
                self._log(f"{self.money(pending)} more after this hand")

    def chat_refused(self, text: str, code: str, message: str, at_ms: int) -> None:
        """One of our chat lines was refused (C-13): shown in the chat with its reason."""
        self._chat(ChatEntry(player=self.me, text=text, at_ms=at_ms, error=f"{code}: {message}"))

    def _chat(self, entry: ChatEntry) -> None:
        self.chat.append(entry)
        del self.chat[:-HISTORY]

    def _log(self, line: str) -> None:
        self.log.append(line)
        del self.log[:-HISTORY]

    def _on_table_snapshot(self, event: dict[str, Any]) -> None:
        snap = event["snapshot"]
        self.snapshots += 1
        self.variant = snap["variant"]
        self.max_seats = snap["max_seats"]
        self.blinds = (snap["blinds"][0], snap["blinds"][1])
        self.currency = snap.get("currency")
        buy_in = snap.get("buy_in")
        self.buy_in = (buy_in[0], buy_in[1]) if buy_in else None
        self.button = snap.get("button")
        self.tournament_id = snap.get("tournament_id")
        self.ante = snap.get("ante", 0)
        self.seats = {
            s["seat"]: SeatState(
                seat=s["seat"],
                player=s["player"],
                stack=s["stack"],
                sitting_out=s["sitting_out"],
                waiting=s["waiting"],
                in_hand=s["in_hand"],
                disconnected=s["disconnected"],
                bounty=s.get("bounty"),
            )
            for s in snap["seats"]
        }
        self.turn = None
        self.status = ""
        hand = snap.get("hand")
        if hand is None:
            self.hand_id, self.hand_over, self.board, self.collected = None, True, [], 0
            self.actor = self.actor_deadline_ms = None
            return
        self.hand_id, self.hand_over = hand["hand_id"], False
        self.board = list(hand["board"])
        for view in hand["seats"]:
            held = self.seats.get(view["seat"])
            if held is None:
                continue
            held.stack, held.bet, held.folded = view["stack"], view["bet"], view["folded"]
            held.in_hand = True
            held.cards = list(view["cards"]) if "cards" in view else None
        self.collected = hand["pot"] - sum(s.bet for s in self.seats.values())
        self.actor = hand.get("actor")
        self.actor_deadline_ms = hand.get("deadline_ms")

    def _on_seat_taken(self, event: dict[str, Any]) -> None:
        seat = event["seat"]
        self.seats[seat] = SeatState(seat=seat, player=event["player"], stack=event["stack"])
        self._log(f"{event['player']} sits at seat {seat + 1}")

    def _on_seat_left(self, event: dict[str, Any]) -> None:
        self.seats.pop(event["seat"], None)
        self._log(f"{event['player']} leaves")

    def _on_player_sat_out(self, event: dict[str, Any]) -> None:
        if (held := self.seats.get(event["seat"])) is not None:
            held.sitting_out = True
            held.last_action = "sitting out"

    def _on_player_sat_in(self, event: dict[str, Any]) -> None:
        if (held := self.seats.get(event["seat"])) is not None:
            held.sitting_out, held.waiting = False, bool(event["wait_for_bb"])
            held.last_action = ""

    def _on_hand_started(self, event: dict[str, Any]) -> None:
        self.hand_id, self.hand_over = event["hand_id"], False
        self.button = event["button"]
        self.blinds = (event["blinds"][0], event["blinds"][1])
        self.ante = event.get("ante", self.ante)
        self.board, self.collected, self.results, self.turn = [], 0, [], None
        self.actor = self.actor_deadline_ms = None
        for held in self.seats.values():
            held.in_hand, held.bet, held.folded, held.cards = False, 0, False, None
            held.last_action = "sitting out" if held.sitting_out else ""
        for dealt in event["seats"]:
            if dealt["seat"] not in self.seats:
                self.seats[dealt["seat"]] = SeatState(dealt["seat"], dealt["player"], 0)
            held = self.seats[dealt["seat"]]
            held.stack, held.in_hand, held.waiting = dealt["stack"], True, False
        self._log(f"— hand {event['hand_id']} (button: {self.name_of(event['button'])})")

    def _on_blind_posted(self, event: dict[str, Any]) -> None:
        if (held := self.seats.get(event["seat"])) is None:
            return
        amount = event["amount"]
        if event["kind"] in ("ante", "dead"):
            self.collected += amount  # antes and dead blinds go to the pot, not the bet
        else:
            held.bet += amount
        held.stack -= amount
        held.last_action = f"posts {event['kind']}"
        self._log(f"{held.player} posts {event['kind']} {self.money(amount)}")

    def _on_hole_cards(self, event: dict[str, Any]) -> None:
        if (mine := self.my_seat) is not None:
            mine.cards = list(event["cards"])

    def _on_action_request(self, event: dict[str, Any]) -> None:
        self.turn = Turn(
            hand_id=event["hand_id"],
            seat=event["seat"],
            legal=Legal.from_wire(event["actions"]),
            deadline_ms=event["deadline_ms"],
            timebank_ms=event["timebank_ms"],
        )
        self.actor, self.actor_deadline_ms = event["seat"], event["deadline_ms"]

    def _on_timebank_started(self, event: dict[str, Any]) -> None:
        self.actor, self.actor_deadline_ms = event["seat"], event["deadline_ms"]
        if self.turn is not None and self.turn.seat == event["seat"]:
            self.turn.deadline_ms, self.turn.timebank_ms = (
                event["deadline_ms"],
                event["timebank_ms"],
            )
            self.turn.in_timebank = True

    def _on_player_acted(self, event: dict[str, Any]) -> None:
        seat, action, amount = event["seat"], event["action"], event.get("amount")
        if self.turn is not None and self.turn.seat == seat:
            self.turn = None
        self.actor = self.actor_deadline_ms = None
        if (held := self.seats.get(seat)) is None:
            return
        added = event.get("added")
        if added is None:
            if action == "call" and amount is not None:
                added = amount
            elif action in ("bet", "raise") and amount is not None:
                added = amount - held.bet
            else:
                added = 0
        held.bet += added
        held.stack -= added
        if action == "fold":
            held.folded = True
        shown = action if amount is None else f"{action} {self.money(amount)}"
        if event.get("all_in"):
            shown += " (all-in)"
        held.last_action = shown
        suffix = f" [{event['auto']}]" if event.get("auto") else ""
        self._log(f"{held.player}: {shown}{suffix}")

    def _collect(self) -> None:
        for held in self.seats.values():
            self.collected += held.bet
            held.bet = 0

    def _on_board_dealt(self, event: dict[str, Any]) -> None:
        self._collect()
        self.board.extend(event["cards"])
        for held in self.seats.values():
            if not held.folded and held.last_action != "sitting out":
                held.last_action = ""
        street = {1: "flop", 2: "turn", 3: "river"}.get(event["street"], "board")
        self._log(f"{street}: {' '.join(event['cards'])}")

    def _on_pot_returned(self, event: dict[str, Any]) -> None:
        if (held := self.seats.get(event["seat"])) is None:
            return
        amount = event["amount"]
        from_bet = min(held.bet, amount)
        held.bet -= from_bet
        self.collected -= amount - from_bet
        held.stack += amount
        self._log(f"{held.player} takes back {self.money(amount)}")

    def _on_hand_shown(self, event: dict[str, Any]) -> None:
        if (held := self.seats.get(event["seat"])) is not None:
            held.cards = list(event["cards"])
            self._log(f"{held.player} shows {' '.join(event['cards'])}")

    def _on_hand_mucked(self, event: dict[str, Any]) -> None:
        if (held := self.seats.get(event["seat"])) is not None:
            held.last_action = "mucks"

    def _on_pot_awarded(self, event: dict[str, Any]) -> None:
        self._collect()
        self.collected = max(0, self.collected - event["amount"] - event["rake"])
        names = []
        for share in event["shares"]:
            if (held := self.seats.get(share["seat"])) is not None:
                held.stack += share["amount"]
                names.append(f"{held.player} {self.money(share['amount'])}")
        label = "main pot" if event["pot"] == 0 else f"side pot {event['pot']}"
        line = f"{label}: {', '.join(names)}"
        self.results.append(line)
        self._log(line)

    def _on_hand_ended(self, event: dict[str, Any]) -> None:
        for seat, stack in event["stacks"].items():
            if (held := self.seats.get(int(seat))) is not None:
                held.stack = stack
        for held in self.seats.values():
            held.bet = 0
        self.collected, self.hand_over, self.turn = 0, True, None
        self.actor = self.actor_deadline_ms = None

    def _on_chat(self, event: dict[str, Any]) -> None:
        self._chat(ChatEntry(player=event["player"], text=event["text"], at_ms=event["at_ms"]))

    def _on_table_paused(self, event: dict[str, Any]) -> None:
        self.status = "paused: the room waits for its database"

    def _on_table_resumed(self, event: dict[str, Any]) -> None:
        self.status = ""

    def _on_table_halted(self, event: dict[str, Any]) -> None:
        self.status = "halted: this table deals no more until the room restarts"
