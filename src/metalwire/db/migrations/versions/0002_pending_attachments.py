"""VIF attachments can be pending while an external network service is being told.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    with op.batch_alter_table("vif_attachments") as batch:
        batch.add_column(
            sa.Column("pending", sa.Boolean, nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("vif_attachments") as batch:
        batch.drop_column("pending")
