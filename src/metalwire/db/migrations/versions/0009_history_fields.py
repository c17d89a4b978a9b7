"""Node history records the node's provision state, its target and how long the node had
been in that state when each entry was written (API 1.115).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    with op.batch_alter_table("node_history") as batch:
        batch.add_column(sa.Column("state", sa.String(32), nullable=True))
        batch.add_column(sa.Column("target_provision_state", sa.String(32), nullable=True))
        batch.add_column(sa.Column("duration_seconds", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("node_history") as batch:
        for column in ("duration_seconds", "target_provision_state", "state"):
            batch.drop_column(column)
