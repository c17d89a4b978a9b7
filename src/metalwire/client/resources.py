"""Nodes, ports, portgroups and chassis as the server shows them.

Each is a read-only mapping of the fields in the response (which fields depends on the
microversion and on ``fields=``), with typed properties for the common ones. A property whose
field is absent reads as None (or an empty dict).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class Resource(Mapping[str, Any]):
    """A resource body; read fields as keys or through the typed properties."""

    __slots__ = ("_data",)
    kind = "resource"
    named_by = "uuid"  # the field that names one (a conductor's hostname, a driver's name)

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = dict(data)

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._data.get(self.named_by)!r})"

    def to_dict(self) -> dict[str, Any]:
        """A copy of every field, links included."""
        return dict(self._data)

    def fields(self) -> dict[str, Any]:
        """A copy of the fields without the hypermedia links (``links``, ``ports``...)."""
        return {k: v for k, v in self._data.items() if not _is_links(v)}

    def _str(self, key: str) -> str | None:
        value = self._data.get(key)
        return None if value is None else str(value)

    def _bool(self, key: str) -> bool | None:
        value = self._data.get(key)
        return None if value is None else bool(value)

    def _dict(self, key: str) -> dict[str, Any]:
        value = self._data.get(key)
        return dict(value) if isinstance(value, dict) else {}

    @property
    def uuid(self) -> str:
        return str(self._data.get("uuid", ""))


def _is_links(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, dict) and set(v) == {"href", "rel"} for v in value)
    )


class Node(Resource):
    kind = "node"

    @property
    def name(self) -> str | None:
        return self._str("name")

    @property
    def driver(self) -> str | None:
        return self._str("driver")

    @property
    def provision_state(self) -> str | None:
        return self._str("provision_state")

    @property
    def target_provision_state(self) -> str | None:
        return self._str("target_provision_state")

    @property
    def power_state(self) -> str | None:
        return self._str("power_state")

    @property
    def maintenance(self) -> bool:
        return bool(self._data.get("maintenance"))

    @property
    def maintenance_reason(self) -> str | None:
        return self._str("maintenance_reason")

    @property
    def instance_uuid(self) -> str | None:
        return self._str("instance_uuid")

    @property
    def network_interface(self) -> str | None:
        return self._str("network_interface")

    @property
    def resource_class(self) -> str | None:
        return self._str("resource_class")

    @property
    def chassis_uuid(self) -> str | None:
        return self._str("chassis_uuid")

    @property
    def parent_node(self) -> str | None:
        return self._str("parent_node")

    @property
    def protected(self) -> bool:
        return bool(self._data.get("protected"))

    @property
    def retired(self) -> bool:
        return bool(self._data.get("retired"))

    @property
    def retired_reason(self) -> str | None:
        return self._str("retired_reason")

    @property
    def last_error(self) -> str | None:
        return self._str("last_error")

    @property
    def properties(self) -> dict[str, Any]:
        return self._dict("properties")

    @property
    def extra(self) -> dict[str, Any]:
        return self._dict("extra")

    @property
    def driver_info(self) -> dict[str, Any]:
        return self._dict("driver_info")

    @property
    def instance_info(self) -> dict[str, Any]:
        return self._dict("instance_info")

    @property
    def label(self) -> str:
        """``name`` if set, else ``uuid``."""
        return self.name or self.uuid


class Port(Resource):
    kind = "port"

    @property
    def address(self) -> str | None:
        return self._str("address")

    @property
    def node_uuid(self) -> str | None:
        return self._str("node_uuid")

    @property
    def portgroup_uuid(self) -> str | None:
        return self._str("portgroup_uuid")

    @property
    def pxe_enabled(self) -> bool | None:
        return self._bool("pxe_enabled")

    @property
    def physical_network(self) -> str | None:
        return self._str("physical_network")

    @property
    def name(self) -> str | None:
        return self._str("name")

    @property
    def description(self) -> str | None:
        return self._str("description")

    @property
    def vendor(self) -> str | None:
        return self._str("vendor")

    @property
    def category(self) -> str | None:
        return self._str("category")

    @property
    def is_smartnic(self) -> bool | None:
        return self._bool("is_smartnic")

    @property
    def available_for_dynamic_portgroup(self) -> bool | None:
        return self._bool("available_for_dynamic_portgroup")

    @property
    def local_link_connection(self) -> dict[str, Any]:
        return self._dict("local_link_connection")

    @property
    def extra(self) -> dict[str, Any]:
        return self._dict("extra")

    @property
    def internal_info(self) -> dict[str, Any]:
        return self._dict("internal_info")

    @property
    def vif_id(self) -> str | None:
        """The VIF attached to this port, if the response shows it."""
        value = self.internal_info.get("tenant_vif_port_id") or self.extra.get("vif_port_id")
        return None if value is None else str(value)


class Portgroup(Resource):
    kind = "portgroup"

    @property
    def name(self) -> str | None:
        return self._str("name")

    @property
    def address(self) -> str | None:
        return self._str("address")

    @property
    def node_uuid(self) -> str | None:
        return self._str("node_uuid")

    @property
    def mode(self) -> str | None:
        return self._str("mode")

    @property
    def standalone_ports_supported(self) -> bool | None:
        return self._bool("standalone_ports_supported")

    @property
    def physical_network(self) -> str | None:
        return self._str("physical_network")

    @property
    def category(self) -> str | None:
        return self._str("category")

    @property
    def properties(self) -> dict[str, Any]:
        return self._dict("properties")

    @property
    def extra(self) -> dict[str, Any]:
        return self._dict("extra")

    @property
    def internal_info(self) -> dict[str, Any]:
        return self._dict("internal_info")

    @property
    def vif_id(self) -> str | None:
        """The VIF attached to this portgroup, if the response shows it."""
        value = self.internal_info.get("tenant_vif_port_id") or self.extra.get("vif_port_id")
        return None if value is None else str(value)


class Chassis(Resource):
    """A chassis: a group of nodes (a rack, an enclosure) that nodes name by ``chassis_uuid``."""

    kind = "chassis"

    @property
    def description(self) -> str | None:
        return self._str("description")

    @property
    def extra(self) -> dict[str, Any]:
        return self._dict("extra")


class Allocation(Resource):
    """A request for a node: the node found (``node_uuid``) by resource class, traits and
    candidates, or the reason none was (``last_error``, state ``error``)."""

    kind = "allocation"

    @property
    def name(self) -> str | None:
        return self._str("name")

    @property
    def state(self) -> str | None:
        return self._str("state")

    @property
    def node_uuid(self) -> str | None:
        return self._str("node_uuid")

    @property
    def resource_class(self) -> str | None:
        return self._str("resource_class")

    @property
    def last_error(self) -> str | None:
        return self._str("last_error")


class _NamedSteps(Resource):
    """A named list of steps: a deploy template or a runbook."""

    @property
    def name(self) -> str | None:
        return self._str("name")

    @property
    def steps(self) -> list[dict[str, Any]]:
        steps = self._data.get("steps")
        return [dict(step) for step in steps] if isinstance(steps, list) else []


class DeployTemplate(_NamedSteps):
    """Deploy steps a node's instance runs when its ``instance_info/traits`` name the
    template."""

    kind = "deploy template"


class Runbook(_NamedSteps):
    """Clean or service steps a node runs by name (``runbook`` of a provision verb)."""

    kind = "runbook"


class VolumeConnector(Resource):
    """How a node connects to storage: ``type`` (iqn, wwpn, ...) and ``connector_id``."""

    kind = "volume connector"


class HistoryEvent(Resource):
    """One entry of a node's history: ``created_at``, ``severity`` (INFO, ERROR) and
    ``event``; listed with ``detail``, also ``event_type``, ``user``, ``conductor``, ..."""

    kind = "history event"


class VolumeTarget(Resource):
    """A volume a node uses, ``boot_index`` 0 the one it boots from."""

    kind = "volume target"


class Conductor(Resource):
    """A server process that runs the nodes' operations, named by its ``hostname`` (API 1.49):
    ``conductor_group``, ``alive`` and, listed with ``detail``, its ``drivers``."""

    kind = "conductor"
    named_by = "hostname"

    @property
    def hostname(self) -> str | None:
        return self._str("hostname")


class Driver(Resource):
    """An enabled hardware type, named by its ``name``: the ``hosts`` that enable it and,
    shown with ``detail`` (API 1.30), each kind's default and enabled interfaces."""

    kind = "driver"
    named_by = "name"

    @property
    def name(self) -> str | None:
        return self._str("name")
