"""The boot interface checked as Ironic 39's boot interfaces check it: ``boot`` in
``GET /v1/nodes/{node}/validate``, the deploy interfaces that validate it first (``deploy``
and the deploy and rebuild verbs: 400 InstanceDeployFailure) and the ``agent`` rescue
(400 InstanceRescueFailure). ``fake`` checks nothing; ``pxe``, ``ipxe``, ``http`` and
``http-ipxe`` need a port and the agent ramdisk (and for iPXE ``[deploy] http_url``); the
virtual media ones the agent ramdisk or ISO and the Redfish BMC's address."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.config import Config
from tests.api.test_lifecycle import provision
from tests.conftest import Api, fault
from tests.support.helpers import AGENT_RAMDISK, DIRECT_IMAGE, RESCUE_RAMDISK

NETWORK_BOOTS = ["pxe", "ipxe", "http", "http-ipxe"]
REDFISH = {"redfish_address": "https://bmc.example.com"}
RAMDISK_IMAGES = {"kernel": "http://i/k", "ramdisk": "http://i/r"}
MAC = "52:54:00:31:00:01"


def validated(api: Api, port: bool = True, **fields: Any) -> dict[str, Any]:
    node = api.node(name="boot", **fields)
    if port:
        api.port(node, MAC)
    resp = api.get("/v1/nodes/boot/validate")
    assert resp.status_code == 200, resp.text
    result: dict[str, Any] = resp.json()
    return result


def boot_result(api: Api, port: bool = True, **fields: Any) -> dict[str, Any]:
    result: dict[str, Any] = validated(api, port, **fields)["boot"]
    return result


def refused_because(result: dict[str, Any]) -> str:
    assert result["result"] is False, result
    reason: str = result["reason"]
    return reason


@pytest.mark.parametrize("boot_interface", NETWORK_BOOTS)
def test_a_network_boot_with_a_port_and_the_agent_ramdisk_validates(
    api: Api, boot_interface: str
) -> None:
    assert boot_result(api, boot_interface=boot_interface, driver_info=AGENT_RAMDISK) == {
        "result": True
    }


def test_the_fake_boot_interface_checks_nothing(api: Api) -> None:
    assert boot_result(api, port=False) == {"result": True}


@pytest.mark.parametrize("boot_interface", NETWORK_BOOTS)
def test_a_network_boot_without_the_deploy_ramdisk_fails_validation(
    api: Api, boot_interface: str
) -> None:
    node = api.node(name="boot", boot_interface=boot_interface)
    api.port(node, MAC)

    result = api.get("/v1/nodes/boot/validate").json()["boot"]

    assert refused_because(result) == (
        f"Node {node['uuid']}: the {boot_interface} boot interface needs the deploy ramdisk: "
        "driver_info/deploy_kernel and driver_info/deploy_ramdisk, or [conductor] "
        "deploy_kernel and deploy_ramdisk; missing: deploy_kernel, deploy_ramdisk."
    )


def test_a_network_boot_without_a_port_fails_validation(api: Api) -> None:
    reason = refused_because(
        boot_result(api, port=False, boot_interface="pxe", driver_info=AGENT_RAMDISK)
    )

    assert "the pxe boot interface needs a port to boot from; the node has none" in reason


def test_the_ramdisk_can_come_from_the_conductor_options(api: Api, config: Config) -> None:
    config.conductor.deploy_kernel = "http://images.example.com/k"
    config.conductor.deploy_ramdisk = "http://images.example.com/r"
    # one of the two in driver_info counts for nothing: both come from [conductor]
    only_kernel = {"deploy_kernel": "http://images.example.com/other"}

    assert boot_result(api, boot_interface="pxe", driver_info=only_kernel) == {"result": True}


def test_one_conductor_option_is_not_enough(api: Api, config: Config) -> None:
    config.conductor.deploy_kernel = "http://images.example.com/k"

    reason = refused_because(boot_result(api, boot_interface="pxe"))

    assert reason.endswith("missing: deploy_ramdisk.")


def _by_arch(config: Config, mode: str = "deploy") -> None:
    options = config.conductor
    setattr(options, f"{mode}_kernel_by_arch", {"aarch64": "http://i/arm.kernel"})
    setattr(options, f"{mode}_ramdisk_by_arch", {"aarch64": "http://i/arm.initramfs"})


def test_the_ramdisk_can_come_from_the_options_for_the_nodes_architecture(
    api: Api, config: Config
) -> None:
    _by_arch(config)

    arm = boot_result(api, boot_interface="pxe", properties={"cpu_arch": "aarch64"})

    assert arm == {"result": True}


def test_the_options_by_architecture_do_not_serve_another_architecture(
    api: Api, config: Config
) -> None:
    _by_arch(config)

    reason = refused_because(
        boot_result(api, boot_interface="pxe", properties={"cpu_arch": "x86_64"})
    )

    assert reason.endswith(
        "driver_info/deploy_kernel and driver_info/deploy_ramdisk, [conductor] "
        "deploy_kernel_by_arch and deploy_ramdisk_by_arch for x86_64, or [conductor] "
        "deploy_kernel and deploy_ramdisk; missing: deploy_kernel, deploy_ramdisk."
    )


def test_an_architecture_with_only_a_kernel_falls_back_to_the_conductor_options(
    api: Api, config: Config
) -> None:
    config.conductor.deploy_kernel_by_arch = {"aarch64": "http://i/arm.kernel"}
    config.conductor.deploy_kernel = "http://images.example.com/k"
    config.conductor.deploy_ramdisk = "http://images.example.com/r"

    arm = boot_result(api, boot_interface="pxe", properties={"cpu_arch": "aarch64"})

    assert arm == {"result": True}


def test_half_a_pair_is_refused_when_inconsistency_is_an_error(api: Api, config: Config) -> None:
    config.conductor.error_on_ramdisk_config_inconsistency = True
    config.conductor.deploy_kernel_by_arch = {"aarch64": "http://i/arm.kernel"}
    config.conductor.deploy_kernel = "http://images.example.com/k"
    config.conductor.deploy_ramdisk = "http://images.example.com/r"

    node_info = {"deploy_ramdisk": "http://i/own.initramfs"}
    arm = {"cpu_arch": "aarch64"}
    own = refused_because(boot_result(api, boot_interface="pxe", driver_info=node_info))
    api.delete("/v1/nodes/boot")
    by_arch = refused_because(boot_result(api, boot_interface="pxe", properties=arm))

    assert own.endswith(
        "driver_info sets only one of a kernel and a ramdisk; that place is not used "
        "([conductor] error_on_ramdisk_config_inconsistency)."
    )
    assert (
        "[conductor] deploy_kernel_by_arch and deploy_ramdisk_by_arch have, for aarch64, "
        "only one of a kernel and a ramdisk" in by_arch
    )


def test_the_rescue_ramdisk_can_come_from_the_options_for_the_nodes_architecture(
    api: Api, config: Config
) -> None:
    _by_arch(config, "rescue")
    active_agent_rescue(api, AGENT_RAMDISK, properties={"cpu_arch": "aarch64"})

    assert rescue(api).status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "rescue"


@pytest.mark.parametrize("boot_interface", ["ipxe", "http-ipxe"])
def test_ipxe_needs_the_conductors_http_server(
    api: Api, config: Config, boot_interface: str
) -> None:
    config.deploy.http_url = ""

    reason = refused_because(
        boot_result(api, boot_interface=boot_interface, driver_info=AGENT_RAMDISK)
    )

    assert f"the {boot_interface} boot interface needs the conductor's HTTP server" in reason
    assert reason.endswith("[deploy] http_url is not set.")


@pytest.mark.parametrize("boot_interface", ["pxe", "http"])
def test_pxe_needs_no_http_server(api: Api, config: Config, boot_interface: str) -> None:
    config.deploy.http_url = ""
    config.deploy.http_root = ""

    result = boot_result(api, boot_interface=boot_interface, driver_info=AGENT_RAMDISK)

    assert result == {"result": True}


def test_the_anaconda_deploy_needs_the_http_server_whatever_the_boot(
    api: Api, config: Config
) -> None:
    config.deploy.http_root = ""

    reason = refused_because(
        boot_result(
            api,
            boot_interface="pxe",
            deploy_interface="anaconda",
            driver_info=AGENT_RAMDISK,
            instance_info={**DIRECT_IMAGE},
        )
    )

    assert "the anaconda deploy needs the conductor's HTTP server" in reason
    assert reason.endswith("[deploy] http_root is not set.")


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        (
            {"properties": {"capabilities": "boot_mode:UEFI"}},
            "properties/capabilities sets boot_mode to 'UEFI'",
        ),
        (
            {"instance_info": {"image_source": "http://i/img", "boot_iso": "http://i/b.iso"}},
            "instance_info sets both image_source and boot_iso",
        ),
    ],
)
def test_a_network_boot_checks_capabilities_and_the_instance_image_kind(
    api: Api, fields: dict[str, Any], named: str
) -> None:
    # checked whatever the deploy interface, even one that boots the node's disk
    reason = refused_because(
        boot_result(api, boot_interface="ipxe", driver_info=AGENT_RAMDISK, **fields)
    )

    assert named in reason


@pytest.mark.parametrize(
    "instance_info",
    [
        RAMDISK_IMAGES,
        {"boot_iso": "http://i/boot.iso"},
        {"image_source": DIRECT_IMAGE["image_source"]},  # Glance holds its kernel and ramdisk
        {"image_source": "http://i/root.img", **RAMDISK_IMAGES},
        # without a kernel and a ramdisk, a whole disk image, as Ironic infers it
        {"image_source": "http://i/root.img"},
    ],
)
@pytest.mark.parametrize("boot_interface", ["pxe", "redfish-virtual-media"])
def test_a_ramdisk_deploy_boots_the_instance_images_it_names(
    api: Api, boot_interface: str, instance_info: dict[str, Any]
) -> None:
    result = boot_result(
        api,
        boot_interface=boot_interface,
        deploy_interface="ramdisk",
        driver_info={**AGENT_RAMDISK, **REDFISH},
        instance_info=instance_info,
    )

    assert result == {"result": True}


@pytest.mark.parametrize(
    ("instance_info", "named"),
    [
        ({}, "missing from instance_info: kernel, ramdisk"),
        ({"kernel": "http://i/k"}, "missing from instance_info: ramdisk"),
        (
            {"image_source": "http://i/root.img", "image_type": "partition"},
            "the image http://i/root.img is not a Glance image, so instance_info must name its "
            "kernel and ramdisk",
        ),
    ],
)
@pytest.mark.parametrize("boot_interface", ["ipxe", "redfish-https"])
def test_a_ramdisk_deploy_without_instance_images_fails_validation(
    api: Api, boot_interface: str, instance_info: dict[str, Any], named: str
) -> None:
    result = validated(
        api,
        boot_interface=boot_interface,
        deploy_interface="ramdisk",
        driver_info={**AGENT_RAMDISK, **REDFISH},
        instance_info=instance_info,
    )

    assert named in refused_because(result["boot"])
    # the ramdisk deploy validates the boot interface first: its reason is the deploy's
    assert result["deploy"] == result["boot"]


def test_a_ramdisk_deploy_without_cleaning_needs_no_agent_ramdisk(api: Api) -> None:
    fields = {
        "boot_interface": "pxe",
        "deploy_interface": "ramdisk",
        "instance_info": RAMDISK_IMAGES,
    }

    assert "deploy_kernel" in refused_because(boot_result(api, **fields))
    resp = api.patch("/v1/nodes/boot", [{"op": "add", "path": "/automated_clean", "value": False}])
    assert resp.status_code == 200, resp.text
    assert api.get("/v1/nodes/boot/validate").json()["boot"] == {"result": True}


@pytest.mark.parametrize(
    "boot_interface", ["redfish-virtual-media", "redfish-https", "idrac-redfish-virtual-media"]
)
def test_a_virtual_media_boot_takes_the_agent_ramdisk_or_iso(api: Api, boot_interface: str) -> None:
    reason = refused_because(boot_result(api, boot_interface=boot_interface, driver_info=REDFISH))
    assert "or driver_info/deploy_iso" in reason
    assert "missing: deploy_kernel, deploy_ramdisk" in reason

    iso = {"op": "add", "path": "/driver_info/deploy_iso", "value": "http://i/ipa.iso"}
    assert api.patch("/v1/nodes/boot", [iso]).status_code == 200
    assert api.get("/v1/nodes/boot/validate").json()["boot"] == {"result": True}


def test_a_virtual_media_boot_needs_the_redfish_bmc(api: Api) -> None:
    # no port is needed: the BMC inserts the ISO
    reason = refused_because(
        boot_result(
            api, port=False, boot_interface="redfish-virtual-media", driver_info=AGENT_RAMDISK
        )
    )

    assert "needs driver_info/redfish_address" in reason


# --- the deploy verbs ---------------------------------------------------------------------


def available(api: Api, **fields: Any) -> dict[str, Any]:
    node = api.node(name="life", **fields)
    api.port(node, MAC)
    assert provision(api, "manage").status_code == 202
    assert provision(api, "provide").status_code == 202
    return node


def unchanged(api: Api, state: str) -> None:
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["target_provision_state"]) == (state, None)
    assert shown["last_error"] is None


IPMI_DIRECT = {
    "driver": "ipmi",
    "driver_info": {"ipmi_address": "192.0.2.10"},
    "instance_info": DIRECT_IMAGE,
}


def test_deploying_a_node_whose_boot_interface_cannot_boot_the_agent_is_refused(
    api: Api,
) -> None:
    node = available(api, **IPMI_DIRECT)
    assert node["boot_interface"] == "ipxe"

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        f"Failed to validate deploy or power info for node {node['uuid']}: Node "
        f"{node['uuid']}: the ipxe boot interface needs the deploy ramdisk: "
        "driver_info/deploy_kernel and driver_info/deploy_ramdisk, or [conductor] "
        "deploy_kernel and deploy_ramdisk; missing: deploy_kernel, deploy_ramdisk."
    )
    unchanged(api, "available")
    history = api.get("/v1/nodes/life/history").json()["history"]
    assert not any("active started" in entry["event"] for entry in history)

    for key, value in AGENT_RAMDISK.items():
        patch = [{"op": "add", "path": f"/driver_info/{key}", "value": value}]
        assert api.patch("/v1/nodes/life", patch).status_code == 200
    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] != "available"


def test_deploying_an_ipxe_node_without_the_http_server_is_refused(
    api: Api, config: Config
) -> None:
    config.deploy.http_url = ""
    node = available(api, **{**IPMI_DIRECT, "driver_info": {"ipmi_address": "h", **AGENT_RAMDISK}})

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert fault(resp).startswith(
        f"Failed to validate deploy or power info for node {node['uuid']}"
    )
    assert "[deploy] http_url is not set" in fault(resp)
    unchanged(api, "available")


def test_rebuilding_a_node_whose_boot_interface_cannot_boot_the_agent_is_refused(
    api: Api,
) -> None:
    available(
        api,
        deploy_interface="custom-agent",
        boot_interface="pxe",
        driver_info=AGENT_RAMDISK,
    )
    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"
    remove = [{"op": "remove", "path": "/driver_info/deploy_ramdisk"}]
    assert api.patch("/v1/nodes/life", remove).status_code == 200

    resp = provision(api, "rebuild")

    assert resp.status_code == 400, resp.text
    # the kernel alone counts for nothing: both are looked for in [conductor]
    assert "missing: deploy_kernel, deploy_ramdisk" in fault(resp)
    unchanged(api, "active")


def test_the_power_interface_is_asked_before_the_boot_interface(api: Api) -> None:
    available(api, **IPMI_DIRECT)
    remove = [{"op": "remove", "path": "/driver_info/ipmi_address"}]
    assert api.patch("/v1/nodes/life", remove).status_code == 200

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert "driver_info/ipmi_address" in fault(resp)
    assert "deploy_kernel" not in fault(resp)


def test_the_fake_deploy_interface_does_not_check_the_boot_interface(api: Api) -> None:
    # as Ironic's fake deploy, whose validate checks nothing
    result = validated(api, boot_interface="pxe", deploy_interface="fake")
    assert "deploy_kernel" in refused_because(result["boot"])
    assert result["deploy"] == {"result": True}


def test_without_managed_agent_boot_the_agent_deploy_does_not_check_the_boot(
    api: Api, config: Config
) -> None:
    config.agent.manage_agent_boot = False
    node = available(api, **IPMI_DIRECT)
    assert "deploy_kernel" in refused_because(
        api.get(f"/v1/nodes/{node['uuid']}/validate").json()["boot"]
    )

    assert provision(api, "active").status_code == 202


# --- rescue ---------------------------------------------------------------------------------


def rescue(api: Api) -> Any:
    body = {"target": "rescue", "rescue_password": "s3cret"}
    return api.put("/v1/nodes/life/states/provision", body)


def active_agent_rescue(api: Api, driver_info: dict[str, Any], **fields: Any) -> dict[str, Any]:
    node = available(
        api, boot_interface="pxe", rescue_interface="agent", driver_info=driver_info, **fields
    )
    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"
    return node


def test_rescuing_without_the_rescue_ramdisk_is_refused(api: Api) -> None:
    node = active_agent_rescue(api, AGENT_RAMDISK)

    resp = rescue(api)

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        f"Failed to rescue instance None for node {node['uuid']}: Validation failed: Node "
        f"{node['uuid']}: the pxe boot interface needs the rescue ramdisk: "
        "driver_info/rescue_kernel and driver_info/rescue_ramdisk, or [conductor] "
        "rescue_kernel and rescue_ramdisk; missing: rescue_kernel, rescue_ramdisk."
    )
    unchanged(api, "active")
    assert "rescue_password" not in api.get("/v1/nodes/life").json()["instance_info"]
    assert refused_because(api.get("/v1/nodes/life/validate").json()["rescue"]) in fault(resp)


def test_the_agent_rescue_validates_once_a_rescue_set_its_password(api: Api) -> None:
    # as Ironic's agent rescue: its validate wants the password only a rescue request sets
    node = active_agent_rescue(api, {**AGENT_RAMDISK, **RESCUE_RAMDISK})

    result = api.get("/v1/nodes/life/validate").json()["rescue"]

    assert refused_because(result) == (
        f"Node {node['uuid']}: the agent rescue interface needs "
        "instance_info/rescue_password, which a rescue request sets."
    )


def test_rescuing_with_the_rescue_ramdisk_is_accepted_and_drops_the_password(api: Api) -> None:
    """As Ironic's agent rescue, whose clean-up drops the password once the rescue ramdisk
    has it: the rescued node keeps none, so its rescue validation asks for one again."""
    node = active_agent_rescue(api, {**AGENT_RAMDISK, **RESCUE_RAMDISK})

    assert rescue(api).status_code == 202

    shown = api.get("/v1/nodes/life").json()
    assert shown["provision_state"] == "rescue"
    assert not {"rescue_password", "hashed_rescue_password"} & set(shown["instance_info"])
    assert refused_because(api.get("/v1/nodes/life/validate").json()["rescue"]) == (
        f"Node {node['uuid']}: the agent rescue interface needs "
        "instance_info/rescue_password, which a rescue request sets."
    )


def test_unrescuing_a_node_whose_power_interface_cannot_work_is_refused(api: Api) -> None:
    # as Ironic's conductor, which validates the power interface before an unrescue
    node = available(
        api,
        driver="ipmi",
        boot_interface="pxe",
        rescue_interface="agent",
        driver_info={"ipmi_address": "192.0.2.10", **AGENT_RAMDISK, **RESCUE_RAMDISK},
        instance_info=DIRECT_IMAGE,
    )
    assert provision(api, "active").status_code == 202
    assert rescue(api).status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "rescue"
    remove = [{"op": "remove", "path": "/driver_info/ipmi_address"}]
    assert api.patch("/v1/nodes/life", remove).status_code == 200

    resp = provision(api, "unrescue")

    assert resp.status_code == 400, resp.text
    assert fault(resp).startswith(
        f"Failed to unrescue instance None for node {node['uuid']}: Validation failed: "
    )
    assert "driver_info/ipmi_address" in fault(resp)
    unchanged(api, "rescue")
    history = api.get("/v1/nodes/life/history").json()["history"]
    assert not any("unrescue started" in entry["event"] for entry in history)


def test_an_autodetect_deploy_boots_as_the_ramdisk_deploy_it_switches_to(api: Api) -> None:
    # Ironic's autodetect switches to the ramdisk deploy before a deploy's checks, so the
    # boot interface boots the instance itself, and no agent when no cleaning follows; in
    # validate, before any switch, the boot still reads as booting the node's disk
    node = available(
        api,
        driver="ipmi",
        driver_info={"ipmi_address": "192.0.2.10"},
        automated_clean=False,
        instance_info={"ironic_ramdisk_deploy": True, **RAMDISK_IMAGES},
    )
    assert (node["deploy_interface"], node["boot_interface"]) == ("autodetect", "ipxe")
    result = api.get("/v1/nodes/life/validate").json()
    assert "deploy_kernel" in refused_because(result["boot"])

    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"
