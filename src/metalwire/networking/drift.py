"""What the drift audit reports: where a node's records and an external service disagree.

A network interface that keeps something outside metalwire in step with the VIF attachments
(``NetworkInterface.audit`` / ``repair``) reports each difference as a :class:`Finding`. The
kinds below are those metalwire's own interfaces report; an interface may add its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Json = dict[str, Any]

VIF_PORT_MISSING = "vif_port_missing"
MAC_MISMATCH = "mac_mismatch"
BINDING_MISMATCH = "binding_mismatch"
BOUND_WHILE_NOT_DEPLOYED = "bound_while_not_deployed"
ORPHAN_PORT = "orphan_port"
#: A dynamic portgroup (trait-based networking) whose VIF is gone: no record, or no port in
#: Neutron; the group exists only for its VIF.
DYNAMIC_PORTGROUP_VIF_GONE = "dynamic_portgroup_vif_gone"
#: A switch port (``ironic-networking``) whose VLANs, read back from the switch, are not what
#: metalwire set on it.
SWITCHPORT_MISMATCH = "switchport_mismatch"
KINDS = (
    VIF_PORT_MISSING,
    MAC_MISMATCH,
    BINDING_MISMATCH,
    BOUND_WHILE_NOT_DEPLOYED,
    ORPHAN_PORT,
    DYNAMIC_PORTGROUP_VIF_GONE,
    SWITCHPORT_MISMATCH,
)

#: The provision states whose steps move a node's network under its lock (an ``agent``
#: rescue's and unrescue's included, and an inspection's, whose ports are not yet recorded):
#: an audit, which reads without the lock, would see a half-done change, so every audit
#: skips a node in one of them.
STEPS_IN_PROGRESS = frozenset(
    {"deploying", "deleting", "cleaning", "verifying", "rescuing", "unrescuing", "inspecting"}
)


@dataclass(frozen=True)
class Finding:
    """One place where an attachment (or its absence) and the external service disagree.

    ``repair`` says what ``repair`` would do about it ("reset MAC"), or None if it is left to
    the operator.
    """

    kind: str
    node_uuid: str
    node_name: str | None
    vif_id: str
    target_uuid: str | None
    expected: Any
    actual: Any
    message: str
    repair: str | None = None

    def as_json(self) -> Json:
        return {
            "kind": self.kind,
            "node_uuid": self.node_uuid,
            "node_name": self.node_name,
            "vif_id": self.vif_id,
            "target_uuid": self.target_uuid,
            "expected": self.expected,
            "actual": self.actual,
            "repairable": self.repair is not None,
            "repair": self.repair,
            "message": self.message,
        }

    @classmethod
    def from_json(cls, body: Json) -> Finding:
        """The finding :meth:`as_json` wrote."""
        return cls(
            kind=body["kind"],
            node_uuid=body["node_uuid"],
            node_name=body["node_name"],
            vif_id=body["vif_id"],
            target_uuid=body["target_uuid"],
            expected=body["expected"],
            actual=body["actual"],
            message=body["message"],
            repair=body["repair"],
        )


@dataclass(frozen=True)
class NotChecked:
    """Something the audit could not compare (never counted as agreeing): e.g. a switch port
    whose device type cannot be read back, or a switch that did not answer."""

    node_uuid: str
    node_name: str | None
    target_uuid: str | None
    where: str  # what was not compared, e.g. "switch tor-1 port swp1"
    reason: str

    def as_json(self) -> Json:
        return {
            "node_uuid": self.node_uuid,
            "node_name": self.node_name,
            "target_uuid": self.target_uuid,
            "where": self.where,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, body: Json) -> NotChecked:
        """What :meth:`as_json` wrote (its keys are the fields' names)."""
        return cls(**body)
