"""Initial schema: nodes, portgroups, ports, VIF attachments, node history.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def _timestamps() -> list[sa.Column[object]]:
    return [
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        "nodes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("name", sa.String(255), nullable=True, unique=True),
        sa.Column("driver", sa.String(255), nullable=False),
        sa.Column("network_interface", sa.String(255), nullable=False),
        sa.Column("provision_state", sa.String(32), nullable=False),
        sa.Column("target_provision_state", sa.String(32), nullable=True),
        sa.Column("provision_updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("power_state", sa.String(32), nullable=True),
        sa.Column("maintenance", sa.Boolean, nullable=False),
        sa.Column("maintenance_reason", sa.Text, nullable=True),
        sa.Column("instance_uuid", sa.String(36), nullable=True, unique=True),
        sa.Column("owner", sa.String(255), nullable=True, index=True),
        sa.Column("lessee", sa.String(255), nullable=True, index=True),
        sa.Column("resource_class", sa.String(80), nullable=True),
        sa.Column("conductor_group", sa.String(255), nullable=False),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("properties", sa.JSON, nullable=False),
        sa.Column("extra", sa.JSON, nullable=False),
        sa.Column("instance_info", sa.JSON, nullable=False),
        sa.Column("driver_info", sa.JSON, nullable=False),
        sa.Column("driver_internal_info", sa.JSON, nullable=False),
        sa.Column("attrs", sa.JSON, nullable=False),
        sa.Column("reservation", sa.String(255), nullable=True),
        sa.Column("lock_expires_at", sa.Float, nullable=True),
        *_timestamps(),
    )
    op.create_index("ix_nodes_provision_state", "nodes", ["provision_state"])
    op.create_index("ix_nodes_driver", "nodes", ["driver"])

    op.create_table(
        "portgroups",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column(
            "node_id",
            sa.Integer,
            sa.ForeignKey("nodes.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("name", sa.String(255), nullable=True, unique=True),
        sa.Column("address", sa.String(18), nullable=True, unique=True),
        sa.Column("mode", sa.String(255), nullable=True),
        sa.Column("properties", sa.JSON, nullable=False),
        sa.Column("standalone_ports_supported", sa.Boolean, nullable=False),
        sa.Column("extra", sa.JSON, nullable=False),
        sa.Column("internal_info", sa.JSON, nullable=False),
        *_timestamps(),
    )

    op.create_table(
        "ports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column(
            "node_id",
            sa.Integer,
            sa.ForeignKey("nodes.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column(
            "portgroup_id",
            sa.Integer,
            sa.ForeignKey("portgroups.id", ondelete="RESTRICT"),
            nullable=True,
            index=True,
        ),
        sa.Column("address", sa.String(18), nullable=False, unique=True),
        sa.Column("local_link_connection", sa.JSON, nullable=False),
        sa.Column("pxe_enabled", sa.Boolean, nullable=False),
        sa.Column("physical_network", sa.String(64), nullable=True),
        sa.Column("is_smartnic", sa.Boolean, nullable=False),
        sa.Column("extra", sa.JSON, nullable=False),
        sa.Column("internal_info", sa.JSON, nullable=False),
        *_timestamps(),
    )

    op.create_table(
        "vif_attachments",
        sa.Column("vif_id", sa.String(255), primary_key=True),
        sa.Column(
            "node_id",
            sa.Integer,
            sa.ForeignKey("nodes.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column(
            "port_id",
            sa.Integer,
            sa.ForeignKey("ports.id", ondelete="CASCADE"),
            nullable=True,
            unique=True,
        ),
        sa.Column(
            "portgroup_id",
            sa.Integer,
            sa.ForeignKey("portgroups.id", ondelete="CASCADE"),
            nullable=True,
            unique=True,
        ),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("info", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "(port_id IS NULL) <> (portgroup_id IS NULL)", name="ck_vif_on_port_or_portgroup"
        ),
    )

    op.create_table(
        "node_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column(
            "node_id", sa.Integer, sa.ForeignKey("nodes.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("severity", sa.String(16), nullable=False),
        sa.Column("event_type", sa.String(32), nullable=False),
        sa.Column("event", sa.Text, nullable=False),
        sa.Column("conductor", sa.String(255), nullable=True),
        sa.Column("user", sa.String(255), nullable=True),
        sa.Column("vif_id", sa.String(255), nullable=True),
        sa.Column("target_uuid", sa.String(36), nullable=True),
        sa.Column("result", sa.String(16), nullable=True),
    )
    op.create_index("ix_node_history_node_created", "node_history", ["node_id", "created_at"])


def downgrade() -> None:
    for table in ("node_history", "vif_attachments", "ports", "portgroups", "nodes"):
        op.drop_table(table)
