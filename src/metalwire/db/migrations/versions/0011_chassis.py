"""Chassis (``/v1/chassis``): a table of their own.

A node names its chassis by the ``chassis_uuid`` in its ``attrs``. Until now any UUID was
recorded there; from now on it must name a chassis. So that nothing stored is lost and the
rule holds from the start, the upgrade creates a chassis, with no description and no
extra, for each distinct chassis_uuid the nodes record. The downgrade drops the table and
leaves the nodes' chassis_uuid as they are, as they were recorded before.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import datetime as dt
import uuid as uuid_module
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def _recorded_chassis(bind: sa.Connection) -> list[str]:
    """The distinct chassis UUIDs the nodes record, in the order of the first node naming
    each; a value that is not a UUID string (which the API never let in) is left out."""
    nodes = sa.table("nodes", sa.column("id", sa.Integer), sa.column("attrs", sa.JSON))
    found: dict[str, None] = {}
    for (attrs,) in bind.execute(sa.select(nodes.c.attrs).order_by(nodes.c.id)):
        value: Any = attrs.get("chassis_uuid") if isinstance(attrs, dict) else None
        if isinstance(value, str) and _is_uuid(value):
            found.setdefault(value, None)
    return list(found)


def _is_uuid(value: str) -> bool:
    try:
        uuid_module.UUID(value)
    except ValueError:
        return False
    return True


def upgrade() -> None:
    chassis = op.create_table(
        "chassis",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("description", sa.String(255), nullable=True),
        sa.Column("extra", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    )
    now = dt.datetime.now(dt.UTC)
    rows: list[dict[str, Any]] = [
        {"uuid": uuid, "description": None, "extra": {}, "created_at": now}
        for uuid in _recorded_chassis(op.get_bind())
    ]
    if rows:
        op.bulk_insert(chassis, rows)


def downgrade() -> None:
    op.drop_table("chassis")
