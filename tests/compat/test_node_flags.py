"""The node flags of the unmodified ``baremetal`` program that no other test drives, against a
real server: what the program sends for each is taken, stored and answered as Ironic 39 does.

Listed by comparing every option of ``baremetal node create/set/unset/list/show``, of the
provision and power verbs and of ``driver list``, ``volume connector/target create`` and
``runbook create`` with the tests that name them.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat

INTERFACES = ("management", "rescue", "storage", "vendor")


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def _show(baremetal: Cli, node: str, *fields: str) -> dict[str, Any]:
    shown: dict[str, Any] = baremetal.json("node", "show", node, "--fields", *fields)
    return shown


def _names(listed: list[dict[str, Any]]) -> set[str]:
    return {row["name"] for row in listed}


def test_interfaces_group_and_lessee_are_set_changed_and_reset(baremetal: Cli) -> None:
    node = unique("flags")
    fields = ("conductor_group", "lessee", *(f"{kind}_interface" for kind in INTERFACES))
    baremetal.ok(
        "node", "create", "--driver", "fake-hardware", "--name", node,
        "--conductor-group", "Rack-A", "--lessee", "project-l",
        "--management-interface", "noop", "--rescue-interface", "no-rescue",
        "--storage-interface", "fake", "--vendor-interface", "no-vendor",
    )  # fmt: skip
    assert _show(baremetal, node, *fields) == {
        "conductor_group": "rack-a",  # as Ironic: conductor groups are lower-cased
        "lessee": "project-l",
        "management_interface": "noop",
        "rescue_interface": "no-rescue",
        "storage_interface": "fake",
        "vendor_interface": "no-vendor",
    }

    baremetal.ok(
        "node", "set", node, "--conductor-group", "rack-b", "--lessee", "project-m",
        "--management-interface", "fake", "--rescue-interface", "fake",
        "--storage-interface", "noop", "--vendor-interface", "fake",
    )  # fmt: skip
    assert _show(baremetal, node, *fields) == {
        "conductor_group": "rack-b",
        "lessee": "project-m",
        "management_interface": "fake",
        "rescue_interface": "fake",
        "storage_interface": "noop",
        "vendor_interface": "fake",
    }

    resets = [f"--reset-{kind}-interface" for kind in INTERFACES]
    baremetal.ok("node", "set", node, *resets)
    defaults = _show(baremetal, node, *fields)
    assert {k: defaults[f"{k}_interface"] for k in INTERFACES} == {
        "management": "fake",
        "rescue": "fake",
        "storage": "noop",  # the [DEFAULT] default_storage_interface
        "vendor": "fake",
    }

    # Ironic 39 answers the removal of a conductor group with a 500; metalwire: no group
    baremetal.ok("node", "unset", node, "--conductor-group", "--lessee")
    cleared = _show(baremetal, node, "conductor_group", "lessee")
    assert cleared == {"conductor_group": "", "lessee": None}
    baremetal.ok("node", "delete", node)


def test_reset_interfaces_with_a_new_driver_gives_each_its_default(baremetal: Cli) -> None:
    """``--reset-interfaces`` sends ``?reset_interfaces=True``: the network interface takes
    the default too, where a driver change alone keeps it; an interface the same command
    changes is kept."""
    node = unique("resetall")
    fields = ("driver", "network_interface", "power_interface", "vendor_interface")
    baremetal.ok(
        "node", "create", "--driver", "fake-hardware", "--name", node,
        "--network-interface", "noop", "--vendor-interface", "fake",
    )  # fmt: skip
    baremetal.ok("node", "set", node, "--driver", "manual-management")
    assert _show(baremetal, node, *fields) == {
        "driver": "manual-management",
        "network_interface": "noop",
        "power_interface": "agent",
        "vendor_interface": "no-vendor",
    }
    baremetal.ok("node", "set", node, "--driver", "fake-hardware", "--reset-interfaces")
    assert _show(baremetal, node, *fields) == {
        "driver": "fake-hardware",
        "network_interface": "flat",  # the server's [DEFAULT] default_network_interface
        "power_interface": "fake",
        "vendor_interface": "fake",
    }
    baremetal.ok(
        "node", "set", node, "--driver", "manual-management", "--reset-interfaces",
        "--network-interface", "neutron",
    )  # fmt: skip
    assert _show(baremetal, node, "network_interface") == {"network_interface": "neutron"}
    alone = baremetal.run("node", "set", node, "--reset-interfaces")
    assert alone.returncode != 0 and "--driver" in alone.stderr, alone.describe()
    baremetal.ok("node", "delete", node)


def test_instance_info_and_uuid_are_set_found_and_unset(baremetal: Cli) -> None:
    node, instance = unique("inst"), str(uuid.uuid4())
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    baremetal.ok(
        "node", "set", node, "--instance-uuid", instance,
        "--instance-info", "image_source=http://images.example.com/a.qcow2",
        "--instance-info", "root_gb=10",
    )  # fmt: skip
    shown = _show(baremetal, node, "instance_uuid", "instance_info", "name")
    assert shown["instance_uuid"] == instance
    assert shown["instance_info"] == {  # the program sends 10 as a JSON number
        "image_source": "http://images.example.com/a.qcow2",
        "root_gb": 10,
    }
    by_instance = baremetal.json("node", "show", "--instance", instance, "--fields", "name")
    assert by_instance == {"name": node}

    baremetal.ok("node", "unset", node, "--instance-info", "root_gb", "--instance-uuid")
    shown = _show(baremetal, node, "instance_uuid", "instance_info")
    assert shown == {
        "instance_uuid": None,
        "instance_info": {"image_source": "http://images.example.com/a.qcow2"},
    }
    missing = baremetal.run("node", "show", "--instance", instance)
    # the program lists the nodes of the instance and finds none
    assert missing.returncode != 0 and "Not Found" in missing.stderr, missing.describe()
    baremetal.ok("node", "delete", node)


def test_power_off_actions_are_disabled_and_enabled_again(baremetal: Cli) -> None:
    node = unique("poweroff")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    baremetal.ok("node", "set", node, "--disable-power-off")
    assert _show(baremetal, node, "disable_power_off") == {"disable_power_off": True}
    baremetal.ok("node", "set", node, "--enable-power-off")
    assert _show(baremetal, node, "disable_power_off") == {"disable_power_off": False}
    baremetal.ok("node", "delete", node)


def test_list_filters_of_instance_maintenance_retirement_group_and_lessee(
    baremetal: Cli, compat_server: MetalwireServer
) -> None:
    tag = unique("filters")
    plain, other = f"{tag}-plain", f"{tag}-other"
    baremetal.ok(
        "node", "create", "--driver", "fake-hardware", "--name", plain,
        "--description", f"{tag} first", "--conductor-group", tag, "--lessee", f"{tag}-l",
    )  # fmt: skip
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", other)
    baremetal.ok(
        "node", "set", other, "--instance-uuid", str(uuid.uuid4()), "--retired",
        "--description", f"{tag} second",
    )  # fmt: skip
    baremetal.ok("node", "maintenance", "set", other)
    ours = {plain, other}

    def listed(*flags: str) -> set[str]:
        return _names(baremetal.json("node", "list", "--limit", "0", *flags)) & ours

    assert listed("--associated") == {other}
    assert listed("--unassociated") == {plain}
    assert listed("--maintenance") == {other}
    assert listed("--no-maintenance") == {plain}
    assert listed("--no-retired") == {plain}
    assert listed("--conductor-group", tag) == {plain}
    assert listed("--lessee", f"{tag}-l") == {plain}
    assert listed("--description-contains", f"{tag} sec") == {other}
    conductor = baremetal.json("conductor", "list")[0]["hostname"]
    assert listed("--conductor", conductor) == ours
    assert listed("--conductor", f"{tag}-nowhere") == set()
    for node in ours:  # the one with an instance is deleted in maintenance
        baremetal.ok("node", "delete", node)


def test_power_timeouts_and_a_soft_reboot(baremetal: Cli) -> None:
    node = unique("power")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    baremetal.ok("node", "power", "on", node, "--power-timeout", "30")
    assert _show(baremetal, node, "power_state") == {"power_state": "power on"}
    baremetal.ok("node", "reboot", node, "--soft", "--power-timeout", "30")
    assert _show(baremetal, node, "power_state") == {"power_state": "power on"}
    zero = baremetal.run("node", "power", "on", node, "--power-timeout", "0")
    assert zero.returncode != 0, zero.describe()
    baremetal.ok("node", "delete", node)


def test_deploy_and_rebuild_with_a_config_drive_and_deploy_steps_then_rescue(
    baremetal: Cli, tmp_path: Path
) -> None:
    node = unique("deploy")
    baremetal.ok(
        "node", "create", "--driver", "fake-hardware", "--name", node,
        "--network-interface", "noop", "--rescue-interface", "fake",
    )  # fmt: skip
    image = ("--instance-info", "image_source=http://images.example.com/a.qcow2")
    baremetal.ok("node", "set", node, *image)
    baremetal.ok("node", "manage", node, "--wait", "60")
    baremetal.ok("node", "provide", node, "--wait", "60")
    drive = json.dumps({"meta_data": {"hostname": "deployed-1"}})
    core, steps = tmp_path / "core.json", tmp_path / "steps.json"
    core.write_text(
        json.dumps([{"interface": "deploy", "step": "deploy", "args": {}, "priority": 50}])
    )
    refused = baremetal.run("node", "deploy", node, "--deploy-steps", str(core))
    assert refused.returncode != 0 and "is a core step" in refused.stderr, refused.describe()
    settings = {"settings": [{"name": "LogicalProc", "value": "Enabled"}]}
    bios = {"interface": "bios", "step": "apply_configuration", "args": settings}
    steps.write_text(json.dumps([{**bios, "priority": 80}]))
    baremetal.ok(
        "node", "deploy", node, "--config-drive", drive, "--deploy-steps", str(steps),
        "--wait", "60",
    )  # fmt: skip
    shown = _show(baremetal, node, "provision_state", "instance_info")
    assert shown["provision_state"] == "active"
    assert shown["instance_info"]["configdrive"] == "******"  # as Ironic hides it

    baremetal.ok(
        "node", "rebuild", node, "--config-drive", drive, "--deploy-steps", str(steps),
        "--wait", "60",
    )  # fmt: skip
    assert _show(baremetal, node, "provision_state") == {"provision_state": "active"}

    baremetal.ok("node", "rescue", node, "--rescue-password", "s3cret", "--wait", "60")
    rescued = _show(baremetal, node, "provision_state", "instance_info")
    assert rescued["provision_state"] == "rescue"
    assert rescued["instance_info"].get("rescue_password") == "******"
    baremetal.ok("node", "unrescue", node, "--wait", "60")

    baremetal.ok("node", "set", node, "--protected", "--protected-reason", "in production")
    protected = _show(baremetal, node, "protected", "protected_reason")
    assert protected == {"protected": True, "protected_reason": "in production"}
    baremetal.ok("node", "unset", node, "--protected-reason")
    assert _show(baremetal, node, "protected_reason") == {"protected_reason": None}
    baremetal.ok("node", "unset", node, "--protected")
    baremetal.ok("node", "undeploy", node, "--wait", "60")
    baremetal.ok("node", "delete", node)


def test_driver_list_by_type(baremetal: Cli) -> None:
    dynamic = {row["name"] for row in baremetal.json("driver", "list", "--type", "dynamic")}
    assert "fake-hardware" in dynamic
    assert baremetal.json("driver", "list", "--type", "classic") == []


def test_volume_connector_and_target_flags(baremetal: Cli) -> None:
    node = unique("volume")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    node_uuid = _show(baremetal, node, "uuid")["uuid"]
    connector = baremetal.json(
        "volume", "connector", "create", "--node", node_uuid, "--type", "iqn",
        "--connector-id", f"iqn.2010-10.org.openstack:{node}",
    )  # fmt: skip
    assert (connector["type"], connector["connector_id"]) == (
        "iqn",
        f"iqn.2010-10.org.openstack:{node}",
    )
    target = baremetal.json(
        "volume", "target", "create", "--node", node_uuid, "--type", "iscsi",
        "--volume-id", f"vol-{node}", "--boot-index", "0",
    )  # fmt: skip
    assert (target["volume_type"], target["volume_id"], target["boot_index"]) == (
        "iscsi",
        f"vol-{node}",
        0,
    )
    baremetal.ok("volume", "target", "delete", target["uuid"])
    baremetal.ok("volume", "connector", "delete", connector["uuid"])
    baremetal.ok("node", "delete", node)


def test_a_runbook_made_public(baremetal: Cli) -> None:
    name = f"CUSTOM_{unique('rb').upper().replace('-', '_')}"
    steps = json.dumps(
        [{"interface": "bios", "step": "apply_configuration", "args": {}, "order": 1}]
    )
    public = baremetal.json("runbook", "create", "--name", name, "--steps", steps, "--public")
    assert public["public"] is True
    private = baremetal.json(
        "runbook", "create", "--name", f"{name}_2", "--steps", steps, "--public", "false"
    )
    assert private["public"] is False
    baremetal.ok("runbook", "delete", name, f"{name}_2")


def test_traits_added_listed_removed_one_by_one_and_all(baremetal: Cli) -> None:
    node = unique("traits")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    baremetal.ok("node", "add", "trait", node, "CUSTOM_A", "CUSTOM_B", "HW_CPU_X86_VMX")

    def traits() -> list[str]:
        return sorted(row["traits"] for row in baremetal.json("node", "trait", "list", node))

    assert traits() == ["CUSTOM_A", "CUSTOM_B", "HW_CPU_X86_VMX"]
    baremetal.ok("node", "remove", "trait", node, "CUSTOM_B")
    assert traits() == ["CUSTOM_A", "HW_CPU_X86_VMX"]
    missing = baremetal.run("node", "remove", "trait", node, "CUSTOM_B")
    assert missing.returncode != 0 and "CUSTOM_B" in missing.stderr, missing.describe()
    bad = baremetal.run("node", "add", "trait", node, "lower_case")
    assert bad.returncode != 0 and "lower_case" in bad.stderr, bad.describe()
    baremetal.ok("node", "remove", "trait", node, "--all")
    assert traits() == []
    assert _show(baremetal, node, "traits") == {"traits": []}
    baremetal.ok("node", "delete", node)


def test_passthru_commands_say_vendor_passthru_is_not_served_not_that_the_node_is_missing(
    baremetal: Cli,
) -> None:
    """``baremetal node passthru list|call`` and ``driver passthru list|call`` reach a part of
    Ironic's API metalwire does not serve: the 404 says so rather than "could not be found"."""
    node = unique("passthru")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    listed, called, driver_listed, driver_called = baremetal.run_all(
        ("node", "passthru", "list", node),
        ("node", "passthru", "call", node, "first_method", "--arg", "x=1"),
        ("driver", "passthru", "list", "fake-hardware"),
        ("driver", "passthru", "call", "fake-hardware", "driver_method"),
    )
    for result, whose in (
        (listed, "node"),
        (called, "node"),
        (driver_listed, "driver"),
        (driver_called, "driver"),
    ):
        assert result.returncode == 1, result.describe()
        assert f"A {whose}'s vendor passthru is not served by metalwire" in result.stderr, (
            result.describe()
        )
        assert "HTTP 404" in result.stderr and "could not be found" not in result.stderr
