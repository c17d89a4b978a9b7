"""A deploy's ``instance_info`` checked as Ironic 39's deploy interfaces check it: in
``GET /v1/nodes/{node}/validate`` and before the deploy and rebuild verbs (400,
InstanceDeployFailure). ``fake`` checks nothing; ``direct`` needs an image, and a checksum for
an image that is not Glance's, a file or an OCI artifact."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.api.routes.states import DEPLOY_WAIT_ABORT
from tests.api.test_lifecycle import provision
from tests.conftest import Api, fault
from tests.support.helpers import AGENT_RAMDISK, DIRECT_IMAGE

GLANCE_UUID = DIRECT_IMAGE["image_source"]
HTTP_IMAGE = "http://images.example.com/root.qcow2"
ROOT_ISCSI = {"volume_type": "iscsi", "boot_index": 0, "volume_id": "vol-root"}
#: An instance a ramdisk deploy boots: its kernel and ramdisk.
RAMDISK_IMAGES = {"kernel": "http://i/k", "ramdisk": "http://i/r"}
RAMDISK_INSTANCE = {"ironic_ramdisk_deploy": True, **RAMDISK_IMAGES}


def bootable(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with the agent ramdisk a boot interface such as ipxe boots, as a
    deployment's nodes have it."""
    return {**fields, "driver_info": {**AGENT_RAMDISK, **fields.get("driver_info", {})}}


def deploy_result(api: Api, **fields: Any) -> dict[str, Any]:
    node = api.node(name="img", **bootable(fields))
    api.port(node, "52:54:00:21:00:09")
    resp = api.get("/v1/nodes/img/validate")
    assert resp.status_code == 200, resp.text
    result: dict[str, Any] = resp.json()["deploy"]
    return result


def available(api: Api, **fields: Any) -> dict[str, Any]:
    node = api.node(name="life", **bootable(fields))
    api.port(node, "52:54:00:21:00:01")
    assert provision(api, "manage").status_code == 202
    assert provision(api, "provide").status_code == 202
    return node


@pytest.mark.parametrize(
    "fields",
    [
        {"deploy_interface": "fake"},
        {"deploy_interface": "direct", "instance_info": {"image_source": GLANCE_UUID}},
        # Ironic makes any image_type but partition whole-disk before it checks the value
        {
            "deploy_interface": "direct",
            "instance_info": {"image_source": GLANCE_UUID, "image_type": "iso"},
        },
        {"deploy_interface": "direct", "instance_info": {"image_source": "glance://root"}},
        {"deploy_interface": "direct", "instance_info": {"image_source": "file:///img.raw"}},
        {"deploy_interface": "direct", "instance_info": {"image_source": "oci://q.io/img"}},
        {
            "deploy_interface": "direct",
            "instance_info": {"image_source": HTTP_IMAGE, "image_checksum": "abc"},
        },
        {
            "deploy_interface": "direct",
            "instance_info": {
                "image_source": HTTP_IMAGE,
                "image_os_hash_algo": "sha256",
                "image_os_hash_value": "abc",
                "image_type": "whole-disk",
            },
        },
    ],
)
def test_a_deploy_ironic_accepts_validates(api: Api, fields: dict[str, Any]) -> None:
    assert deploy_result(api, **fields) == {"result": True}


@pytest.mark.parametrize(
    ("instance_info", "named"),
    [
        ({}, "instance_info/image_source is missing"),
        ({"image_source": ""}, "instance_info/image_source is missing"),
        ({"image_source": HTTP_IMAGE}, "needs instance_info/image_checksum"),
        (
            {"image_source": HTTP_IMAGE, "image_os_hash_algo": "sha256", "image_checksum": "x"},
            "needs instance_info/image_checksum",
        ),
        ({"image_source": HTTP_IMAGE, "image_os_hash_value": "abc"}, "image_os_hash_algo"),
        (
            {"image_source": GLANCE_UUID, "image_download_source": "ftp"},
            "invalid image_download_source 'ftp'",
        ),
    ],
)
def test_a_direct_deploy_without_what_it_needs_fails_validation(
    api: Api, instance_info: dict[str, Any], named: str
) -> None:
    result = deploy_result(api, deploy_interface="direct", instance_info=instance_info)

    assert result["result"] is False
    assert named in result["reason"]


