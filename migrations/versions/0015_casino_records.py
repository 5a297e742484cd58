"""Casino round records (RNG-9): each bet's confirmation time and each round's audit record.

Adds `casino_bets.confirmed_ms` (the table's clock when the confirmation or the blackjack
decision that added the stake was accepted; 0 on the rows written before this revision) and
`casino_rounds.audit` (JSON: the shoe, its burned cards and the positions the round dealt
from, the cards dealt in order, blackjack decisions with their times, the pool and the cap the
settlement used; written with the settlement, never sent to players). Mirrors
pokerroom/casino/schema.py.

Revision ID: 0015_casino_records
Revises: 0014_tournament_histories
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_casino_records"
down_revision = "0014_tournament_histories"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the two columns."""
    with op.batch_alter_table("casino_bets") as batch:
        batch.add_column(
            sa.Column("confirmed_ms", sa.BigInteger(), nullable=False, server_default="0")
        )
    with op.batch_alter_table("casino_rounds") as batch:
        batch.add_column(sa.Column("audit", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    """Drop them."""
    with op.batch_alter_table("casino_rounds") as batch:
        batch.drop_column("audit")
    with op.batch_alter_table("casino_bets") as batch:
        batch.drop_column("confirmed_ms")
