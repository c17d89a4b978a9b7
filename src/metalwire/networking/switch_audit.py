"""The drift audit of ``ironic-networking``: what metalwire set on each switch port, read back.

Each port metalwire has set (its ``internal_info["switchport_applied"]``) is compared with what
its switch reports, for device types that can read a port back (:func:`read_command`; Open
vSwitch's ``ovs-vsctl get port <p> tag vlan_mode trunks``). Each switch is read once per
audit page, every port in one SSH login, under the switch's lock (so no change of ours is
half-made while it is read), the switches in parallel. A port that differs is a
``switchport_mismatch`` finding naming the switch, the port, what was set and what the switch
holds; a port whose switch cannot be read (device type, or the switch did not answer) is
listed as not checked, never as agreeing. Nodes in the middle of a provision step
(``drift.STEPS_IN_PROGRESS``, a rescue's included) are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from metalwire.db.models import Port
from metalwire.errors import NetworkError
from metalwire.networking.drift import (
    STEPS_IN_PROGRESS,
    SWITCHPORT_MISMATCH,
    Finding,
    NotChecked,
)
from metalwire.networking.generic_switch import hidden_errors, read_command
from metalwire.networking.port_ids import port_id_problem
from metalwire.networking.switch_file import SwitchDefinition
from metalwire.networking.switch_ports import switch_lock
from metalwire.networking.switchport import SwitchportConfig
from metalwire.networking.task import Task

__all__ = ["AuditedPort", "audit_ports", "expected_state", "parse_ovs_port"]

Json = dict[str, Any]


@runtime_checkable
class PortReader(Protocol):
    def read_ports(self, port_ids: Sequence[str]) -> dict[str, str]:
        """Each port's answer to the device type's read command; raise NetworkError."""


@dataclass(frozen=True)
class AuditedPort:
    """A node port whose switch port metalwire set to ``expected`` (None: no VLAN)."""

    task: Task
    port: Port
    switch: SwitchDefinition
    port_id: str
    expected: SwitchportConfig | None


def expected_state(config: SwitchportConfig | None) -> Json:
    """What Open vSwitch reports for a port networking-generic-switch set to ``config``."""
    if config is None:
        return {"tag": None, "vlan_mode": None, "trunks": []}
    if config.mode == "access":
        return {"tag": config.native_vlan, "vlan_mode": "access", "trunks": []}
    return {
        "tag": config.native_vlan,
        "vlan_mode": "native-untagged",
        "trunks": sorted(config.vlans),
    }


def parse_ovs_port(output: str) -> Json:
    """``ovs-vsctl get port <p> tag vlan_mode trunks`` as ``{"tag", "vlan_mode", "trunks"}``;
    ``{"error": ...}`` when Open vSwitch answered an error (e.g. no such port)."""
    errors = hidden_errors("netmiko_ovs_linux", output)
    if errors:
        return {"error": "; ".join(errors)}
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    values = [line for line in lines if not line.endswith(("#", "$"))][-3:]
    if len(values) != 3:
        return {"error": f"unexpected answer {output.strip()!r}"}
    tag, mode, trunks = values
    return {
        "tag": None if tag == "[]" else int(tag),
        "vlan_mode": None if mode == "[]" else mode,
        "trunks": sorted(int(vlan) for vlan in re.findall(r"\d+", trunks)),
    }


_PARSERS: dict[str, Callable[[str], Json]] = {"netmiko_ovs_linux": parse_ovs_port}


def _describe(state: Json) -> str:
    if "error" in state:
        return f"unreadable ({state['error']})"
    return f"tag={state['tag']} vlan_mode={state['vlan_mode']} trunks={state['trunks']}"


def _where(audited: AuditedPort) -> str:
    return f"switch {audited.switch.name} port {audited.port_id}"


def _not_checked(audited: AuditedPort, reason: str) -> NotChecked:
    node = audited.task.node
    return NotChecked(node.uuid, node.name, audited.port.uuid, _where(audited), reason)


def _vif_of(audited: AuditedPort) -> str:
    task, port = audited.task, audited.port
    vif = task.vif_on(port)
    group = task.portgroup_by_id(port.portgroup_id)
    if vif is None and group is not None:
        vif = task.vif_on(group)
    return vif or ""


def _finding(audited: AuditedPort, expected: Json, actual: Json) -> Finding:
    node = audited.task.node
    return Finding(
        kind=SWITCHPORT_MISMATCH,
        node_uuid=node.uuid,
        node_name=node.name,
        vif_id=_vif_of(audited),
        target_uuid=audited.port.uuid,
        expected={"switch": audited.switch.name, "port_id": audited.port_id, **expected},
        actual={"switch": audited.switch.name, "port_id": audited.port_id, **actual},
        message=(
            f"Switch {audited.switch.name} port {audited.port_id} (port {audited.port.uuid} "
            f"of node {node.uuid} ({node.name})) is {_describe(actual)}, but metalwire set "
            f"it to {_describe(expected)}."
        ),
    )


def _audit_switch(
    device: object, lock_dir: Path, ports: Sequence[AuditedPort]
) -> tuple[list[Finding], list[NotChecked]]:
    switch = ports[0].switch
    parse = _PARSERS.get(switch.device_type)
    if parse is None or read_command(switch.device_type) is None:
        reason = f"device type {switch.device_type} cannot be read back"
        return [], [_not_checked(port, reason) for port in ports]
    if not isinstance(device, PortReader):
        return [], [_not_checked(port, "its switch driver reads nothing back") for port in ports]
    # a name that is no switch interface name is not read (read_ports refuses it)
    problems = {port.port_id: port_id_problem(port.port_id) for port in ports}
    unnamed = [
        _not_checked(port, f"not read: {problems[port.port_id]}")
        for port in ports
        if problems[port.port_id] is not None
    ]
    ports = [port for port in ports if problems[port.port_id] is None]
    if not ports:
        return [], unnamed
    try:
        with switch_lock(lock_dir, switch.name):
            answers = device.read_ports(list(dict.fromkeys(port.port_id for port in ports)))
    except NetworkError as exc:
        reason = f"the switch was not read: {exc}"
        return [], unnamed + [_not_checked(port, reason) for port in ports]
    findings = []
    for audited in ports:
        expected = expected_state(audited.expected)
        actual = parse(answers[audited.port_id])
        if actual != expected:
            findings.append(_finding(audited, expected, actual))
    return findings, unnamed


def audit_ports(
    ports: Sequence[AuditedPort], factory: Callable[[SwitchDefinition], object], lock_dir: Path
) -> tuple[list[Finding], list[NotChecked]]:
    """The findings of the ports, and the ports not checked; one read per switch."""
    by_switch: dict[str, list[AuditedPort]] = {}
    for audited in ports:
        if audited.task.node.provision_state not in STEPS_IN_PROGRESS:
            by_switch.setdefault(audited.switch.name, []).append(audited)
    findings: list[Finding] = []
    not_checked: list[NotChecked] = []
    if not by_switch:
        return findings, not_checked
    with ThreadPoolExecutor(max_workers=len(by_switch)) as pool:
        results = pool.map(
            lambda group: _audit_switch(factory(group[0].switch), lock_dir, group),
            by_switch.values(),
        )
        for found, unchecked in results:
            findings += found
            not_checked += unchecked
    return findings, not_checked