PROXIES = {
    "image_http_proxy": "http://proxy.example.com:3128",
    "image_https_proxy": "https://proxy.example.com:3129",
    "image_no_proxy": "images.example.com,.example.org,10.0.0.1:8080",
}


def test_a_direct_deploy_takes_the_agent_proxies_ironic_takes(api: Api) -> None:
    fields = {"deploy_interface": "direct", "instance_info": DIRECT_IMAGE, "driver_info": PROXIES}

    assert deploy_result(api, **fields) == {"result": True}


@pytest.mark.parametrize(
    ("proxies", "named"),
    [
        ({"image_http_proxy": "ftp://proxy.example.com"}, "driver_info/image_http_proxy"),
        ({"image_https_proxy": "socks5://proxy:1080"}, "driver_info/image_https_proxy"),
        ({"image_no_proxy": "*.example.com"}, "driver_info/image_no_proxy '*.example.com'"),
        ({"image_no_proxy": "bad_host"}, "driver_info/image_no_proxy"),
        ({"image_no_proxy": ["a.example.com"]}, "driver_info/image_no_proxy"),
    ],
)
def test_a_direct_deploy_refuses_proxies_the_agent_cannot_use(
    api: Api, proxies: dict[str, Any], named: str
) -> None:
    fields = {"deploy_interface": "direct", "instance_info": DIRECT_IMAGE, "driver_info": proxies}

    result = deploy_result(api, **fields)

    assert result["result"] is False
    assert named in result["reason"]


def test_a_direct_deploy_booting_from_a_volume_needs_no_image(api: Api) -> None:
    node = api.node(name="img", deploy_interface="direct", storage_interface="external")
    resp = api.post("/v1/volume/targets", {"node_uuid": node["uuid"], **ROOT_ISCSI})
    assert resp.status_code == 201, resp.text

    assert api.get("/v1/nodes/img/validate").json()["deploy"] == {"result": True}


def test_deploying_a_direct_node_without_an_image_is_refused_and_changes_nothing(
    api: Api,
) -> None:
    node = available(api, deploy_interface="direct")

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        f"Failed to validate deploy or power info for node {node['uuid']}: Node "
        f"{node['uuid']} failed to validate deploy image info: instance_info/image_source "
        "is missing."
    )
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["target_provision_state"]) == ("available", None)
    assert shown["last_error"] is None


def test_deploying_an_http_image_without_checksum_is_refused(api: Api) -> None:
    available(api, deploy_interface="direct", instance_info={"image_source": HTTP_IMAGE})

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert "needs instance_info/image_checksum" in fault(resp)


def test_a_direct_deploy_with_an_image_is_accepted(api: Api) -> None:
    available(api, deploy_interface="direct", instance_info={"image_source": GLANCE_UUID})

    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "wait call-back"


def test_rebuilding_once_the_image_is_gone_is_refused(api: Api) -> None:
    available(api, deploy_interface="direct", instance_info={"image_source": GLANCE_UUID})
    assert provision(api, "active").status_code == 202
    assert provision(api, "abort", version=f"1.{DEPLOY_WAIT_ABORT}").status_code == 202
    resp = api.patch("/v1/nodes/life", [{"op": "remove", "path": "/instance_info/image_source"}])
    assert resp.status_code == 200, resp.text

    resp = provision(api, "rebuild")

    assert resp.status_code == 400, resp.text
    assert "instance_info/image_source is missing" in fault(resp)
    assert api.get("/v1/nodes/life").json()["provision_state"] == "deploy failed"


