"""One tournament as the client knows it: status, payouts, results, a deal (§9, T-6, T-13)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pokerroom.client.lobby_model import money


@dataclass
class TournamentModel:
    """What the tournament messages say about one tournament, for the player `me`."""

    tournament_id: str
    me: str
    summary: dict[str, Any] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)
    table: str | None = None  # our table id (`tournament_seat`, or a snapshot)
    seat: int | None = None
    finish: dict[str, Any] | None = None
    results: dict[str, Any] | None = None
    deal: dict[str, Any] | None = None  # the open `deal_proposal`
    deal_result: dict[str, Any] | None = None
    deal_asked: list[str] = field(default_factory=list)
    registered: bool = False
    cancelled: dict[str, Any] | None = None
    log: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The tournament's name from its summary, else its id."""
        return str(self.summary.get("name") or self.tournament_id)

    def payouts(self) -> list[tuple[int, int]]:
        """(place, cents) for each paid place, once fixed (T-6)."""
        fixed = self.status.get("payouts") or []
        return [(place, amount) for place, amount in enumerate(fixed, start=1)]

    def apply(self, event: dict[str, Any]) -> bool:
        """Take a tournament message about this tournament; whether it was one."""
        if event.get("tournament_id") != self.tournament_id:
            return False
        kind = event.get("type")
        if kind == "tournament_status":
            self.status = dict(event)
            if event.get("status") == "finished":
                self.log.append("the tournament is over")
        elif kind == "tournament_seat":
            self.table, self.seat = event["table"], event["seat"]
            self.log.append(f"you are seated at {event['table']} (seat {event['seat'] + 1})")
        elif kind == "tournament_finish":
            self.finish = dict(event)
            self.log.append(f"you finished {event['place']}: prize {money(event['prize'])}")
        elif kind == "tournament_results":
            self.results = dict(event)
        elif kind == "deal_requested":
            self.deal_asked = list(event["asked"])
            self.log.append(f"{event['player']} asks for a deal")
        elif kind == "deal_proposal":
            self.deal, self.deal_result = dict(event), None
        elif kind == "deal_result":
            self.deal, self.deal_result = None, dict(event)
            self.log.append(f"deal {event['outcome']}")
        elif kind == "bounty_won":
            whose = f" for knocking out {event['busted']}" if event.get("busted") else ""
            self.log.append(f"{event['player']} wins a bounty of {money(event['amount'])}{whose}")
        elif kind == "tournament_cancelled":
            self.cancelled = dict(event)
            self.log.append(f"cancelled ({event['reason']}): refunded {money(event['total'])}")
        elif kind == "tournament_lobby_update":
            self.summary = dict(event["tournament"])
        else:
            return False
        return True
