"""What an inspection stored (``GET /v1/nodes/{node}/inventory``, API 1.81): a table of its
own.

One row per node: the hardware inventory the inspection ramdisk reported and the plugin data
the inspection hooks kept, both JSON, and when they were stored. The row goes with its node
(``ON DELETE CASCADE``) and is replaced by the node's next inspection. Nothing stored before
is changed; the downgrade drops the table.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"


def upgrade() -> None:
    op.create_table(
        "inspection_data",
        sa.Column(
            "node_id",
            sa.Integer(),
            sa.ForeignKey("nodes.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("inventory", sa.JSON(), nullable=False),
        sa.Column("plugin_data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("inspection_data")
