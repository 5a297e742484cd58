"""Satellite tickets (T-16, T-3): owner, target or buy-in level, value, expiry, state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tournaments.director.tickets import Ticket, TicketState
from tournaments.store.schema import CANCELLED, REFUNDED, tournament_tickets, tournaments

# --------------------------------------------------------------------------- tickets (T-16)


def _ticket(row: sa.Row[Any]) -> Ticket:
    return Ticket(
        ticket_id=row.id,
        owner=row.owner,
        buy_in=row.buy_in,
        fee=row.fee,
        target=row.target,
        issued_at_ms=row.issued_at_ms,
        expires_at_ms=row.expires_at_ms,
        state=TicketState(row.state),
        source=row.source,
        any_of_level=bool(row.any_of_level),
        used_in=row.used_in,
    )


def add_ticket(conn: Connection, ticket: Ticket, currency: str, at_ms: int) -> bool:
    """A new ticket (with the transfer that fills its account); False if it exists already."""
    if load_ticket(conn, ticket.ticket_id) is not None:
        return False
    conn.execute(
        sa.insert(tournament_tickets).values(
            id=ticket.ticket_id,
            owner=ticket.owner,
            currency=currency,
            buy_in=ticket.buy_in,
            fee=ticket.fee,
            target=ticket.target,
            any_of_level=ticket.any_of_level,
            source=ticket.source,
            state=ticket.state.value,
            used_in=ticket.used_in,
            issued_at_ms=ticket.issued_at_ms,
            expires_at_ms=ticket.expires_at_ms,
            updated_at_ms=at_ms,
        )
    )
    return True


def load_ticket(conn: Connection, ticket_id: str) -> Ticket | None:
    """One ticket, or None."""
    row = conn.execute(
        sa.select(tournament_tickets).where(tournament_tickets.c.id == ticket_id)
    ).first()
    return None if row is None else _ticket(row)


def ticket_currency(conn: Connection, ticket_id: str) -> str | None:
    """The currency of a ticket's account, or None for no such ticket."""
    query = sa.select(tournament_tickets.c.currency).where(tournament_tickets.c.id == ticket_id)
    value = conn.execute(query).scalar()
    return None if value is None else str(value)


def player_tickets(conn: Connection, owner: str) -> tuple[Ticket, ...]:
    """A player's tickets, newest first."""
    query = (
        sa.select(tournament_tickets)
        .where(tournament_tickets.c.owner == owner)
        .order_by(tournament_tickets.c.issued_at_ms.desc(), tournament_tickets.c.id)
    )
    return tuple(_ticket(r) for r in conn.execute(query))


def tickets_for_target(conn: Connection, target: str) -> tuple[Ticket, ...]:
    """Tickets naming `target`, or paying an entry there, by id."""
    query = (
        sa.select(tournament_tickets)
        .where(
            sa.or_(tournament_tickets.c.target == target, tournament_tickets.c.used_in == target)
        )
        .order_by(tournament_tickets.c.id)
    )
    return tuple(_ticket(r) for r in conn.execute(query))


def expired_tickets(conn: Connection, now_ms: int, limit: int = 500) -> tuple[Ticket, ...]:
    """Usable tickets whose expiry has passed (issued or returned), oldest expiry first."""
    query = (
        sa.select(tournament_tickets)
        .where(
            tournament_tickets.c.state.in_([TicketState.ISSUED.value, TicketState.RETURNED.value]),
            tournament_tickets.c.expires_at_ms <= now_ms,
        )
        .order_by(tournament_tickets.c.expires_at_ms, tournament_tickets.c.id)
        .limit(limit)
    )
    return tuple(_ticket(r) for r in conn.execute(query))


def tickets_of_cancelled_targets(
    conn: Connection, limit: int = 500
) -> tuple[tuple[Ticket, Mapping[str, Any]], ...]:
    """Usable tickets still naming a target that was cancelled (or refunded), each with the
    target's config (its rule for tickets, T-16), by id."""
    query = (
        sa.select(tournament_tickets, tournaments.c.config.label("target_config"))
        .join(tournaments, tournaments.c.id == tournament_tickets.c.target)
        .where(
            tournament_tickets.c.state.in_([TicketState.ISSUED.value, TicketState.RETURNED.value]),
            tournament_tickets.c.any_of_level.is_(False),
            tournaments.c.status.in_([CANCELLED, REFUNDED]),
        )
        .order_by(tournament_tickets.c.id)
        .limit(limit)
    )
    return tuple((_ticket(r), dict(r.target_config or {})) for r in conn.execute(query))


def save_ticket(
    conn: Connection, ticket: Ticket, expected: Iterable[TicketState], at_ms: int
) -> bool:
    """Move a ticket to `ticket`'s state if it is now in one of `expected` (a guarded step);
    False if it was not (someone else moved it first). Owner and value never change."""
    query = (
        sa.update(tournament_tickets)
        .where(
            tournament_tickets.c.id == ticket.ticket_id,
            tournament_tickets.c.owner == ticket.owner,
            tournament_tickets.c.state.in_([TicketState(s).value for s in expected]),
        )
        .values(
            state=ticket.state.value,
            used_in=ticket.used_in,
            any_of_level=ticket.any_of_level,
            updated_at_ms=at_ms,
        )
    )
    return bool(conn.execute(query).rowcount == 1)
