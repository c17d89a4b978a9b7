"""The node lock's lease end is a double-precision number on every database.

A 4-byte FLOAT (what MariaDB and MySQL make of ``FLOAT``) holds an epoch time to about two
minutes only, so a lease of a few seconds ran out early or late there.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    with op.batch_alter_table("nodes") as batch:
        batch.alter_column(
            "lock_expires_at", type_=sa.Double(), existing_type=sa.Float(), existing_nullable=True
        )


def downgrade() -> None:
    with op.batch_alter_table("nodes") as batch:
        batch.alter_column(
            "lock_expires_at", type_=sa.Float(), existing_type=sa.Double(), existing_nullable=True
        )
