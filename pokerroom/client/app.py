"""The client application: one session, the login and lobby windows, a window per open table
(up to the C-1 cap) and per tournament; server messages routed to their models."""

from __future__ import annotations

import argparse
import sys
import uuid
from typing import Any

from PySide6.QtCore import QObject, QSettings
from PySide6.QtWidgets import QApplication

from pokerroom.client.lobby_model import LobbyModel, money
from pokerroom.client.net import ClientSession
from pokerroom.client.table_model import TableModel
from pokerroom.client.tournament_model import TournamentModel
from pokerroom.client.widgets.lobby_window import LobbyWindow
from pokerroom.client.widgets.login_window import LoginWindow
from pokerroom.client.widgets.table_window import TableWindow, refusal
from pokerroom.client.widgets.tournament_window import TournamentWindow

TABLE_EVENTS = frozenset(
    {
        "table_snapshot",
        "seat_taken",
        "seat_left",
        "player_sat_out",
        "player_sat_in",
        "hand_started",
        "blind_posted",
        "hole_cards",
        "action_request",
        "timebank_started",
        "player_acted",
        "board_dealt",
        "pot_returned",
        "hand_shown",
        "hand_mucked",
        "pot_awarded",
        "hand_ended",
        "chat",
        "table_paused",
        "table_resumed",
        "table_halted",
    }
)
TOURNAMENT_EVENTS = frozenset(
    {
        "tournament_status",
        "tournament_seat",
        "tournament_finish",
        "tournament_results",
        "deal_requested",
        "deal_proposal",
        "deal_result",
        "bounty_won",
        "tournament_cancelled",
    }
)
LOBBY_PAGE = 200


def new_key(kind: str) -> str:
    """A fresh idempotency key for one money request (P-2)."""
    return f"{kind[:8]}-{uuid.uuid4().hex[:24]}"


