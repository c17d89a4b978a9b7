"""Allocations (``/v1/allocations``, API 1.52): requests for a node by resource class and
traits, each naming the node it reserved.

A node's ``allocation_uuid`` is kept in its ``attrs``, as its other behaviour-free fields;
the allocation names its node by ``node_id``, set to NULL when the node is deleted. Nothing
stored before is changed; the downgrade drops the table.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"


def upgrade() -> None:
    op.create_table(
        "allocations",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("name", sa.String(255), nullable=True, unique=True),
        sa.Column(
            "node_id",
            sa.Integer(),
            sa.ForeignKey("nodes.id", ondelete="SET NULL"),
            nullable=True,
            unique=True,
        ),
        sa.Column("state", sa.String(15), nullable=False),
        sa.Column("owner", sa.String(255), nullable=True, index=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("resource_class", sa.String(80), nullable=True),
        sa.Column("traits", sa.JSON(), nullable=False),
        sa.Column("candidate_nodes", sa.JSON(), nullable=False),
        sa.Column("extra", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("allocations")