def test_a_fake_deploy_without_an_image_deploys(api: Api) -> None:
    available(api, deploy_interface="fake")

    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"


def test_a_direct_node_booting_from_a_volume_deploys_without_an_image(api: Api) -> None:
    node = available(api, deploy_interface="direct", storage_interface="external")
    resp = api.post("/v1/volume/targets", {"node_uuid": node["uuid"], **ROOT_ISCSI})
    assert resp.status_code == 201, resp.text

    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "wait call-back"


@pytest.mark.parametrize("deploy_interface", ["fake", "direct"])
@pytest.mark.parametrize(
    ("traits", "named"),
    [
        (["CUSTOM_GPU", "CUSTOM_FPGA"], "does not have: CUSTOM_FPGA"),
        ("CUSTOM_GPU", "instance_info/traits must be a list of strings"),
        ([1], "instance_info/traits must be a list of strings"),
    ],
)
def test_instance_traits_the_node_lacks_fail_validation(
    api: Api, deploy_interface: str, traits: Any, named: str
) -> None:
    api.node(
        name="img",
        deploy_interface=deploy_interface,
        instance_info={**DIRECT_IMAGE, "traits": traits},
    )
    assert api.put("/v1/nodes/img/traits", {"traits": ["CUSTOM_GPU"]}).status_code == 204

    result = api.get("/v1/nodes/img/validate").json()["deploy"]

    assert result["result"] is False
    assert named in result["reason"]


def test_deploying_with_instance_traits_the_node_lacks_is_refused(api: Api) -> None:
    node = available(api, instance_info={"traits": ["CUSTOM_GPU"]})

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        f"Failed to validate deploy or power info for node {node['uuid']}: Node "
        f"{node['uuid']}: instance_info/traits names traits the node does not have: CUSTOM_GPU."
    )
    assert api.put("/v1/nodes/life/traits/CUSTOM_GPU").status_code == 204
    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"


@pytest.mark.parametrize("deploy_interface", ["direct", "ramdisk"])
@pytest.mark.parametrize(
    ("fields", "named"),
    [
        (
            {"properties": {"capabilities": "boot_mode:UEFI"}},
            "properties/capabilities sets boot_mode to 'UEFI'",
        ),
        (
            {"instance_info": {**DIRECT_IMAGE, "capabilities": {"secure_boot": "yes"}}},
            "instance_info/capabilities sets secure_boot to 'yes'",
        ),
        (
            {"instance_info": {**DIRECT_IMAGE, "capabilities": '{"disk_label": "dos"}'}},
            "instance_info/capabilities sets disk_label to 'dos'",
        ),
        (
            {"instance_info": {**DIRECT_IMAGE, "capabilities": "boot_mode:uefi"}},
            "instance_info/capabilities must be an object or its JSON text",
        ),
    ],
)
def test_deploy_capabilities_ironic_does_not_know_fail_validation(
    api: Api, deploy_interface: str, fields: dict[str, Any], named: str
) -> None:
    result = deploy_result(
        api,
        deploy_interface=deploy_interface,
        boot_interface="ipxe",
        **{"instance_info": DIRECT_IMAGE, **fields},
    )

    assert result["result"] is False
    assert named in result["reason"]


@pytest.mark.parametrize("deploy_interface", ["fake", "direct", "ramdisk"])
def test_known_deploy_capabilities_validate(api: Api, deploy_interface: str) -> None:
    result = deploy_result(
        api,
        deploy_interface=deploy_interface,
        boot_interface="ipxe",
        properties={"capabilities": "boot_mode:uefi,secure_boot:true,odd,a:b:c"},
        instance_info={**DIRECT_IMAGE, "capabilities": '{"disk_label": "gpt"}'},
    )

    assert result == {"result": True}


