"""Volume connectors and targets of a node (``/v1/volume``), removed with their node.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def _common() -> list[sa.Column[object]]:
    return [
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column(
            "node_id",
            sa.Integer(),
            sa.ForeignKey("nodes.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
    ]


def _stamps() -> list[sa.Column[object]]:
    return [
        sa.Column("extra", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        "volume_connectors",
        *_common(),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("connector_id", sa.String(255), nullable=False),
        *_stamps(),
        sa.UniqueConstraint("type", "connector_id", name="uq_volume_connectors_type_connector_id"),
    )
    op.create_table(
        "volume_targets",
        *_common(),
        sa.Column("volume_type", sa.String(64), nullable=False),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("boot_index", sa.Integer(), nullable=False),
        sa.Column("volume_id", sa.String(36), nullable=False),
        *_stamps(),
        sa.UniqueConstraint("node_id", "boot_index", name="uq_volume_targets_node_boot_index"),
    )


def downgrade() -> None:
    op.drop_table("volume_targets")
    op.drop_table("volume_connectors")
