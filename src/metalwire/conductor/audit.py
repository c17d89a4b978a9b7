"""Drift audit: where the VIF attachments and the outside world disagree, node by node.

The conductor's part is generic: it reads the nodes a page at a time, without locks, and
hands each page's nodes to their network interfaces (``NetworkInterface.audit_nodes``), which
compare their records with the external service they keep in step and report
:class:`~metalwire.networking.drift.Finding` objects. An interface that keeps nothing outside
metalwire has nothing to find. Repairs take the node's lock (:mod:`.audit_repair`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.errors import Invalid, NodeNotFound
from metalwire.networking.base import NetworkInterface
from metalwire.networking.drift import KINDS, Finding, Json, NotChecked
from metalwire.networking.task import Task

__all__ = ["KINDS", "AuditReport", "Finding", "Json", "NotChecked", "audit", "audited_interface"]

#: Nodes read and compared at a time: the audit of 10,000 nodes holds one page in memory.
PAGE = 500


@dataclass(frozen=True)
class AuditReport:
    findings: list[Finding]
    nodes_checked: int
    checked_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    #: What the interfaces could not compare (e.g. a switch that cannot be read back).
    not_checked: list[NotChecked] = field(default_factory=list)

    def as_json(self) -> Json:
        return {
            "checked_at": self.checked_at.isoformat(),
            "nodes_checked": self.nodes_checked,
            "findings": [f.as_json() for f in self.findings],
            "not_checked": [n.as_json() for n in self.not_checked],
        }

    @classmethod
    def from_json(cls, body: Json) -> AuditReport:
        """The report :meth:`as_json` wrote."""
        return cls(
            findings=[Finding.from_json(f) for f in body["findings"]],
            nodes_checked=body["nodes_checked"],
            checked_at=dt.datetime.fromisoformat(body["checked_at"]),
            not_checked=[NotChecked.from_json(n) for n in body["not_checked"]],
        )


def audit_unavailable(conductor: Conductor) -> str | None:
    """Why no enabled interface can take part in the drift audit (each one's reason), or
    None if one can."""
    reasons = {name: i.audit_unavailable() for name, i in conductor.interfaces.by_name.items()}
    if any(reason is None for reason in reasons.values()):
        return None
    why = "; ".join(f"{name}: {reason}" for name, reason in reasons.items())
    return f"No enabled network interface can take part in the drift audit ({why})"


def check_auditable(conductor: Conductor) -> None:
    """Raise Invalid, with each enabled interface's reason, if none can be audited."""
    why = audit_unavailable(conductor)
    if why is not None:
        raise Invalid(why)


def audited_interface(conductor: Conductor, task: Task) -> NetworkInterface | None:
    """The node's interface, if it can be audited now."""
    iface = conductor.network_interface(task.node)
    return iface if iface.audit_unavailable() is None else None


def _pages(nodes: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(nodes), PAGE):
        yield nodes[start : start + PAGE]


def _page_findings(
    conductor: Conductor, tasks: Sequence[Task]
) -> tuple[list[Finding], list[NotChecked]]:
    """The findings of a page of nodes, and what could not be compared: each interface
    audits its own nodes at once."""
    by_interface: dict[str, tuple[NetworkInterface, list[Task]]] = {}
    for task in tasks:
        iface = audited_interface(conductor, task)
        if iface is not None:
            by_interface.setdefault(task.node.network_interface, (iface, []))[1].append(task)
    findings: list[Finding] = []
    not_checked: list[NotChecked] = []
    for iface, audited in by_interface.values():
        found, unchecked = iface.audit_nodes_checked(audited)
        findings += found
        not_checked += unchecked
    return findings, not_checked


def audit(conductor: Conductor, context: RequestContext, nodes: Sequence[str]) -> AuditReport:
    """Audit the nodes (UUIDs or names); a node deleted meanwhile is skipped.

    Raises Invalid when no enabled interface can be audited (e.g. no Neutron is configured),
    and what the interfaces raise (NetworkError when Neutron fails). What an interface could
    not compare (a switch that cannot be read back) is in the report's ``not_checked``.
    """
    check_auditable(conductor)
    findings: list[Finding] = []
    not_checked: list[NotChecked] = []
    checked = 0
    for page in _pages(nodes):
        tasks: list[Task] = []
        for ident in page:
            with contextlib.suppress(NodeNotFound):
                tasks.append(conductor.shared_task(ident, context))
        checked += len(tasks)
        found, unchecked = _page_findings(conductor, tasks)
        findings += found
        not_checked += unchecked
    return AuditReport(findings, checked, not_checked=not_checked)
