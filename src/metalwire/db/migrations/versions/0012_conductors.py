"""Conductors (``/v1/conductors``): each ``metalwire serve`` registers its host here.

One row per ``[DEFAULT] host``: the hardware types the process enables, whether it is
running (``online``, cleared by a clean stop) and its last heartbeat (``updated_at``).
Nothing stored before is changed; the downgrade drops the table.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"


def upgrade() -> None:
    op.create_table(
        "conductors",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("hostname", sa.String(255), nullable=False, unique=True),
        sa.Column("conductor_group", sa.String(255), nullable=False, server_default=""),
        sa.Column("drivers", sa.JSON(), nullable=False),
        sa.Column("online", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("conductors")