def available_then_without(api: Api, key: str, **fields: Any) -> dict[str, Any]:
    """An available node whose BMC address ``driver_info/<key>`` was removed afterwards
    (a node without it cannot be managed)."""
    node = available(api, driver_info={key: "192.0.2.10"}, **fields)
    resp = api.patch("/v1/nodes/life", [{"op": "remove", "path": f"/driver_info/{key}"}])
    assert resp.status_code == 200, resp.text
    return node


@pytest.mark.parametrize(
    ("fields", "key"),
    [
        ({"driver": "ipmi"}, "ipmi_address"),
        ({"driver": "redfish"}, "redfish_address"),
        ({"power_interface": "ipmitool"}, "ipmi_address"),
    ],
)
def test_deploying_a_node_whose_power_interface_cannot_work_is_refused(
    api: Api, fields: dict[str, Any], key: str
) -> None:
    node = available_then_without(api, key, deploy_interface="custom-agent", **fields)

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert fault(resp).startswith(
        f"Failed to validate deploy or power info for node {node['uuid']}: "
    )
    assert f"driver_info/{key}" in fault(resp)
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["target_provision_state"]) == ("available", None)
    assert (shown["power_state"], shown["last_error"]) == ("power off", None)
    assert api.get("/v1/nodes/life/validate").json()["power"]["result"] is False


def test_a_node_whose_power_interface_cannot_work_is_refused_before_its_image(
    api: Api,
) -> None:
    # Ironic validates the power interface first: its reason is the one given.
    available_then_without(api, "ipmi_address", driver="ipmi", deploy_interface="direct")

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert "driver_info/ipmi_address" in fault(resp)
    assert "image_source" not in fault(resp)


def test_deploying_once_the_bmc_address_is_set_again_is_accepted(api: Api) -> None:
    available_then_without(api, "ipmi_address", driver="ipmi", deploy_interface="custom-agent")
    assert provision(api, "active").status_code == 400
    resp = api.patch(
        "/v1/nodes/life",
        [{"op": "add", "path": "/driver_info/ipmi_address", "value": "192.0.2.11"}],
    )
    assert resp.status_code == 200, resp.text

    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"


def test_rebuilding_a_node_whose_power_interface_cannot_work_is_refused(api: Api) -> None:
    available(
        api, driver="ipmi", deploy_interface="custom-agent", driver_info={"ipmi_address": "h1"}
    )
    assert provision(api, "active").status_code == 202
    resp = api.patch("/v1/nodes/life", [{"op": "remove", "path": "/driver_info/ipmi_address"}])
    assert resp.status_code == 200, resp.text

    resp = provision(api, "rebuild")

    assert resp.status_code == 400, resp.text
    assert "driver_info/ipmi_address" in fault(resp)
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"driver": "ipmi"}, "driver_info/ipmi_address"),
        ({"driver": "redfish"}, "driver_info/redfish_address"),
        ({"power_interface": "ipmitool"}, "driver_info/ipmi_address"),
        ({"driver": "manual-management"}, "fast track"),
    ],
)
def test_managing_a_node_whose_power_interface_cannot_work_leaves_it_enrolled(
    api: Api, fields: dict[str, Any], named: str
) -> None:
    node = api.node(name="life", **fields)

    assert provision(api, "manage").status_code == 202

    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["target_provision_state"]) == ("enroll", None)
    assert shown["last_error"].startswith(
        f"Failed to validate power driver interface for node {node['uuid']}: "
    )
    assert named in shown["last_error"]
    assert shown["power_state"] is None
    history = api.get("/v1/nodes/life/history?detail=true").json()["history"]
    assert history[-1]["severity"] == "ERROR"
    assert named in history[-1]["event"]


