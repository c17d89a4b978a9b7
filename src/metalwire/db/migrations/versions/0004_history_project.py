"""Node history names the project of whoever made each change, beside the user.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    with op.batch_alter_table("node_history") as batch:
        batch.add_column(sa.Column("project", sa.String(255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("node_history") as batch:
        batch.drop_column("project")
