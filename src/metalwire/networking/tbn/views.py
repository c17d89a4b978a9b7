"""What the trait-based networking planner sees of a node: small typed views, no database rows.

The fields issue #20 adds to ports and portgroups (``category``, ``vendor``,
``available_for_dynamic_portgroup``, a portgroup's ``physical_network`` and
``dynamic_portgroup``) are read with ``getattr`` and are None until the rows carry them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only the builders read rows; ``metalwire tbn check`` needs no SQLAlchemy
    from metalwire.db.models import Port, Portgroup


@dataclass(frozen=True)
class PortView:
    """A port or a portgroup as a filter reads it (``port.*`` in a filter means either).

    ``vif`` is the VIF it carries, if any; ``portgroup_uuid`` is a port's portgroup.
    """

    id: int
    uuid: str
    is_portgroup: bool
    address: str | None = None
    category: str | None = None
    physical_network: str | None = None
    vendor: str | None = None
    available_for_dynamic_portgroup: bool = False
    dynamic_portgroup: bool = False
    vif: str | None = None
    portgroup_uuid: str | None = None
    name: str | None = None
    #: Why the node's network interface cannot use this port (it is never taken), or None.
    unusable: str | None = None

    @property
    def kind(self) -> str:
        return "portgroup" if self.is_portgroup else "port"

    @property
    def label(self) -> str:
        """``port <uuid> (<address or name>)``, as the other VIF messages name targets."""
        extra = self.address or self.name
        return f"{self.kind} {self.uuid}" + (f" ({extra})" if extra else "")

    @classmethod
    def of_port(
        cls, port: Port, vif: str | None, portgroup_uuid: str | None, unusable: str | None = None
    ) -> PortView:
        return cls(
            id=port.id,
            uuid=port.uuid,
            is_portgroup=False,
            address=port.address,
            category=_optional_text(port, "category"),
            physical_network=port.physical_network,
            vendor=_optional_text(port, "vendor"),
            available_for_dynamic_portgroup=bool(
                getattr(port, "available_for_dynamic_portgroup", False)
            ),
            vif=vif,
            portgroup_uuid=portgroup_uuid,
            unusable=unusable,
        )

    @classmethod
    def of_portgroup(
        cls,
        portgroup: Portgroup,
        vif: str | None,
        member_physnets: Iterable[str | None] = (),
        unusable: str | None = None,
    ) -> PortView:
        """A portgroup; without its own ``physical_network`` it has the one its members share.
        ``unusable``: why it cannot take a VIF (e.g. a member carries one), or None."""
        physnet = _optional_text(portgroup, "physical_network")
        if physnet is None:
            shared = {p for p in member_physnets if p}
            physnet = shared.pop() if len(shared) == 1 else None
        return cls(
            id=portgroup.id,
            uuid=portgroup.uuid,
            is_portgroup=True,
            address=portgroup.address,
            category=_optional_text(portgroup, "category"),
            physical_network=physnet,
            vendor=_optional_text(portgroup, "vendor"),
            dynamic_portgroup=bool(getattr(portgroup, "dynamic_portgroup", False)),
            vif=vif,
            name=portgroup.name,
            unusable=unusable,
        )


@dataclass(frozen=True)
class NetworkView:
    """The network a VIF is on, from the attach body: ``id``, optional ``name`` and ``tags``."""

    id: str
    name: str | None = None
    tags: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of_attach_body(cls, body: dict[str, Any]) -> NetworkView:
        """``tags`` is a list, or one string of comma-separated tags (what ``baremetal node
        vif attach --vif-info tags=a,b`` sends)."""
        name = body.get("name")
        tags = body.get("tags") or ()
        if isinstance(tags, str):
            tags = [tag.strip() for tag in tags.split(",") if tag.strip()]
        return cls(
            id=str(body["id"]),
            name=name if isinstance(name, str) else None,
            tags=frozenset(str(tag) for tag in tags),
        )


def _optional_text(row: object, attribute: str) -> str | None:
    value = getattr(row, attribute, None)
    return value if isinstance(value, str) and value else None
