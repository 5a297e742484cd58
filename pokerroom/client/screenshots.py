"""Render the lobby, a table mid-hand and a tournament window to PNG, offscreen, from made-up
server messages fed through the same models (no server needed):
`python -m pokerroom.client.screenshots DIR` (docs/CLIENT.md shows the pictures)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication, QWidget

from pokerroom.client.lobby_model import LobbyModel
from pokerroom.client.net import ClientSession, now_ms
from pokerroom.client.table_model import TableModel
from pokerroom.client.tournament_model import TournamentModel
from pokerroom.client.widgets.lobby_window import LobbyWindow
from pokerroom.client.widgets.table_window import TableWindow
from pokerroom.client.widgets.tournament_window import TournamentWindow

#: A fixed moment, so that the pictures do not change from run to run.
NOW_MS = 1_800_000_000_000
SIZES = {
    "lobby": (1100, 560),
    "lobby-tournaments": (1100, 560),
    "table": (1280, 800),
    "tournament": (900, 680),
}


def _summary(
    table_id: str, variant: str, seats: int, blinds: tuple[int, int], players: int
) -> dict[str, Any]:
    small, big = blinds
    return {
        "table_id": table_id, "variant": variant, "max_seats": seats, "small_blind": small,
        "big_blind": big, "currency": "USD", "min_buy_in": 20 * big, "max_buy_in": 100 * big,
        "action_seconds": 15.0, "timebank_seconds": 30.0, "players": players, "observers": 1,
    }  # fmt: skip


def _tournament(name: str, kind: str, status: str, **extra: Any) -> dict[str, Any]:
    summary = {
        "tournament_id": f"{name}-1", "name": name, "kind": kind, "status": status,
        "starts_at_ms": None if kind == "sit_and_go" else NOW_MS + 1_800_000, "buy_in": 460,
        "fee": 40, "entries": 3, "max_entries": 9 if kind == "sit_and_go" else None,
        "guarantee": 0, "registration_open": status == "registering",
        "late_registration_levels": 0 if kind == "sit_and_go" else 6,
        "late_registration_ends_ms": None, "late_registration_closed": None,
        "next_break_in": None, "players_left": 3,
    }  # fmt: skip
    summary.update(extra)
    return summary


def lobby(tournaments: bool = False) -> LobbyWindow:
    """The lobby with a few cash tables and tournaments (their tab shown if `tournaments`)."""
    model = LobbyModel()
    model.set_tables([
        _summary("nlhe-micro-6max", "NT", 6, (1, 2), 5),
        _summary("nlhe-micro-9max", "NT", 9, (1, 2), 7),
        _summary("nlhe-10-25-6max", "NT", 6, (10, 25), 2),
        _summary("plo-5-10-6max", "PO", 6, (5, 10), 4),
        _summary("fl-10-20-9max", "FT", 9, (10, 20), 0),
    ])  # fmt: skip
    model.set_tournaments([
        _tournament("sng-9-turbo", "sit_and_go", "registering"),
        _tournament("sng-9-bounty", "sit_and_go", "registering", buy_in=920, fee=80,
                    bounty_format="deferred"),
        _tournament("hourly-turbo", "mtt", "registering", buy_in=920, fee=80, entries=41,
                    guarantee=50_000),
        _tournament("daily-deep", "mtt", "running", buy_in=2_000, fee=200, entries=112,
                    players_left=64, guarantee=200_000, bounty_format="pko"),
    ])  # fmt: skip
    window = LobbyWindow(model)
    window.show_wallet("ann", 123_456, "USD")
    window.refresh()
    window.select_table("nlhe-micro-6max")
    if tournaments:
        window.select_tournament("hourly-turbo-1")
    window.say("deposited $100")
    return window


def table_events() -> list[dict[str, Any]]:
    """A 6-max hand on the turn: ann (us) to act facing a bet."""
    seats = [(0, "ann", 200), (1, "bob", 184), (2, "cleo", 412), (3, "dev", 96), (5, "eve", 250)]
    snapshot = {
        "table_id": "nlhe-micro-6max", "variant": "NT", "max_seats": 6, "blinds": [1, 2],
        "currency": "USD", "buy_in": [40, 200], "button": None,
        "seats": [{"seat": s, "player": p, "stack": c, "sitting_out": p == "dev", "waiting": False,
                   "in_hand": False, "disconnected": False} for s, p, c in seats],
        "hand": None,
    }  # fmt: skip
    dealt = [{"seat": s, "player": p, "stack": c} for s, p, c in seats if p != "dev"]
    hand = "nlhe-micro-6max-42"
    t = {"table_id": "nlhe-micro-6max", "hand_id": hand}
    return [
        {"type": "table_snapshot", "table_id": "nlhe-micro-6max", "snapshot": snapshot},
        {"type": "hand_started", **t, "button": 5, "blinds": [1, 2], "seats": dealt},
        {"type": "blind_posted", **t, "seat": 0, "amount": 1, "kind": "small"},
        {"type": "blind_posted", **t, "seat": 1, "amount": 2, "kind": "big"},
        {"type": "hole_cards", **t, "cards": ["Ah", "Qh"]},
        {"type": "player_acted", **t, "seat": 2, "action": "raise", "amount": 6, "added": 6},
        {"type": "player_acted", **t, "seat": 5, "action": "fold", "amount": None},
        {"type": "player_acted", **t, "seat": 0, "action": "call", "amount": 5, "added": 5},
        {"type": "player_acted", **t, "seat": 1, "action": "call", "amount": 4, "added": 4},
        {"type": "board_dealt", **t, "street": 1, "cards": ["Kh", "7h", "2c"]},
        {"type": "player_acted", **t, "seat": 0, "action": "check", "amount": None},
        {"type": "player_acted", **t, "seat": 1, "action": "check", "amount": None},
        {"type": "player_acted", **t, "seat": 2, "action": "bet", "amount": 12, "added": 12},
        {"type": "player_acted", **t, "seat": 0, "action": "call", "amount": 12, "added": 12},
        {"type": "player_acted", **t, "seat": 1, "action": "fold", "amount": None},
        {"type": "board_dealt", **t, "street": 2, "cards": ["Td"]},
        {"type": "player_acted", **t, "seat": 0, "action": "check", "amount": None},
        {"type": "player_acted", **t, "seat": 2, "action": "bet", "amount": 30, "added": 30},
        {"type": "action_request", **t, "seat": 0, "deadline_ms": NOW_MS + 11_400,
         "timebank_ms": 30_000, "actions": {"fold": True, "check": False, "call": 30,
                                             "min_raise_to": 60, "max_raise_to": 182}},
        {"type": "chat", "table_id": "nlhe-micro-6max", "player": "cleo", "text": "gl all",
         "at_ms": NOW_MS - 60_000},
    ]  # fmt: skip


def table(session: ClientSession) -> TableWindow:
    """A table window mid-hand, our turn, the bet slider on the ½-pot preset."""
    model = TableModel(table_id="nlhe-micro-6max", me="ann")
    for event in table_events():
        model.apply(event)
    model.chat_refused("www.example.com", "chat_advertising", "no links in chat", NOW_MS - 5_000)
    window = TableWindow(model, session)
    window.timer.stop()
    window.refresh()
    window.action_bar.use_preset("½ pot")
    return window


def tournament() -> TournamentWindow:
    """A sit-and-go at its final three with a deal proposal on the table (T-13)."""
    model = TournamentModel(tournament_id="sng-9-turbo-1", me="ann")
    model.summary = _tournament("sng-9-turbo", "sit_and_go", "running")
    base = {"tournament_id": "sng-9-turbo-1"}
    events: list[dict[str, Any]] = [
        {"type": "tournament_status", **base, "status": "running", "starts_at_ms": None,
         "level": 7, "small_blind": 100, "big_blind": 200, "ante": 25, "level_seconds": 300,
         "next_level_in": 174, "on_break": False, "next_break_in": 1374, "players_left": 3,
         "entries": 9, "average_stack": 4500, "prize_pool": 4140, "payouts": [2070, 1242, 828],
         "in_the_money": True, "hand_for_hand": False},
        {"type": "tournament_seat", **base, "table": "sng-9-turbo-1.1", "seat": 4,
         "reason": "final_redraw", "from_table": "sng-9-turbo-1.2"},
        {"type": "deal_requested", **base, "player": "bob", "asked": ["bob", "ann", "cleo"],
         "waiting": []},
        {"type": "deal_proposal", **base, "deal_id": "d1", "kind": "icm", "proposed_by": "system",
         "figures": [{"player": "ann", "chips": 7200, "amount": 1688},
                     {"player": "bob", "chips": 4100, "amount": 1341},
                     {"player": "cleo", "chips": 2200, "amount": 1011}],
         "left_to_play_for": 100, "rounding": 0, "deadline_ms": NOW_MS + 60_000},
    ]  # fmt: skip
    for event in events:
        model.apply(event)
    window = TournamentWindow(model, lambda: NOW_MS + 17_000)
    window.refresh()
    return window


def render(folder: Path) -> list[Path]:
    """Write lobby.png (cash tables), lobby-tournaments.png, table.png and tournament.png into
    `folder`; their paths."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    application = QApplication.instance() or QApplication([sys.argv[0]])
    folder.mkdir(parents=True, exist_ok=True)
    session = ClientSession()
    session.clock_offset_ms = NOW_MS - now_ms()
    windows: dict[str, QWidget] = {
        "lobby": lobby(),
        "lobby-tournaments": lobby(tournaments=True),
        "table": table(session),
        "tournament": tournament(),
    }
    written = []
    for name, window in windows.items():
        window.resize(*SIZES[name])
        window.show()
        application.processEvents()
        if isinstance(window, TableWindow):
            window.tick()
        path = folder / f"{name}.png"
        if not window.grab().save(str(path)):
            raise OSError(f"could not write {path}")
        written.append(path)
        window.close()
        window.deleteLater()
    session.deleteLater()
    application.processEvents()
    return written


def main(argv: list[str] | None = None) -> int:
    """`python -m pokerroom.client.screenshots [DIR]` (default docs/client)."""
    args = argv if argv is not None else sys.argv[1:]
    folder = Path(args[0]) if args else Path("docs/client")
    for path in render(folder):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
