"""A port's ``available_for_dynamic_portgroup`` defaults to true in the database too, as in
Ironic (the API gave new ports true already). 0007 now makes the ports that exist when it
runs available; a database that ran it earlier keeps its ports' values, which an operator
can change with a PATCH.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"


def _default(value: sa.ColumnElement[bool]) -> None:
    with op.batch_alter_table("ports") as batch:
        batch.alter_column(
            "available_for_dynamic_portgroup",
            existing_type=sa.Boolean(),
            existing_nullable=False,
            server_default=value,
        )


def upgrade() -> None:
    _default(sa.true())


def downgrade() -> None:
    _default(sa.false())
