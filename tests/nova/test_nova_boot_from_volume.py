"""The real Nova 34 ironic driver boots an instance from a Cinder volume.

An operator enrols the node's volume connectors (its iSCSI initiator, its storage IP); Nova
hands Cinder the connector it builds from them, records the volume Cinder attached as a
volume target at spawn, and removes the targets again when the build fails. Every call Nova
makes reaches a real ``metalwire serve``; the test reads the Bare Metal API itself.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.nova.test_nova_lifecycle import Api, enrol, reserved
from tests.support.nova import NovaDriver, NovaError
from tests.support.server import MetalwireServer

VOLUME_HEADERS = {"X-OpenStack-Ironic-API-Version": "1.32"}


@pytest.fixture
def api(nova_server: MetalwireServer) -> Iterator[Api]:
    client = Api(nova_server.url)
    yield client
    client.http.close()


def initiator() -> str:
    """An iSCSI initiator name of its own: connector IDs are unique across nodes."""
    return "iqn.2004-04.com.example:" + uuid.uuid4().hex[:12]


def storage_ip() -> str:
    """An IP address of its own in 10.0.0.0/8."""
    host = uuid.uuid4().int % (2**24 - 2) + 1
    return f"10.{host >> 16}.{(host >> 8) & 255}.{host & 255}"


def connect(api: Api, node: str, kind: str, connector_id: str) -> str:
    resp = api.http.post(
        "/v1/volume/connectors",
        json={"node_uuid": node, "type": kind, "connector_id": connector_id},
        headers=VOLUME_HEADERS,
    )
    assert resp.status_code == 201, resp.text
    return str(resp.json()["uuid"])


def targets(api: Api, node: str) -> list[dict[str, Any]]:
    resp = api.http.get(
        f"/v1/volume/targets?node={node}&detail=true",
        headers={"X-OpenStack-Ironic-API-Version": "1.32"},
    )
    assert resp.status_code == 200, resp.text
    found: list[dict[str, Any]] = resp.json()["targets"]
    return found


def root_volume(volume_id: str) -> dict[str, Any]:
    """The root volume as Cinder attached it for the node's connector: what Nova records."""
    return {
        "volume_id": volume_id,
        "boot_index": 0,
        "driver_volume_type": "iscsi",
        "data": {
            "target_iqn": "iqn.2010-10.org.openstack:volume-" + volume_id,
            "target_portal": "192.0.2.1:3260",
            "target_lun": 1,
            "auth_method": "CHAP",
        },
    }


def test_get_volume_connector_answers_from_the_nodes_connectors(api: Api, nova: NovaDriver) -> None:
    node = enrol(api)
    instance, _ = reserved(nova, node)
    # Nothing enrolled: the instance's hostname stands for the host, no IP, no initiator.
    assert nova.call("get_volume_connector", uuid=instance) == {
        "host": "vm-" + instance[:8],
        "platform": "x86_64",
        "os_type": "baremetal",
        "multipath": False,
    }

    iqn, ip = initiator(), storage_ip()
    connect(api, node, "iqn", iqn)
    connect(api, node, "ip", ip)
    connect(api, node, "wwpn", "21:00:00:24:ff:4c:a0:01")
    connect(api, node, "wwnn", "20:00:00:24:ff:4c:a0:01")
    # Nova takes the first iqn and ip of the list, which is in enrolment order.
    connect(api, node, "iqn", initiator())
    connect(api, node, "ip", storage_ip())
    connect(api, node, "wwpn", "21:00:00:24:ff:4c:a0:02")
    connect(api, node, "wwnn", "20:00:00:24:ff:4c:a0:02")
    other = enrol(api)  # another node's connectors are not this node's
    connect(api, other, "iqn", initiator())
    connect(api, other, "ip", "198.51.100.9")

    assert nova.call("get_volume_connector", uuid=instance) == {
        "ip": ip,
        "host": ip,
        "initiator": iqn,
        "wwpns": ["21:00:00:24:ff:4c:a0:01", "21:00:00:24:ff:4c:a0:02"],
        "wwnns": ["20:00:00:24:ff:4c:a0:01", "20:00:00:24:ff:4c:a0:02"],
        "platform": "x86_64",
        "os_type": "baremetal",
        "multipath": False,
    }


def cinder_node(api: Api, capabilities: str = "iscsi_boot:true") -> str:
    """A node booting from Cinder volumes over iSCSI, as an operator sets one up."""
    node = enrol(api)
    api.send(
        "PATCH",
        f"/v1/nodes/{node}",
        [
            {"op": "replace", "path": "/storage_interface", "value": "cinder"},
            {"op": "add", "path": "/properties/capabilities", "value": capabilities},
        ],
        status=200,
    )
    connect(api, node, "iqn", initiator())
    connect(api, node, "ip", storage_ip())
    return node


