"""Tables. Every SQL statement that touches them lives in the repositories beside this file."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Double,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def node_label(uuid: str, name: str | None) -> str:
    """How messages name a node: its UUID, and its name in brackets if it has one."""
    return uuid + (f" ({name})" if name else "")


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class Chassis(Base):
    """A group of nodes (Ironic's chassis): a node names its chassis by ``chassis_uuid``, kept
    in its ``attrs``; the conductor keeps every recorded chassis_uuid naming a row here."""

    __tablename__ = "chassis"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    description: Mapped[str | None] = mapped_column(String(255))
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class DeployTemplate(Base):
    """A deploy template (Ironic's, API 1.55): the deploy steps a deploy runs when the
    template's name, a trait, is among the node's ``instance_info/traits``. ``steps`` is the
    list of steps in the order given, each ``interface``, ``step``, ``args`` and an integer
    ``priority``."""

    __tablename__ = "deploy_templates"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    steps: Mapped[list[Any]] = mapped_column(JSON, default=list)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class Runbook(Base):
    """A runbook (Ironic's, API 1.92): named clean or service steps a project may run on a
    node whose traits approve it. ``steps`` is the list of steps in the order given, each
    ``interface``, ``step``, ``args`` and an integer ``order``; ``traits`` (1.112) are the
    node traits that approve it. ``owner`` is the project it belongs to (none: the
    system's); a ``public`` runbook has no owner and every project may see and use it."""

    __tablename__ = "runbooks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    description: Mapped[str | None] = mapped_column(String(255))
    steps: Mapped[list[Any]] = mapped_column(JSON, default=list)
    traits: Mapped[list[Any]] = mapped_column(JSON, default=list)
    disable_ramdisk: Mapped[bool] = mapped_column(Boolean, default=False)
    public: Mapped[bool] = mapped_column(Boolean, default=False)
    owner: Mapped[str | None] = mapped_column(String(255))
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class Conductor(Base):
    """A ``metalwire serve`` process (all the workers of one) registered under its ``[DEFAULT]
    host``: the hardware types it enables, whether it stopped cleanly (``online``) and when
    it last said it runs (``updated_at``, its heartbeat)."""

    __tablename__ = "conductors"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    hostname: Mapped[str] = mapped_column(String(255), unique=True)
    conductor_group: Mapped[str] = mapped_column(String(255), default="", server_default="")
    drivers: Mapped[list[Any]] = mapped_column(JSON, default=list)
    online: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class Allocation(Base):
    """A request for a node (Ironic's allocation, API 1.52): a resource class, traits and
    candidate nodes; once ``active``, ``node_id`` is the node it reserved, whose
    ``instance_uuid`` is this allocation's UUID and whose ``allocation_uuid`` (in its
    ``attrs``) names it. A deleted node leaves the allocation without one, as Ironic's."""

    __tablename__ = "allocations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    name: Mapped[str | None] = mapped_column(String(255), unique=True)
    node_id: Mapped[int | None] = mapped_column(
        ForeignKey("nodes.id", ondelete="SET NULL"), unique=True
    )
    state: Mapped[str] = mapped_column(String(15))
    owner: Mapped[str | None] = mapped_column(String(255), index=True)
    last_error: Mapped[str | None] = mapped_column(Text)
    resource_class: Mapped[str | None] = mapped_column(String(80))
    traits: Mapped[list[Any]] = mapped_column(JSON, default=list)
    candidate_nodes: Mapped[list[Any]] = mapped_column(JSON, default=list)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class Node(Base):
    __tablename__ = "nodes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    name: Mapped[str | None] = mapped_column(String(255), unique=True)
    driver: Mapped[str] = mapped_column(String(255))
    network_interface: Mapped[str] = mapped_column(String(255))
    provision_state: Mapped[str] = mapped_column(String(32))
    target_provision_state: Mapped[str | None] = mapped_column(String(32))
    provision_updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    power_state: Mapped[str | None] = mapped_column(String(32))
    maintenance: Mapped[bool] = mapped_column(Boolean, default=False)
    maintenance_reason: Mapped[str | None] = mapped_column(Text)
    instance_uuid: Mapped[str | None] = mapped_column(String(36), unique=True)
    # The name of the instance on the node (1.104); a list filter reads it (migration 0008).
    instance_name: Mapped[str | None] = mapped_column(String(255), index=True)
    owner: Mapped[str | None] = mapped_column(String(255), index=True)
    lessee: Mapped[str | None] = mapped_column(String(255), index=True)
    resource_class: Mapped[str | None] = mapped_column(String(80))
    conductor_group: Mapped[str] = mapped_column(String(255), default="")
    # Which nova-compute service (or other client) works on the node (1.82).
    shard: Mapped[str | None] = mapped_column(String(255), index=True)
    # The UUID of the node this one is a child of (1.83); lists hide children by default.
    parent_node: Mapped[str | None] = mapped_column(String(36), index=True)
    last_error: Mapped[str | None] = mapped_column(Text)
    properties: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    instance_info: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    driver_info: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    driver_internal_info: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # Fields that metalwire stores and shows but attaches no behaviour to.
    attrs: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # The node lock: who holds it and until when (epoch seconds) without renewal.
    reservation: Mapped[str | None] = mapped_column(String(255))
    # Epoch seconds: double precision (a 4-byte FLOAT, as MariaDB reads "FLOAT", rounds an epoch
    # to minutes, and a lease would end early or late).
    lock_expires_at: Mapped[float | None] = mapped_column(Double)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        Index("ix_nodes_provision_state", "provision_state"),
        Index("ix_nodes_driver", "driver"),
    )

    @property
    def label(self) -> str:
        return node_label(self.uuid, self.name)


class Portgroup(Base):
    __tablename__ = "portgroups"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    node_id: Mapped[int] = mapped_column(ForeignKey("nodes.id", ondelete="CASCADE"), index=True)
    name: Mapped[str | None] = mapped_column(String(255), unique=True)
    address: Mapped[str | None] = mapped_column(String(18), unique=True)
    mode: Mapped[str | None] = mapped_column(String(255))
    properties: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    standalone_ports_supported: Mapped[bool] = mapped_column(Boolean, default=True)
    # Fields of API 1.102-1.111 (migration 0007).
    physical_network: Mapped[str | None] = mapped_column(String(64))
    category: Mapped[str | None] = mapped_column(String(80))
    dynamic_portgroup: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    internal_info: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))

    # The target of the keys that keep member ports and VIFs on the portgroup's own node.
    __table_args__ = (UniqueConstraint("id", "node_id", name="uq_portgroups_id_node"),)


class Port(Base):
    __tablename__ = "ports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    node_id: Mapped[int] = mapped_column(ForeignKey("nodes.id", ondelete="CASCADE"), index=True)
    portgroup_id: Mapped[int | None] = mapped_column(
        ForeignKey("portgroups.id", ondelete="RESTRICT"), index=True
    )
    address: Mapped[str] = mapped_column(String(18), unique=True)
    local_link_connection: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    pxe_enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    physical_network: Mapped[str | None] = mapped_column(String(64))
    is_smartnic: Mapped[bool] = mapped_column(Boolean, default=False)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    internal_info: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # Fields of API 1.88-1.111 (migration 0007); the name is a port ident like the UUID.
    name: Mapped[str | None] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(String(255))
    vendor: Mapped[str | None] = mapped_column(String(32))
    category: Mapped[str | None] = mapped_column(String(80))
    available_for_dynamic_portgroup: Mapped[bool] = mapped_column(
        Boolean, default=True, server_default=true()
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        UniqueConstraint("id", "node_id", name="uq_ports_id_node"),
        UniqueConstraint("name", name="uq_ports_name"),
        # A port's portgroup is on the port's node.
        ForeignKeyConstraint(
            ["portgroup_id", "node_id"],
            ["portgroups.id", "portgroups.node_id"],
            name="fk_ports_portgroup_same_node",
        ),
    )


class VifAttachment(Base):
    """One row per attached VIF; the keys make the invariants hold in the database itself.

    The primary key puts a VIF on at most one node; the unique port and portgroup columns put
    at most one VIF on each port and portgroup; the composite keys keep the port or portgroup
    on the attachment's node (so neither can move to another node while it carries the VIF).
    """

    __tablename__ = "vif_attachments"

    vif_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    node_id: Mapped[int] = mapped_column(ForeignKey("nodes.id", ondelete="CASCADE"), index=True)
    port_id: Mapped[int | None] = mapped_column(
        ForeignKey("ports.id", ondelete="CASCADE"), unique=True
    )
    portgroup_id: Mapped[int | None] = mapped_column(
        ForeignKey("portgroups.id", ondelete="CASCADE"), unique=True
    )
    # "api" for POST /vifs, "legacy" for a PATCH of extra/vif_port_id.
    source: Mapped[str] = mapped_column(String(16), default="api")
    # True while an attach that calls an external service is under way; such a row reserves
    # the VIF and the target but is not shown as attached. A pending row whose operation no
    # longer holds the node lock was interrupted and is cleared by the next one.
    pending: Mapped[bool] = mapped_column(Boolean, default=False)
    info: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (
        CheckConstraint(
            "(port_id IS NULL) <> (portgroup_id IS NULL)", name="ck_vif_on_port_or_portgroup"
        ),
        ForeignKeyConstraint(
            ["port_id", "node_id"],
            ["ports.id", "ports.node_id"],
            name="fk_vif_attachments_port_same_node",
            ondelete="CASCADE",
        ),
        ForeignKeyConstraint(
            ["portgroup_id", "node_id"],
            ["portgroups.id", "portgroups.node_id"],
            name="fk_vif_attachments_portgroup_same_node",
            ondelete="CASCADE",
        ),
    )


class NodeHistory(Base):
    __tablename__ = "node_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    node_id: Mapped[int] = mapped_column(ForeignKey("nodes.id", ondelete="CASCADE"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    severity: Mapped[str] = mapped_column(String(16))
    event_type: Mapped[str] = mapped_column(String(32))
    event: Mapped[str] = mapped_column(Text)
    conductor: Mapped[str | None] = mapped_column(String(255))
    user: Mapped[str | None] = mapped_column(String(255))
    project: Mapped[str | None] = mapped_column(String(255))  # shown from 1.113
    # the node's, when the entry was written (migration 0009; shown from 1.115)
    state: Mapped[str | None] = mapped_column(String(32))
    target_provision_state: Mapped[str | None] = mapped_column(String(32))
    duration_seconds: Mapped[int | None] = mapped_column(Integer)
    vif_id: Mapped[str | None] = mapped_column(String(255))
    target_uuid: Mapped[str | None] = mapped_column(String(36))
    result: Mapped[str | None] = mapped_column(String(16))

    __table_args__ = (Index("ix_node_history_node_created", "node_id", "created_at"),)


class InspectionData(Base):
    """What a node's last inspection stored (Ironic's node inventory): the hardware
    ``inventory`` its ramdisk reported and the ``plugin_data`` the inspection hooks kept,
    one row per node, replaced by the next inspection and deleted with the node."""

    __tablename__ = "inspection_data"

    node_id: Mapped[int] = mapped_column(
        ForeignKey("nodes.id", ondelete="CASCADE"), primary_key=True
    )
    inventory: Mapped[dict[str, Any]] = mapped_column(JSON)
    plugin_data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class _VolumeRow:
    """The columns volume connectors and targets share: identity, node, extra, times."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    node_id: Mapped[int] = mapped_column(ForeignKey("nodes.id", ondelete="CASCADE"), index=True)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class VolumeConnector(_VolumeRow, Base):
    """A way the node reaches a storage network (an iSCSI IQN, an IP, a WWPN, ...)."""

    __tablename__ = "volume_connectors"

    type: Mapped[str] = mapped_column(String(32))
    connector_id: Mapped[str] = mapped_column(String(255))

    # One connector per identifier of a kind, across every node (Ironic's rule).
    __table_args__ = (
        UniqueConstraint("type", "connector_id", name="uq_volume_connectors_type_connector_id"),
    )


class VolumeTarget(_VolumeRow, Base):
    """A volume the node boots from or attaches, by its Cinder volume id."""

    __tablename__ = "volume_targets"

    volume_type: Mapped[str] = mapped_column(String(64))
    properties: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    boot_index: Mapped[int] = mapped_column(Integer)
    volume_id: Mapped[str] = mapped_column(String(36))

    # One target per boot index on a node (Ironic's rule).
    __table_args__ = (
        UniqueConstraint("node_id", "boot_index", name="uq_volume_targets_node_boot_index"),
    )
