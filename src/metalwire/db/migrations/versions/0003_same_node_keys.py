"""Composite keys keep a port's portgroup, and a VIF's port or portgroup, on the same node.

Rows that already break one of these rules stop the upgrade with a message naming them; the
schema is left as it was, so an operator can fix the rows and upgrade again.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from metalwire.errors import InventoryInconsistent

revision = "0003"
down_revision = "0002"

# Each query finds the rows that break one rule, as (what, its node, the other, its node).
_BROKEN_RULES = {
    "port in a portgroup of another node": """
        SELECT p.uuid, pn.uuid, g.uuid, gn.uuid
        FROM ports p JOIN portgroups g ON g.id = p.portgroup_id
        JOIN nodes pn ON pn.id = p.node_id JOIN nodes gn ON gn.id = g.node_id
        WHERE p.node_id <> g.node_id""",
    "VIF recorded on a port of another node": """
        SELECT a.vif_id, an.uuid, p.uuid, pn.uuid
        FROM vif_attachments a JOIN ports p ON p.id = a.port_id
        JOIN nodes an ON an.id = a.node_id JOIN nodes pn ON pn.id = p.node_id
        WHERE a.node_id <> p.node_id""",
    "VIF recorded on a portgroup of another node": """
        SELECT a.vif_id, an.uuid, g.uuid, gn.uuid
        FROM vif_attachments a JOIN portgroups g ON g.id = a.portgroup_id
        JOIN nodes an ON an.id = a.node_id JOIN nodes gn ON gn.id = g.node_id
        WHERE a.node_id <> g.node_id""",
}


def _refuse_broken_rows() -> None:
    bind = op.get_bind()
    found = []
    for rule, query in _BROKEN_RULES.items():
        for what, what_node, other, other_node in bind.execute(sa.text(query)):
            found.append(f"{rule}: {what} (node {what_node}) -> {other} (node {other_node})")
    if found:
        raise InventoryInconsistent(
            "cannot upgrade the schema: these rows break a rule it enforces; fix them "
            "(move the port or portgroup back, or remove the record) and upgrade again:\n  "
            + "\n  ".join(found)
        )


def upgrade() -> None:
    _refuse_broken_rows()
    with op.batch_alter_table("portgroups") as batch:
        batch.create_unique_constraint("uq_portgroups_id_node", ["id", "node_id"])
    with op.batch_alter_table("ports") as batch:
        batch.create_unique_constraint("uq_ports_id_node", ["id", "node_id"])
        batch.create_foreign_key(
            "fk_ports_portgroup_same_node",
            "portgroups",
            ["portgroup_id", "node_id"],
            ["id", "node_id"],
        )
    with op.batch_alter_table("vif_attachments") as batch:
        batch.create_foreign_key(
            "fk_vif_attachments_port_same_node",
            "ports",
            ["port_id", "node_id"],
            ["id", "node_id"],
            ondelete="CASCADE",
        )
        batch.create_foreign_key(
            "fk_vif_attachments_portgroup_same_node",
            "portgroups",
            ["portgroup_id", "node_id"],
            ["id", "node_id"],
            ondelete="CASCADE",
        )


def downgrade() -> None:
    with op.batch_alter_table("vif_attachments") as batch:
        batch.drop_constraint("fk_vif_attachments_portgroup_same_node", type_="foreignkey")
        batch.drop_constraint("fk_vif_attachments_port_same_node", type_="foreignkey")
    with op.batch_alter_table("ports") as batch:
        batch.drop_constraint("fk_ports_portgroup_same_node", type_="foreignkey")
        batch.drop_constraint("uq_ports_id_node", type_="unique")
    with op.batch_alter_table("portgroups") as batch:
        batch.drop_constraint("uq_portgroups_id_node", type_="unique")
