"""Nodes carry a shard (API 1.82), indexed: the shard filters and ``GET /v1/shards`` read it.

Revision ID: 0007
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0005"


def upgrade() -> None:
    with op.batch_alter_table("nodes") as batch:
        batch.add_column(sa.Column("shard", sa.String(255), nullable=True))
        batch.create_index("ix_nodes_shard", ["shard"])


def downgrade() -> None:
    with op.batch_alter_table("nodes") as batch:
        batch.drop_index("ix_nodes_shard")
        batch.drop_column("shard")