class ClientApp(QObject):
    """Owns the session, the models and the windows."""

    def __init__(self, settings: QSettings, client_kind: str = "desktop") -> None:
        super().__init__()
        self.settings = settings
        self.session = ClientSession(client_kind, self)
        self.lobby = LobbyModel()
        self.tables: dict[str, TableModel] = {}
        self.table_windows: dict[str, TableWindow] = {}
        self.tournaments: dict[str, TournamentModel] = {}
        self.tournament_windows: dict[str, TournamentWindow] = {}
        self.balance: tuple[int, str] | None = None
        self.login_window = LoginWindow(settings)
        self.lobby_window = LobbyWindow(self.lobby)
        self.login_window.submit.connect(self.session.login)
        self.session.login_failed.connect(self.login_window.failed)
        self.session.logged_in.connect(self._logged_in)
        self.session.dropped.connect(lambda why: self.lobby_window.say(f"{why}: resuming …"))
        self.session.resumed.connect(lambda: self.lobby_window.say("connection resumed (C-14)"))
        self.session.ended.connect(self._ended)
        self.session.received.connect(self.on_event)
        self.lobby_window.open_table.connect(self.open_table)
        self.lobby_window.open_tournament.connect(self.open_tournament)
        self.lobby_window.register.connect(self.register)
        self.lobby_window.register_with_ticket.connect(self.register)
        self.lobby_window.tickets_wanted.connect(self.refresh_tickets)
        self.lobby_window.unregister.connect(self.unregister)
        self.lobby_window.deposit.connect(self.deposit)
        self.lobby_window.logout.connect(self.session.logout)

    @property
    def me(self) -> str:
        """The logged-in player's id."""
        return self.session.player_id

    def start(self) -> None:
        """Show the login window."""
        self.login_window.show()

    # -- session -------------------------------------------------------------------------------
    def _logged_in(self, result: dict[str, Any]) -> None:
        self.login_window.set_busy(False)
        self.login_window.hide()
        self.lobby_window.show()
        self.lobby_window.setWindowTitle(f"pokerroom — lobby — {self.me}")
        for table_id in set(self.table_windows) - set(result["tables"]):
            self._close_quietly(table_id)  # closed while we were away: the room has it no more
        self._subscribe(0)
        self.session.request("tournament_list", self._tournament_list)
        self.refresh_wallet()
        self.refresh_tickets()

    def _subscribe(self, offset: int) -> None:
        def answered(answer: dict[str, Any]) -> None:
            if answer["type"] != "ok":
                return
            page = answer["result"]
            self.lobby.set_tables(page["tables"])
            self.lobby_window.refresh()
            got = page["offset"] + len(page["tables"])
            if page["tables"] and got < page["total"]:
                self.session.request("lobby_list", answered, offset=got, limit=LOBBY_PAGE)

        self.session.request("lobby_subscribe", answered, offset=offset, limit=LOBBY_PAGE)

    def _tournament_list(self, answer: dict[str, Any]) -> None:
        if answer["type"] == "ok":
            self.lobby.set_tournaments(answer["result"]["tournaments"])
            for summary in answer["result"]["tournaments"]:
                if (known := self.tournaments.get(summary["tournament_id"])) is not None:
                    known.summary = summary
            self.lobby_window.refresh()
            self.lobby_window.refresh_tickets()  # their tournaments' names

    def _ended(self, why: str) -> None:
        for window in list(self.table_windows.values()):
            window.closing.disconnect()
            window.close()
        self.table_windows.clear()
        self.tables.clear()
        self.lobby_window.hide()
        self.login_window.show()
        self.login_window.failed("session over", why)

    def refresh_wallet(self) -> None:
        """Ask for the wallet balance and show it."""

        def answered(answer: dict[str, Any]) -> None:
            if answer["type"] == "ok":
                self.balance = (answer["result"]["balance"], answer["result"]["currency"])
                self.lobby_window.show_wallet(self.me, *self.balance)

        self.session.request("wallet", answered)

    def refresh_tickets(self) -> None:
        """Ask for our tournament tickets and list them (T-16)."""

        def answered(answer: dict[str, Any]) -> None:
            if answer["type"] == "ok":
                self.lobby.set_tickets(answer["result"]["tickets"])
                self.lobby_window.refresh_tickets()

        self.session.request("tickets", answered)

    def deposit(self, amount: int) -> None:
        """Fund the wallet (development rooms only: `[dev] allow_deposit`)."""

        def answered(answer: dict[str, Any]) -> None:
            if answer["type"] == "ok":
                self.balance = (answer["result"]["balance"], answer["result"]["currency"])
                self.lobby_window.show_wallet(self.me, *self.balance)
                self.lobby_window.say(f"deposited {money(amount, self.balance[1])}")
            else:
                self.lobby_window.say(refusal(answer))

        self.session.request("deposit", answered, amount=amount, key=new_key("deposit"))

    # -- messages ------------------------------------------------------------------------------
    def on_event(self, frame: dict[str, Any]) -> None:
        """Route one server message to its model and window."""
        kind = str(frame.get("type"))
        if kind in TABLE_EVENTS and "table_id" in frame:
            self._table_event(frame)
        elif self.lobby.apply(frame):
            if kind == "tournament_lobby_update":
                self._tournament_event(frame)
            self.lobby_window.refresh()
        elif kind in TOURNAMENT_EVENTS and "tournament_id" in frame:
            self._tournament_event(frame)
        elif kind == "goodbye":
            self.lobby_window.say(f"the room said goodbye: {frame['code']} — {frame['message']}")

    def _table_event(self, frame: dict[str, Any]) -> None:
        table_id, kind = frame["table_id"], frame["type"]
        model = self.tables.get(table_id)
        if model is None:
            if frame["type"] != "table_snapshot":
                return
            model = self._open_window(table_id)
        model.apply(frame)
        if kind == "table_snapshot" and model.tournament_id is not None:
            self._seated_in_tournament(model.tournament_id, table_id)
        window = self.table_windows.get(table_id)
        if window is not None:
            window.refresh()
        if kind in ("seat_left", "seat_taken") and frame.get("player") == self.me:
            self.refresh_wallet()

    def _seated_in_tournament(self, tournament_id: str, table_id: str) -> None:
        """A tournament table's snapshot: we sit there (at the start, late, after a move)."""
        model = self.tournaments.get(tournament_id)
        if model is None:
            model = self._tournament_window(tournament_id).model
        table = self.tables[table_id]
        if table.my_seat is not None and model.table != table_id:
            model.table = table_id
            model.seat = table.my_seat.seat
            self.tournament_windows[tournament_id].refresh()

    def shutdown(self) -> None:
        """Close the connection for good (no resume) and every window."""
        self.session.received.disconnect()
        self.session.ended.disconnect()
        self.session.connection.close()
        for window in [*self.table_windows.values(), *self.tournament_windows.values()]:
            window.close()

    def _open_window(self, table_id: str) -> TableModel:
        model = self.tables[table_id] = TableModel(table_id=table_id, me=self.me)
        window = TableWindow(model, self.session)
        window.closing.connect(self._table_closed)
        window.wallet_changed.connect(self.refresh_wallet)
        self.table_windows[table_id] = window
        window.show()
        return model

    def _tournament_event(self, frame: dict[str, Any]) -> None:
        tournament_id = frame.get("tournament_id") or frame["tournament"]["tournament_id"]
        model = self.tournaments.get(tournament_id)
        if model is None:
            if frame["type"] == "tournament_lobby_update":
                return  # only the tournaments we opened or play in get a window
            model = self._tournament_window(tournament_id).model
        before = model.table
        model.apply(frame)
        if frame["type"] == "tournament_seat" and before and before != model.table:
            self._close_quietly(before)
        if frame["type"] in ("tournament_finish", "tournament_cancelled", "bounty_won"):
            self.refresh_wallet()
        self.tournament_windows[tournament_id].refresh()

    def _tournament_window(self, tournament_id: str) -> TournamentWindow:
        model = TournamentModel(tournament_id=tournament_id, me=self.me)
        model.summary = dict(self.lobby.tournaments.get(tournament_id, {}))
        self.tournaments[tournament_id] = model
        window = TournamentWindow(model, self.session.server_now_ms)
        window.show_table.connect(self._raise_table)
        window.ask_deal.connect(
            lambda tid: self.session.request("deal_request", self._said, tournament_id=tid)
        )
        window.answer_deal.connect(self.answer_deal)
        window.purchase.connect(self.purchase)
        staking = window.staking
        staking.offer.connect(lambda share, markup: self.stake_offer(tournament_id, share, markup))
        staking.buy.connect(lambda offer_id, share: self.stake_buy(tournament_id, offer_id, share))
        staking.refresh.connect(lambda: self.staking_refresh(tournament_id))
        self.tournament_windows[tournament_id] = window
        window.show()

        def answered(answer: dict[str, Any]) -> None:
            if answer["type"] == "ok":
                model.apply(answer["result"]["status"])
                window.refresh()

        self.session.request("tournament_status_request", answered, tournament_id=tournament_id)
        return window

    # -- what the player does ------------------------------------------------------------------
    def open_table(self, table_id: str) -> None:
        """Watch a table in its own window (C-1: at most `table_cap` open)."""
        if table_id in self.table_windows:
            self._raise_table(table_id)
            return
        if self.session.table_cap and len(self.table_windows) >= self.session.table_cap:
            self.lobby_window.say(f"C-1: at most {self.session.table_cap} tables open at once")
            return

        def answered(answer: dict[str, Any]) -> None:
            if answer["type"] != "ok":
                self.lobby_window.say(refusal(answer))
                return
            snapshot = {
                "type": "table_snapshot",
                "table_id": table_id,
                "snapshot": answer["result"]["snapshot"],
            }
            self._table_event(snapshot)

        self.session.request("observe", answered, table_id=table_id)

    def _raise_table(self, table_id: str) -> None:
        window = self.table_windows.get(table_id)
        if window is not None:
            window.show()
            window.raise_()
            window.activateWindow()

    def _table_closed(self, table_id: str) -> None:
        model = self.tables.pop(table_id, None)
        self.table_windows.pop(table_id, None)
        if model is None or model.tournament_id is not None:
            return

        def unobserve(_: dict[str, Any] | None = None) -> None:
            self.session.request("unobserve", None, table_id=table_id)
            self.refresh_wallet()

        if model.my_seat is not None:
            self.lobby_window.say(f"leaving {table_id} after this hand")
            self.session.request("leave", unobserve, table_id=table_id)
        else:
            unobserve()

    def _close_quietly(self, table_id: str) -> None:
        window = self.table_windows.pop(table_id, None)
        self.tables.pop(table_id, None)
        if window is not None:
            window.closing.disconnect()
            window.close()

    def open_tournament(self, tournament_id: str) -> None:
        """Show a tournament's window (its status is asked for)."""
        window = self.tournament_windows.get(tournament_id)
        if window is None:
            window = self._tournament_window(tournament_id)
        window.show()
        window.raise_()

    def register(self, tournament_id: str, ticket_id: str = "") -> None:
        """Register for a tournament from the wallet (T-2, T-3), or with one of our tickets
        (T-16), with a key (P-2)."""
        paid = {"ticket_id": ticket_id} if ticket_id else {}

        def answered(answer: dict[str, Any]) -> None:
            if answer["type"] == "ok":
                self.lobby_window.say(f"registered (entry {answer['result']['entry']})")
                self.open_tournament(tournament_id)
                self.tournaments[tournament_id].registered = True
            else:
                self.lobby_window.say(refusal(answer))
            self.refresh_wallet()
            self.refresh_tickets()

        self.session.request("tournament_register", answered, tournament_id=tournament_id,
                             key=new_key("register"), **paid)  # fmt: skip

    def unregister(self, tournament_id: str) -> None:
        """Unregister before the start (T-3): the buy-in and fee come back."""

        def answered(answer: dict[str, Any]) -> None:
            self.lobby_window.say(
                "unregistered: refunded" if answer["type"] == "ok" else refusal(answer)
            )
            if tournament_id in self.tournaments and answer["type"] == "ok":
                self.tournaments[tournament_id].registered = False
            self.refresh_wallet()
            self.refresh_tickets()  # an entry paid by a ticket gives the ticket back (T-3)

        self.session.request("tournament_unregister", answered, tournament_id=tournament_id)

    def purchase(self, tournament_id: str, kind: str) -> None:
        """Re-enter, rebuy or add on (T-4), with a key (P-2); the answer shows in the window."""

        def answered(answer: dict[str, Any]) -> None:
            window = self.tournament_windows.get(tournament_id)
            if window is not None:
                ok = answer["type"] == "ok"
                window.say(
                    f"{kind}: {answer['result']['chips']:,} chips" if ok else refusal(answer)
                )
            self.refresh_wallet()

        self.session.request(f"tournament_{kind}", answered, tournament_id=tournament_id,
                             key=new_key(kind))  # fmt: skip

    def stake_offer(self, tournament_id: str, share_bps: int, markup_bps: int) -> None:
        """Offer a share of our action before the start (T-17)."""
        panel = self.tournament_windows[tournament_id].staking

        def answered(answer: dict[str, Any]) -> None:
            if answer["type"] == "ok":
                offer = answer["result"]["offer"]
                panel.say(f"offered {offer['share_bps'] / 100:g}% (offer {offer['offer_id']})")
                self.staking_refresh(tournament_id)
            else:
                panel.say(refusal(answer))

        self.session.request("stake_offer", answered, tournament_id=tournament_id,
                             share_bps=share_bps, markup_bps=markup_bps)  # fmt: skip

    def stake_buy(self, tournament_id: str, offer_id: str, share_bps: int) -> None:
        """Buy a share of another player's action (T-17), with a key (P-2)."""
        panel = self.tournament_windows[tournament_id].staking

        def answered(answer: dict[str, Any]) -> None:
            if answer["type"] == "ok":
                panel.say(f"bought for {money(answer['result']['stake']['price'])}")
                self.staking_refresh(tournament_id)
            else:
                panel.say(refusal(answer))
            self.refresh_wallet()

        fields = {"offer_id": offer_id, "share_bps": share_bps, "key": new_key("stake")}
        self.session.request("stake_buy", answered, tournament_id=tournament_id, **fields)

    def staking_refresh(self, tournament_id: str) -> None:
        """Ask for the offers and our stakes of a tournament, and the wallet."""
        panel = self.tournament_windows[tournament_id].staking

        def offers(answer: dict[str, Any]) -> None:
            if answer["type"] == "ok":
                panel.show_offers(answer["result"])

        def stakes(answer: dict[str, Any]) -> None:
            if answer["type"] == "ok":
                panel.show_stakes(answer["result"])

        self.session.request("stake_offers", offers, tournament_id=tournament_id)
        self.session.request("my_stakes", stakes, tournament_id=tournament_id)
        self.refresh_wallet()

    def answer_deal(self, tournament_id: str, deal_id: str, accept: bool) -> None:
        """Accept or reject a deal proposal (T-13)."""
        kind = "deal_accept" if accept else "deal_reject"
        self.session.request(kind, self._said, tournament_id=tournament_id, deal_id=deal_id)

    def _said(self, answer: dict[str, Any]) -> None:
        if answer["type"] == "error":
            self.lobby_window.say(refusal(answer))


def main(argv: list[str] | None = None) -> int:
    """`pokerroom-client`: the desktop client (docs/CLIENT.md)."""
    parser = argparse.ArgumentParser(
        prog="pokerroom-client", description="The pokerroom desktop client."
    )
    parser.add_argument("--host", help="the room's address (default: the last one used)")
    parser.add_argument("--port", type=int, help="the room's port (default: the last one used)")
    args, qt_args = parser.parse_known_args(argv if argv is not None else sys.argv[1:])
    application = QApplication([sys.argv[0], *qt_args])
    application.setApplicationName("pokerroom-client")
    application.setOrganizationName("pokerroom")
    settings = QSettings()
    if args.host:
        settings.setValue("server/host", args.host)
    if args.port:
        settings.setValue("server/port", args.port)
    client = ClientApp(settings)
    client.start()
    return application.exec()