def test_a_node_is_managed_once_its_bmc_address_is_set(api: Api) -> None:
    api.node(name="life", driver="ipmi")
    assert provision(api, "manage").status_code == 202
    resp = api.patch(
        "/v1/nodes/life",
        [{"op": "add", "path": "/driver_info/ipmi_address", "value": "bmc-1.example.com"}],
    )
    assert resp.status_code == 200, resp.text

    assert provision(api, "manage").status_code == 202

    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["last_error"]) == ("manageable", None)
    assert shown["power_state"] == "power off"


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        (
            {"properties": {"root_device": {"size": "abc"}}},
            "invalid root device hints in properties/root_device: 'size' must be a positive "
            "integer, not 'abc'.",
        ),
        (
            {"properties": {"root_device": {"colour": "red", "size": 10}}},
            "invalid root device hints in properties/root_device: unknown hint 'colour'; "
            "valid hints are by_path, hctl, model,",
        ),
        (
            {"instance_info": {**DIRECT_IMAGE, "root_device": {"rotational": "maybe"}}},
            "invalid root device hints in instance_info/root_device: 'rotational' must be a "
            "Boolean, not 'maybe'.",
        ),
        (
            # the instance's hints are the ones a deploy uses, so the ones checked
            {
                "properties": {"root_device": {"size": 10}},
                "instance_info": {**DIRECT_IMAGE, "root_device": {"model": 5}},
            },
            "instance_info/root_device: 'model' must be a string, not 5.",
        ),
        (
            {"properties": {"root_device": "sda"}},
            "properties/root_device must be an object of root device hints, not 'sda'.",
        ),
        (
            {"properties": {"root_device": {"size": ">="}}},
            "'size' is not an expression the hint matcher can read: '>='",
        ),
    ],
)
def test_root_device_hints_ironic_refuses_fail_validation(
    api: Api, fields: dict[str, Any], named: str
) -> None:
    result = deploy_result(
        api, deploy_interface="direct", **{"instance_info": DIRECT_IMAGE, **fields}
    )

    assert result["result"] is False
    assert named in result["reason"]


@pytest.mark.parametrize(
    "fields",
    [
        {"properties": {"root_device": {"size": ">= 100", "rotational": False}}},
        {"properties": {"root_device": {"name": "/dev/sda", "model": "<in> SSD"}}},
        {"instance_info": {**DIRECT_IMAGE, "root_device": {"wwn": "0x4000cca77fc4dba1"}}},
        # empty instance hints: the node's are used, and checked
        {
            "properties": {"root_device": {"size": 10}},
            "instance_info": {**DIRECT_IMAGE, "root_device": {}},
        },
    ],
)
def test_root_device_hints_ironic_accepts_validate(api: Api, fields: dict[str, Any]) -> None:
    result = deploy_result(
        api, deploy_interface="direct", **{"instance_info": DIRECT_IMAGE, **fields}
    )

    assert result == {"result": True}


@pytest.mark.parametrize("deploy_interface", ["fake", "ramdisk"])
def test_only_the_agent_deploy_reads_root_device_hints(api: Api, deploy_interface: str) -> None:
    result = deploy_result(
        api,
        deploy_interface=deploy_interface,
        boot_interface="ipxe",
        properties={"root_device": {"size": "abc"}},
        instance_info=RAMDISK_IMAGES,
    )

    assert result == {"result": True}


def test_deploying_with_root_device_hints_ironic_refuses_is_refused(api: Api) -> None:
    node = available(
        api,
        deploy_interface="direct",
        storage_interface="external",
        properties={"root_device": {"size": 0}},
    )
    # a node booting from a volume writes no image, but its hints are checked all the same
    resp = api.post("/v1/volume/targets", {"node_uuid": node["uuid"], **ROOT_ISCSI})
    assert resp.status_code == 201, resp.text

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        f"Failed to validate deploy or power info for node {node['uuid']}: Node "
        f"{node['uuid']}: invalid root device hints in properties/root_device: 'size' must "
        "be a positive integer, not 0."
    )
    shown = api.get("/v1/nodes/life").json()
    assert (shown["provision_state"], shown["last_error"]) == ("available", None)
    resp = api.patch(
        "/v1/nodes/life", [{"op": "replace", "path": "/properties/root_device/size", "value": 8}]
    )
    assert resp.status_code == 200, resp.text
    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "wait call-back"


