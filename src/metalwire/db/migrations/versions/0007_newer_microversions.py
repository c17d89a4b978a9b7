"""The columns of API microversions 1.82 to 1.111 that filters and keys need.

Nodes carry a shard (1.82), indexed: the shard filters and ``GET /v1/shards`` read it, and
the UUID of their parent node (1.83), indexed: every node list reads it. Ports
get a unique name (1.88), a description (1.97), a vendor (1.100), a category (1.101) and
``available_for_dynamic_portgroup`` (1.111); portgroups a physical network (1.102), a
category (1.103) and ``dynamic_portgroup`` (1.111).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    with op.batch_alter_table("nodes") as batch:
        batch.add_column(sa.Column("shard", sa.String(255), nullable=True))
        batch.create_index("ix_nodes_shard", ["shard"])
        batch.add_column(sa.Column("parent_node", sa.String(36), nullable=True))
        batch.create_index("ix_nodes_parent_node", ["parent_node"])
    with op.batch_alter_table("ports") as batch:
        batch.add_column(sa.Column("name", sa.String(255), nullable=True))
        batch.add_column(sa.Column("description", sa.String(255), nullable=True))
        batch.add_column(sa.Column("vendor", sa.String(32), nullable=True))
        batch.add_column(sa.Column("category", sa.String(80), nullable=True))
        batch.add_column(
            sa.Column(
                "available_for_dynamic_portgroup",
                sa.Boolean(),
                nullable=False,
                server_default=sa.true(),  # the ports already there too, as in Ironic
            )
        )
        batch.create_unique_constraint("uq_ports_name", ["name"])
    with op.batch_alter_table("portgroups") as batch:
        batch.add_column(sa.Column("physical_network", sa.String(64), nullable=True))
        batch.add_column(sa.Column("category", sa.String(80), nullable=True))
        batch.add_column(
            sa.Column("dynamic_portgroup", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("portgroups") as batch:
        batch.drop_column("dynamic_portgroup")
        batch.drop_column("category")
        batch.drop_column("physical_network")
    with op.batch_alter_table("ports") as batch:
        batch.drop_constraint("uq_ports_name", type_="unique")
        for column in ("available_for_dynamic_portgroup", "category", "vendor", "description"):
            batch.drop_column(column)
        batch.drop_column("name")
    with op.batch_alter_table("nodes") as batch:
        batch.drop_index("ix_nodes_parent_node")
        batch.drop_column("parent_node")
        batch.drop_index("ix_nodes_shard")
        batch.drop_column("shard")
