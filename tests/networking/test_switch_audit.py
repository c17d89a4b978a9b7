"""The rules of the switch audit: Open vSwitch's answer read, what was set expected, and a
switch that cannot be read back listed as not checked (never as agreeing)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from metalwire.db.models import Port
from metalwire.errors import NetworkError
from metalwire.networking.switch_audit import (
    AuditedPort,
    audit_ports,
    expected_state,
    parse_ovs_port,
)
from metalwire.networking.switch_file import SwitchDefinition
from metalwire.networking.switchport import SwitchportConfig
from metalwire.networking.task import Task


def _switch(device_type: str) -> SwitchDefinition:
    return SwitchDefinition("tor-9", "generic-switch", device_type, "192.0.2.1", "u", 1)


def _audited(device_type: str, state: str = "active", port_id: str = "e1") -> AuditedPort:
    node = SimpleNamespace(uuid="node-1", name="n1", provision_state=state)
    task = SimpleNamespace(
        node=node, portgroups=[], vif_on=lambda target: None, portgroup_by_id=lambda _id: None
    )
    port = SimpleNamespace(uuid="port-1", portgroup_id=None)
    config = SwitchportConfig("access", 200)
    return AuditedPort(cast(Task, task), cast(Port, port), _switch(device_type), port_id, config)


class Reader:
    def __init__(self, answer: str | None) -> None:
        self.answer, self.reads = answer, 0

    def read_ports(self, port_ids: Sequence[str]) -> dict[str, str]:
        self.reads += 1
        self.read = list(port_ids)
        if self.answer is None:
            raise NetworkError("read ports failed: TimeoutError: timed out")
        return dict.fromkeys(port_ids, self.answer)


def _audit(reader: Any, *ports: AuditedPort, tmp_path: Path) -> tuple[list[Any], list[Any]]:
    findings, not_checked = audit_ports(ports, lambda switch: reader, tmp_path)
    return [f.as_json() for f in findings], [n.as_json() for n in not_checked]


def test_open_vswitch_answers_are_read_and_compared_with_what_was_set() -> None:
    assert parse_ovs_port("200\naccess\n[]\n") == expected_state(SwitchportConfig("access", 200))
    trunk = SwitchportConfig("trunk", 10, (10, 20))
    assert parse_ovs_port("10\nnative-untagged\n[10, 20]\n") == expected_state(trunk)
    assert parse_ovs_port("[]\n[]\n[]\n") == expected_state(None)
    assert parse_ovs_port('ovs-vsctl: no row "e9" in table Port\n') == {
        "error": 'no row "e9" in table Port'
    }


def test_a_device_type_that_cannot_be_read_is_not_checked_and_not_read(tmp_path: Path) -> None:
    reader = Reader("300\naccess\n[]\n")

    findings, not_checked = _audit(reader, _audited("netmiko_dell_os10"), tmp_path=tmp_path)

    assert findings == [] and reader.reads == 0
    assert not_checked == [
        {
            "node_uuid": "node-1",
            "node_name": "n1",
            "target_uuid": "port-1",
            "where": "switch tor-9 port e1",
            "reason": "device type netmiko_dell_os10 cannot be read back",
        }
    ]


def test_a_switch_that_does_not_answer_is_not_checked(tmp_path: Path) -> None:
    findings, not_checked = _audit(Reader(None), _audited("netmiko_ovs_linux"), tmp_path=tmp_path)

    assert findings == []
    assert [n["reason"] for n in not_checked] == [
        "the switch was not read: read ports failed: TimeoutError: timed out"
    ]


def test_a_mismatch_is_found_and_a_node_mid_step_is_skipped(tmp_path: Path) -> None:
    reader = Reader("300\naccess\n[]\n")
    busy = _audited("netmiko_ovs_linux", state="deploying")

    findings, _ = _audit(reader, _audited("netmiko_ovs_linux"), busy, tmp_path=tmp_path)

    assert [(f["kind"], f["expected"]["tag"], f["actual"]["tag"]) for f in findings] == [
        ("switchport_mismatch", 200, 300)
    ]
    assert reader.reads == 1


@pytest.mark.parametrize("state", ["rescuing", "unrescuing"])
def test_a_node_whose_rescue_moves_its_switch_ports_is_skipped(state: str, tmp_path: Path) -> None:
    """An ``agent`` rescue or unrescue moves the switch ports (to the rescuing network and
    back) under the node's lock while the audit reads without it, as a deploy does."""
    reader = Reader("300\naccess\n[]\n")

    findings, not_checked = _audit(
        reader, _audited("netmiko_ovs_linux", state=state), tmp_path=tmp_path
    )

    assert (findings, not_checked, reader.reads) == ([], [], 0)


def test_a_port_named_unlike_a_switch_interface_is_not_read(tmp_path: Path) -> None:
    reader = Reader("200\naccess\n[]\n")
    bad = _audited("netmiko_ovs_linux", port_id="e2;touch /tmp/x")

    findings, not_checked = _audit(reader, _audited("netmiko_ovs_linux"), bad, tmp_path=tmp_path)

    assert findings == [] and reader.read == ["e1"]
    assert [n["where"] for n in not_checked] == ["switch tor-9 port e2;touch /tmp/x"]
    assert "letters, digits and _.:/- only" in not_checked[0]["reason"]