@pytest.mark.parametrize("boot_interface", ["ipxe", "http-ipxe", "pxe", "http", "redfish-https"])
def test_a_ramdisk_deploy_validates_with_a_boot_interface_that_boots_a_ramdisk(
    api: Api, boot_interface: str
) -> None:
    result = deploy_result(
        api,
        deploy_interface="ramdisk",
        boot_interface=boot_interface,
        instance_info=RAMDISK_IMAGES,
        driver_info={"redfish_address": "https://bmc.example.com"},
    )

    assert result == {"result": True}


def test_a_ramdisk_deploy_with_the_fake_boot_interface_fails_validation(api: Api) -> None:
    # Ironic's fake boot interface cannot boot a ramdisk
    result = deploy_result(api, deploy_interface="ramdisk")

    assert result["result"] is False
    assert (
        "the ramdisk deploy interface needs a boot interface that can boot a ramdisk"
        in (result["reason"])
    )
    assert result["reason"].endswith("not 'fake'.")


def test_deploying_a_ramdisk_node_that_cannot_boot_a_ramdisk_is_refused(api: Api) -> None:
    node = available(
        api, deploy_interface="ramdisk", boot_interface="fake", instance_info=RAMDISK_IMAGES
    )

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        f"Failed to validate deploy or power info for node {node['uuid']}: Node "
        f"{node['uuid']}: the ramdisk deploy interface needs a boot interface that can boot a "
        "ramdisk (http, http-ipxe, idrac-redfish-virtual-media, ipxe, pxe, redfish-https, "
        "redfish-virtual-media), not 'fake'."
    )
    assert api.get("/v1/nodes/life").json()["provision_state"] == "available"
    resp = api.patch(
        "/v1/nodes/life", [{"op": "replace", "path": "/boot_interface", "value": "pxe"}]
    )
    assert resp.status_code == 200, resp.text
    assert provision(api, "active").status_code == 202
    assert api.get("/v1/nodes/life").json()["provision_state"] == "active"


@pytest.mark.parametrize(
    ("instance_info", "named"),
    [
        # checked as the direct deploy it becomes
        ({}, "instance_info/image_source is missing"),
        ({"image_source": HTTP_IMAGE}, "needs instance_info/image_checksum"),
        ({**DIRECT_IMAGE, "root_device": {"size": "abc"}}, "'size' must be a positive integer"),
        # kernel and ramdisk without the instance asking for a ramdisk deploy: direct too
        ({"kernel": "http://i/k", "ramdisk": "http://i/r"}, "image_source is missing"),
        # checked as the ramdisk deploy it becomes: the fake boot interface cannot boot one
        (RAMDISK_INSTANCE, "needs a boot interface that can boot a ramdisk"),
        (
            {"ironic_ramdisk_deploy": True, "boot_iso": "http://i/boot.iso"},
            "needs a boot interface that can boot a ramdisk",
        ),
    ],
)
def test_an_autodetect_deploy_is_validated_as_the_interface_it_becomes(
    api: Api, instance_info: dict[str, Any], named: str
) -> None:
    result = deploy_result(api, deploy_interface="autodetect", instance_info=instance_info)

    assert result["result"] is False
    assert named in result["reason"]


@pytest.mark.parametrize(
    "fields",
    [
        {"instance_info": DIRECT_IMAGE},
        {"instance_info": {"image_source": HTTP_IMAGE, "image_checksum": "abc"}},
        # a ramdisk deploy needs no image_source
        {"instance_info": RAMDISK_INSTANCE, "boot_interface": "ipxe"},
    ],
)
def test_an_autodetect_deploy_ironic_accepts_validates(api: Api, fields: dict[str, Any]) -> None:
    assert deploy_result(api, deploy_interface="autodetect", **fields) == {"result": True}


