"""networking-generic-switch's ``netmiko_ovs_linux`` device type drives the emulated switch
over SSH: what it sets is read back from Open vSwitch and seen on the wire by the servers.

Each operation is a real SSH login and costs about 3 s, so every test sends only the one or
two operations it is about and sets the rest of its starting state directly.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from metalwire.networking.generic_switch import device_config, hidden_errors
from metalwire.networking.switch_file import parse_switch_file
from tests.support.generic_switch import GenericSwitchRunner, Operation, OperationResult
from tests.support.helpers import skip_or_fail
from tests.support.switch import EmulatedSwitch, PortVlan


@pytest.fixture(scope="module")
def runner() -> GenericSwitchRunner:
    runner = GenericSwitchRunner()
    if runner.missing:
        skip_or_fail(runner.missing)
    return runner


def run_all(
    runner: GenericSwitchRunner, switch: EmulatedSwitch, operations: Sequence[Operation]
) -> list[OperationResult]:
    # the device as metalwire builds it from a switch file naming this switch
    (switch_definition,) = parse_switch_file(switch.switch_file_section(), "test").values()
    results = runner.run(device_config(switch_definition), operations)
    for result in results:
        print(f"{result.method}: {result.seconds:.2f} s")  # the cost of one SSH operation
    assert [result.error for result in results] == [None] * len(operations), results
    return results


def test_plug_port_to_network_sets_the_access_vlan_over_ssh(
    emulated_switch: EmulatedSwitch, runner: GenericSwitchRunner
) -> None:
    switch = emulated_switch
    switch.set_access_vlan("swp1", 300)
    switch.set_access_vlan("swp3", 200)
    assert not switch.ping(1, 2)

    run_all(
        runner,
        switch,
        [
            Operation("plug_port_to_network", ("swp1", 100)),
            Operation("plug_port_to_network", ("swp2", 100)),
        ],
    )

    assert switch.port_vlan("swp1") == PortVlan(tag=100, vlan_mode="access", trunks=())
    assert switch.port_vlan("swp2") == PortVlan(tag=100, vlan_mode="access", trunks=())
    assert switch.ping(1, 2)
    assert not switch.ping(1, 3)


def test_a_trunk_carries_its_native_vlan_untagged_and_delete_port_clears_it(
    emulated_switch: EmulatedSwitch, runner: GenericSwitchRunner
) -> None:
    switch = emulated_switch
    switch.set_access_vlan("swp1", 10)
    switch.set_access_vlan("swp2", 20)
    # Ironic's generic-switch driver passes the allowed VLANs other than the native one
    trunk = {"sub_ports": [{"segmentation_id": 20}, {"segmentation_id": 30}]}

    run_all(
        runner,
        switch,
        [Operation("plug_port_to_network", ("swp3", 10), {"trunk_details": trunk})],
    )
    assert switch.port_vlan("swp3") == PortVlan(
        tag=10, vlan_mode="native-untagged", trunks=(10, 20, 30)
    )
    assert switch.ping(3, 1)  # server 3 sends untagged: native VLAN 10
    assert not switch.ping(3, 2)

    run_all(runner, switch, [Operation("delete_port", ("swp3", 10), {"trunk_details": trunk})])
    assert switch.port_vlan("swp3") == PortVlan(tag=None, vlan_mode=None, trunks=())


def test_ovs_device_reports_success_for_a_port_the_switch_does_not_have(
    emulated_switch: EmulatedSwitch, runner: GenericSwitchRunner
) -> None:
    # Open vSwitch's errors are only in the command output, which this device type does not
    # check: metalwire scans the output to notice the failure.
    (result,) = run_all(runner, emulated_switch, [Operation("plug_port_to_network", ("swp9", 100))])

    errors = hidden_errors("netmiko_ovs_linux", result.output)
    assert errors and set(errors) == {'no row "swp9" in table Port'}  # one per command