def test_boot_from_volume(api: Api, nova: NovaDriver) -> None:
    """Nova records the root and a data volume as the node's targets, with the connection
    properties Cinder gave, and deploys the node without an image."""
    node = cinder_node(api)
    instance, _ = reserved(nova, node)
    volume_id = str(uuid.uuid4())
    data_volume = {**root_volume(str(uuid.uuid4())), "boot_index": 1}

    nova.call("spawn", uuid=instance, volumes=[root_volume(volume_id), data_volume])

    shown = api.node(node)
    assert (shown["provision_state"], shown["instance_uuid"]) == ("active", instance)
    # Booted from the volume: Nova sent no image to write.
    assert "image_source" not in shown["instance_info"]
    recorded = sorted(targets(api, node), key=lambda t: t["boot_index"])
    assert [
        (t["boot_index"], t["volume_id"], t["volume_type"], t["properties"]) for t in recorded
    ] == [
        (0, volume_id, "iscsi", root_volume(volume_id)["data"]),
        (1, data_volume["volume_id"], "iscsi", data_volume["data"]),
    ]
    assert all(t["node_uuid"] == node for t in recorded)

    nova.call("destroy", uuid=instance)
    shown = api.node(node)
    assert (shown["provision_state"], shown["instance_uuid"]) == ("available", None)
    # Nova undeploys an active node without removing its volume targets itself, and Ironic
    # 39's tear-down keeps them too: they stay, for the operator (or Nova's next failed
    # build on the node) to remove.
    assert sorted(t["volume_id"] for t in targets(api, node)) == sorted(
        [volume_id, data_volume["volume_id"]]
    )
    # So the node's next boot from a volume meets the old boot volume's index (409) and
    # fails, Nova removing every target of the node as it cleans up; the next try works.
    again, _ = reserved(nova, node)
    with pytest.raises(NovaError) as refused:
        nova.call("spawn", uuid=again, volumes=[root_volume(str(uuid.uuid4()))])
    assert refused.value.error == "InstanceDeployFailure", refused.value
    assert targets(api, node) == []
    nova.call("failed_spawn_cleanup", uuid=again)
    again, _ = reserved(nova, node)
    nova.call("spawn", uuid=again, volumes=[root_volume(str(uuid.uuid4()))])
    assert api.node(node)["provision_state"] == "active"
    assert len(targets(api, node)) == 1


def test_a_boot_from_volume_the_storage_interface_refuses_removes_its_targets(
    api: Api, nova: NovaDriver
) -> None:
    """The operator chose the cinder storage interface but did not give the node the
    ``iscsi_boot`` capability: the node cannot boot from the iSCSI root volume. Nova's
    validation of the node says why and the build fails, its volume targets removed; another
    node's targets stay."""
    elsewhere = cinder_node(api)
    kept = {**root_volume(str(uuid.uuid4())), "boot_index": 0}
    created = api.http.post(
        "/v1/volume/targets",
        json={
            "node_uuid": elsewhere,
            "volume_type": "iscsi",
            "boot_index": 0,
            "volume_id": kept["volume_id"],
            "properties": kept["data"],
        },
        headers=VOLUME_HEADERS,
    )
    assert created.status_code == 201, created.text
    node = cinder_node(api, capabilities="boot_mode:uefi")
    instance, _ = reserved(nova, node)
    with pytest.raises(NovaError) as failed:
        nova.call("spawn", uuid=instance, volumes=[root_volume(str(uuid.uuid4()))])
    assert failed.value.error == "ValidationError", failed.value
    assert "storage: " in failed.value.message
    assert "iscsi_boot" in failed.value.message
    assert targets(api, node) == []
    assert [t["volume_id"] for t in targets(api, elsewhere)] == [kept["volume_id"]]
    nova.call("failed_spawn_cleanup", uuid=instance)
    shown = api.node(node)
    assert (shown["provision_state"], shown["instance_uuid"]) == ("available", None)
    assert api.get(f"/v1/nodes/{node}/vifs") == {"vifs": []}


def test_a_failed_boot_from_volume_removes_its_targets(api: Api, nova: NovaDriver) -> None:
    node = cinder_node(api)
    instance, _ = reserved(nova, node)
    # The build fails on the node (its power interface cannot work).
    api.send(
        "PATCH",
        f"/v1/nodes/{node}",
        [{"op": "replace", "path": "/power_interface", "value": "ipmitool"}],
        status=200,
    )
    with pytest.raises(NovaError) as failed:
        nova.call("spawn", uuid=instance, volumes=[root_volume(str(uuid.uuid4()))])
    assert failed.value.error == "ValidationError", failed.value
    assert "driver_info/ipmi_address" in failed.value.message
    assert targets(api, node) == []
    nova.call("failed_spawn_cleanup", uuid=instance)
    shown = api.node(node)
    assert (shown["provision_state"], shown["instance_uuid"]) == ("available", None)


def test_a_mac_connector_fails_novas_connector_as_with_ironic(api: Api, nova: NovaDriver) -> None:
    """With a ``mac`` connector Nova looks for the VIF on the portgroups of that address on
    the node; Ironic 39 refuses a portgroup list filtered by node and address together (400),
    and so does metalwire: Nova cannot build the connector. Operators give an ``ip`` one."""
    node = enrol(api)
    instance, _ = reserved(nova, node)
    connect(api, node, "mac", f"52:54:00:{uuid.uuid4().hex[:2]}:{uuid.uuid4().hex[:2]}:01")
    with pytest.raises(NovaError) as refused:
        nova.call("get_volume_connector", uuid=instance)
    assert refused.value.error == "BadRequestException", refused.value
    assert "Filtering by node, address, or shard simultaneously" in refused.value.message