def test_deploying_an_ipmi_node_without_an_image_is_refused(api: Api) -> None:
    # ipmi's default deploy interface is autodetect, which becomes direct without a ramdisk
    node = available(api, driver="ipmi", driver_info={"ipmi_address": "192.0.2.10"})
    assert node["deploy_interface"] == "autodetect"

    resp = provision(api, "active")

    assert resp.status_code == 400, resp.text
    assert "instance_info/image_source is missing" in fault(resp)
    assert api.get("/v1/nodes/life").json()["provision_state"] == "available"


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        (
            {"driver": "ipmi", "driver_info": {"ipmi_address": "192.0.2.9", "ipmi_port": "abc"}},
            "driver_info/ipmi_port 'abc' is not a port number (0-65535).",
        ),
        (
            {"driver": "ipmi", "driver_info": {"ipmi_address": "BMC 1"}},
            "driver_info/ipmi_address 'BMC 1' is neither an IP address nor a host name",
        ),
        (
            {
                "driver": "ipmi",
                "driver_info": {"ipmi_address": "192.0.2.9", "ipmi_priv_level": "root"},
            },
            "driver_info/ipmi_priv_level 'root' is not one of ADMINISTRATOR, CALLBACK, ",
        ),
        (
            {
                "driver": "ipmi",
                "driver_info": {"ipmi_address": "192.0.2.9", "ipmi_bridging": "single"},
            },
            "single IPMI bridging needs driver_info/ipmi_target_channel, "
            "driver_info/ipmi_target_address.",
        ),
        (
            {
                "driver": "redfish",
                "driver_info": {"redfish_address": "https://bmc", "redfish_auth_type": "x"},
            },
            "driver_info/redfish_auth_type 'x' is not one of basic, session, auto.",
        ),
        (
            {"driver": "redfish", "driver_info": {"redfish_address": "bmc example"}},
            "driver_info/redfish_address 'bmc example' is not a URL with a host",
        ),
    ],
)
def test_bmc_options_ironic_refuses_fail_power_validation_and_power_changes(
    api: Api, fields: dict[str, Any], named: str
) -> None:
    node = api.node(name="bmc", **fields)

    power = api.get("/v1/nodes/bmc/validate").json()["power"]
    changed = api.put("/v1/nodes/bmc/states/power", {"target": "power on"})

    assert power["result"] is False
    assert power["reason"].startswith(f"Node {node['uuid']}: ")
    assert named in power["reason"]
    assert changed.status_code == 400, changed.text
    assert named in fault(changed)
    assert api.get("/v1/nodes/bmc").json()["power_state"] is None


def test_valid_bmc_options_validate(api: Api) -> None:
    bmc = {
        "ipmi_address": "bmc-7.example.com",
        "ipmi_port": 623,
        "ipmi_terminal_port": "8023",
        "ipmi_priv_level": "OPERATOR",
        "ipmi_protocol_version": "2.0",
        "ipmi_cipher_suite": 17,
        "ipmi_hex_kg_key": "0a1b",
    }
    api.node(name="bmc", driver="ipmi", driver_info=bmc)

    body = api.get("/v1/nodes/bmc/validate").json()

    assert body["power"] == {"result": True}
    assert body["management"] == {"result": True}


@pytest.mark.parametrize(
    "address", ["bmc.example.com", "192.0.2.9:8443/redfish/v1", "2001:db8::1", "http://[::1]:8000"]
)
def test_redfish_addresses_ironic_takes_validate(api: Api, address: str) -> None:
    api.node(name="bmc", driver="redfish", driver_info={"redfish_address": address})

    body = api.get("/v1/nodes/bmc/validate").json()

    assert body["power"] == {"result": True}
    assert body["management"] == {"result": True}
