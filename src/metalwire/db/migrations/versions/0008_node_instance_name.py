"""Nodes get an ``instance_name`` column (API 1.104), indexed for the list filter.

Until now the field was kept in the node's ``attrs`` bag; the upgrade moves each stored value
into the column (and the downgrade back), so nothing set before is lost.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"

_KEY = "instance_name"


def _nodes() -> sa.TableClause:
    return sa.table(
        "nodes",
        sa.column("id", sa.Integer),
        sa.column("attrs", sa.JSON),
        sa.column(_KEY, sa.String(255)),
    )


def _attrs(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def upgrade() -> None:
    with op.batch_alter_table("nodes") as batch:
        batch.add_column(sa.Column(_KEY, sa.String(255), nullable=True))
        batch.create_index("ix_nodes_instance_name", [_KEY])
    nodes = _nodes()
    bind = op.get_bind()
    for node_id, attrs in bind.execute(sa.select(nodes.c.id, nodes.c.attrs)).all():
        stored = _attrs(attrs)
        if _KEY not in stored:
            continue
        name = stored.pop(_KEY)
        bind.execute(
            nodes.update()
            .where(nodes.c.id == node_id)
            .values({_KEY: None if name is None else str(name), "attrs": stored})
        )


def downgrade() -> None:
    nodes = _nodes()
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(nodes.c.id, nodes.c.attrs, nodes.c[_KEY]).where(nodes.c[_KEY].is_not(None))
    ).all()
    for node_id, attrs, name in rows:
        bind.execute(
            nodes.update()
            .where(nodes.c.id == node_id)
            .values({"attrs": {**_attrs(attrs), _KEY: name}})
        )
    with op.batch_alter_table("nodes") as batch:
        batch.drop_index("ix_nodes_instance_name")
        batch.drop_column(_KEY)
