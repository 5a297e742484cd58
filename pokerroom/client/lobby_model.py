"""The lobby as the client knows it: table summaries, tournament summaries and the player's
tickets (§5, §9; T-16)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

VARIANTS = {"NT": "No-limit hold'em", "PO": "Pot-limit Omaha", "FT": "Fixed-limit hold'em"}
#: Ticket states in which a ticket still pays an entry (docs/PROTOCOL.md, T-16).
USABLE_TICKETS = ("issued", "returned")


def money(cents: int, currency: str | None = "USD") -> str:
    """Cents as money for people: `$1.50`, `€20`; chips (no currency) as a plain number."""
    if currency is None:
        return f"{cents:,}"
    sign = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency, currency + " ")
    whole, part = divmod(abs(cents), 100)
    text = f"{sign}{whole:,}" if part == 0 else f"{sign}{whole:,}.{part:02d}"
    return "-" + text if cents < 0 else text


@dataclass
class LobbyModel:
    """Cash tables by id and tournaments by id, as the lobby messages give them."""

    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    tournaments: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The player's tournament tickets, newest first, as the `tickets` answer gives them.
    tickets: list[dict[str, Any]] = field(default_factory=list)
    variant_filter: str = ""  # "" for every game, else a variant code
    hide_full: bool = False
    hide_empty: bool = False

    def set_tables(self, summaries: list[dict[str, Any]]) -> None:
        """The answer to `lobby_list`/`lobby_subscribe` (one page: merged in)."""
        for summary in summaries:
            self.tables[summary["table_id"]] = summary

    def set_tournaments(self, summaries: list[dict[str, Any]]) -> None:
        """The answer to `tournament_list`: the whole list."""
        self.tournaments = {t["tournament_id"]: t for t in summaries}

    def set_tickets(self, tickets: list[dict[str, Any]]) -> None:
        """The answer to `tickets`: the whole list (T-16)."""
        self.tickets = list(tickets)

    def ticket_for(self, tournament_id: str) -> dict[str, Any] | None:
        """A usable ticket that pays an entry in this tournament (T-16): one for it by name
        first, else one for any tournament of its buy-in plus fee; None if none."""
        summary = self.tournaments.get(tournament_id)
        if summary is None:
            return None
        price = summary["buy_in"] + summary["fee"]
        fits = [
            t
            for t in self.tickets
            if t["state"] in USABLE_TICKETS
            and t["value"] == price
            and (t["target"] == tournament_id or t["any_of_level"])
        ]
        fits.sort(key=lambda t: t["target"] != tournament_id)  # its own ticket before any other
        return fits[0] if fits else None

    def apply(self, event: dict[str, Any]) -> bool:
        """Take a `lobby_update` or `tournament_lobby_update`; whether it was one."""
        if event.get("type") == "lobby_update":
            self.tables[event["table"]["table_id"]] = event["table"]
            return True
        if event.get("type") == "tournament_lobby_update":
            summary = event["tournament"]
            self.tournaments[summary["tournament_id"]] = summary
            return True
        return False

    def cash_rows(self) -> list[dict[str, Any]]:
        """The cash tables to show, by table id, filtered by game and by how full they are."""
        rows = [self.tables[k] for k in sorted(self.tables)]
        return [
            t
            for t in rows
            if (not self.variant_filter or t["variant"] == self.variant_filter)
            and not (self.hide_full and t["players"] >= t["max_seats"])
            and not (self.hide_empty and t["players"] == 0)
        ]

    def tournament_rows(self) -> list[dict[str, Any]]:
        """The tournaments to show: registering first, then running, then the rest."""
        order = {"registering": 0, "running": 1}
        return sorted(
            self.tournaments.values(),
            key=lambda t: (order.get(t["status"], 2), t.get("starts_at_ms") or 0, t["name"]),
        )


def stakes(summary: dict[str, Any]) -> str:
    """A table summary's blinds as money: `$0.01/$0.02`."""
    currency = summary.get("currency")
    return f"{money(summary['small_blind'], currency)}/{money(summary['big_blind'], currency)}"


def tournament_bounty(summary: dict[str, Any]) -> str:
    """The bounty format of a tournament summary, or "" (T-14)."""
    return str(summary.get("bounty_format") or "")


def ticket_use(ticket: dict[str, Any], tournaments: dict[str, dict[str, Any]]) -> str:
    """What a ticket pays for, for people: its tournament's name, or any of its price (T-16)."""
    if ticket.get("target"):
        summary = tournaments.get(ticket["target"])
        return str(summary["name"]) if summary else str(ticket["target"])
    return f"any {money(ticket['value'])} tournament"
