"""The real Nova 34 ironic driver boots, reboots, rebuilds, rescues and deletes an instance.

Nova runs in its own venv (tests/support/nova.py); every call it makes reaches a real
``metalwire serve`` over HTTP. After each step the test reads the Bare Metal API itself.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.nova import NovaDriver, NovaError
from tests.support.server import MetalwireServer

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
MACS = ("52:54:00:60:00:01", "52:54:00:60:00:02", "52:54:00:60:00:03")


class Api:
    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, headers=HEADERS, timeout=30)

    def get(self, path: str) -> Any:
        resp = self.http.get(path)
        assert resp.status_code == 200, resp.text
        return resp.json()

    def send(self, method: str, path: str, body: Any = None, status: int = 202) -> None:
        resp = self.http.request(method, path, json=body)
        assert resp.status_code == status, resp.text

    def node(self, ident: str) -> dict[str, Any]:
        return dict(self.get(f"/v1/nodes/{ident}"))

    def vif_ports(self, ident: str) -> dict[str, str]:
        """VIF id -> the MAC address of the port that carries it."""
        ports = self.get(f"/v1/ports?node={ident}&detail=true")["ports"]
        return {
            p["internal_info"]["tenant_vif_port_id"]: p["address"]
            for p in ports
            if p["internal_info"].get("tenant_vif_port_id")
        }

    def history(self, ident: str) -> list[str]:
        entries = self.get(f"/v1/nodes/{ident}/history?detail=true")["history"]
        return [e["event"] for e in entries]


@pytest.fixture
def api(nova_server: MetalwireServer) -> Iterator[Api]:
    client = Api(nova_server.url)
    yield client
    client.http.close()


def enrol(api: Api, ports: int = 2) -> str:
    """A fake-hardware node with ports, managed and provided, as an operator does."""
    name = "bm-" + uuid.uuid4().hex[:8]
    resp = api.http.post(
        "/v1/nodes",
        json={
            "driver": "fake-hardware",
            "name": name,
            "resource_class": "baremetal",
            "properties": {"cpu_arch": "x86_64", "local_gb": 10},
        },
    )
    assert resp.status_code == 201, resp.text
    node = resp.json()["uuid"]
    for n in range(ports):
        mac = f"52:54:00:{uuid.uuid4().hex[:2]}:{uuid.uuid4().hex[:2]}:{n:02x}"
        created = api.http.post("/v1/ports", json={"node_uuid": node, "address": mac})
        assert created.status_code == 201, created.text
    for target in ("manage", "provide"):
        api.send("PUT", f"/v1/nodes/{node}/states/provision", {"target": target})
    return str(node)


def reserved(nova: NovaDriver, node: str) -> tuple[str, list[str]]:
    """A new instance with two VIFs, for which Nova has reserved the node."""
    instance = str(uuid.uuid4())
    vifs = [str(uuid.uuid4()), str(uuid.uuid4())]
    nova.call(
        "new_instance",
        uuid=instance,
        node=node,
        vifs=[[vifs[0], "fa:16:3e:00:00:01"], [vifs[1], "fa:16:3e:00:00:02"]],
    )
    nova.call("prepare_for_spawn", uuid=instance)
    return instance, vifs


def spawned(nova: NovaDriver, node: str) -> tuple[str, list[str]]:
    instance, vifs = reserved(nova, node)
    nova.call("spawn", uuid=instance, admin_password="pass")
    return instance, vifs


def test_enrolled_node_made_available_is_usable_by_nova(api: Api, nova: NovaDriver) -> None:
    node = enrol(api)
    shown = api.node(node)
    assert (shown["provision_state"], shown["power_state"]) == ("available", "power off")
    assert nova.call("node_is_available", node=node) is True
    assert nova.call("node_resources", node=node) == {"unavailable": False, "used": False}


def test_instance_lifecycle(api: Api, nova: NovaDriver) -> None:
    node = enrol(api)
    ports = {p["address"] for p in api.get(f"/v1/ports?node={node}")["ports"]}
    instance, vifs = spawned(nova, node)

    shown = api.node(node)
    assert shown["provision_state"] == "active"
    assert shown["target_provision_state"] is None
    assert shown["power_state"] == "power on"
    assert shown["instance_uuid"] == instance
    assert shown["instance_info"]["configdrive"] == "******"  # Nova built and sent one
    assert shown["instance_info"]["nova_host_id"] == "compute-1"
    on_ports = api.vif_ports(node)
    assert sorted(on_ports) == sorted(vifs)
    assert set(on_ports.values()) == ports  # one VIF on each port
    assert nova.call("get_info", uuid=instance) == {"state": 1}  # RUNNING

    nova.call("reboot", uuid=instance, kind="SOFT")
    assert "soft rebooting on " in "\n".join(api.history(node))
    nova.call("reboot", uuid=instance, kind="HARD")
    assert any(e.startswith("rebooting on ") for e in api.history(node))
    assert api.node(node)["power_state"] == "power on"

    nova.call("power_off", uuid=instance, timeout=30)  # soft first, as Nova tries
    assert api.node(node)["power_state"] == "power off"
    # openstacksdk waits on its side and sends no timeout to the API.
    assert any(e.startswith("soft power off on ") for e in api.history(node))
    assert nova.call("get_info", uuid=instance) == {"state": 4}  # SHUTDOWN
    nova.call("power_on", uuid=instance)
    assert api.node(node)["power_state"] == "power on"
    nova.call("power_off", uuid=instance)
    assert api.node(node)["power_state"] == "power off"
    nova.call("power_on", uuid=instance)

    nova.call("rebuild", uuid=instance)
    shown = api.node(node)
    assert (shown["provision_state"], shown["instance_uuid"]) == ("active", instance)
    assert "rebuild done: active" in api.history(node)
    assert sorted(api.vif_ports(node)) == sorted(vifs)

    nova.call("rescue", uuid=instance, password="rescue-me")
    shown = api.node(node)
    assert (shown["provision_state"], shown["instance_info"]["rescue_password"]) == (
        "rescue",
        "******",
    )
    nova.call("unrescue", uuid=instance)
    assert api.node(node)["provision_state"] == "active"

    # The console: disabled, Nova says it is unavailable; enabled, Nova resets it (off, on)
    # and reads the fake console's empty connection information, as from Ironic 39.
    with pytest.raises(NovaError) as unavailable:
        nova.call("serial_console", uuid=instance)
    assert unavailable.value.error == "ConsoleTypeUnavailable"
    api.send("PUT", f"/v1/nodes/{node}/states/console", {"enabled": True})
    with pytest.raises(NovaError) as empty:
        nova.call("serial_console", uuid=instance)
    assert empty.value.error == "KeyError"  # no "type" in the fake console's {}
    assert api.history(node)[-3:] == ["console enabled", "console disabled", "console enabled"]

    nova.call("detach_interface", uuid=instance, vif_id=vifs[1])
    assert sorted(api.vif_ports(node)) == [vifs[0]]
    extra = str(uuid.uuid4())
    nova.call("attach_interface", uuid=instance, vif_id=extra, mac="fa:16:3e:00:00:03")
    assert sorted(api.vif_ports(node)) == sorted([vifs[0], extra])

    assert nova.call("list_instance_uuids") == [instance]
    nova.call("destroy", uuid=instance)
    shown = api.node(node)
    assert shown["provision_state"] == "available"
    assert shown["instance_uuid"] is None
    assert shown["instance_info"] == {}
    assert shown["power_state"] == "power off"
    assert api.vif_ports(node) == {}
    assert api.get(f"/v1/nodes/{node}/vifs") == {"vifs": []}


def test_cleanup_after_a_failed_build(api: Api, nova: NovaDriver) -> None:
    node = enrol(api)
    instance, _ = reserved(nova, node)
    # The build fails on the node (its power interface cannot work), after Nova reserved it
    # and plugged both VIFs.
    api.send(
        "PATCH",
        f"/v1/nodes/{node}",
        [{"op": "replace", "path": "/power_interface", "value": "ipmitool"}],
        status=200,
    )
    with pytest.raises(NovaError) as failed:
        nova.call("spawn", uuid=instance)
    assert failed.value.error == "ValidationError", failed.value
    assert "driver_info/ipmi_address" in failed.value.message
    # spawn undid its own deploy parameters; the compute manager's cleanup does the rest.
    nova.call("failed_spawn_cleanup", uuid=instance)
    shown = api.node(node)
    assert (shown["provision_state"], shown["instance_uuid"]) == ("available", None)
    assert api.get(f"/v1/nodes/{node}/vifs") == {"vifs": []}
    # Deleting the instance later finds nothing left to undo.
    nova.call("destroy", uuid=instance)


def test_a_sharded_compute_service_manages_only_its_shards_nodes(
    api: Api, nova_python_path: Path, nova_server: MetalwireServer, tmp_path: Path
) -> None:
    """Nova's ``[ironic] shard`` (microversion 1.82): each sharded nova-compute claims only the
    nodes of its shard; without the filter every one of them would claim every node."""
    in_s1, in_s2, unsharded = enrol(api), enrol(api), enrol(api)
    for node, shard in ((in_s1, "s1"), (in_s2, "s2")):
        resp = api.http.patch(
            f"/v1/nodes/{node}",
            json=[{"op": "add", "path": "/shard", "value": shard}],
            headers={"X-OpenStack-Ironic-API-Version": "1.82"},
        )
        assert resp.status_code == 200, resp.text

    with NovaDriver(
        nova_python_path, nova_server.url, "compute-s1", tmp_path / "s1.log", "s1"
    ) as s1:
        assert s1.call("available_nodes") == [in_s1]
    with NovaDriver(
        nova_python_path, nova_server.url, "compute-s2", tmp_path / "s2.log", "s2"
    ) as s2:
        assert s2.call("available_nodes") == [in_s2]
    # A compute service without a shard still manages every node no other service holds.
    with NovaDriver(
        nova_python_path, nova_server.url, "compute-all", tmp_path / "all.log"
    ) as every:
        assert {in_s1, in_s2, unsharded} <= set(every.call("available_nodes"))


def test_an_instance_on_a_node_in_maintenance_can_be_deleted(api: Api, nova: NovaDriver) -> None:
    """An operator puts a failing node in maintenance; its user deletes the instance. Ironic
    refuses only deploy, rebuild, cleaning and rescue in maintenance, not the undeploy."""
    node = enrol(api)
    instance, _ = spawned(nova, node)
    api.send("PUT", f"/v1/nodes/{node}/maintenance", {"reason": "failing DIMM"})
    nova.call("destroy", uuid=instance)
    shown = api.node(node)
    assert (shown["provision_state"], shown["instance_uuid"]) == ("available", None)
    assert (shown["maintenance"], shown["maintenance_reason"]) == (True, "failing DIMM")
    assert api.get(f"/v1/nodes/{node}/vifs") == {"vifs": []}


def test_an_instance_deleted_while_its_deploy_waits_for_the_agent_is_torn_down(
    api: Api, nova: NovaDriver
) -> None:
    """A ``direct`` deploy waits in ``wait call-back`` for an agent that never comes; the user
    deletes the instance. Nova stops waiting and undeploys the node from that state, which
    Ironic allows (no abort first)."""
    node = enrol(api)
    api.send(
        "PATCH",
        f"/v1/nodes/{node}",
        [{"op": "replace", "path": "/deploy_interface", "value": "direct"}],
        status=200,
    )
    instance, _ = reserved(nova, node)
    with pytest.raises(NovaError) as aborted:
        nova.call("spawn", uuid=instance, deleted_while_deploying=True)
    assert aborted.value.error == "InstanceDeployFailure", aborted.value
    assert api.node(node)["provision_state"] == "wait call-back"
    nova.call("destroy", uuid=instance)
    shown = api.node(node)
    assert (shown["provision_state"], shown["instance_uuid"]) == ("available", None)
    assert api.get(f"/v1/nodes/{node}/vifs") == {"vifs": []}
    events = api.history(node)
    assert "deleted started from wait call-back" in events
    # the provisioning network the wait kept is taken down, as after an abort
    assert "flat.remove_provisioning_network done" in events


def test_a_compute_service_of_a_conductor_group_manages_its_nodes_whatever_the_case(
    api: Api, nova_python_path: Path, nova_server: MetalwireServer, tmp_path: Path
) -> None:
    """A conductor group is case-insensitive (Ironic stores it lowercased, Nova's
    ``[ironic] conductor_group`` says so): an operator who wrote ``Rack-A`` on the node and
    ``rack-a`` in nova.conf, or the other way round, still has the node managed."""
    in_group, elsewhere = enrol(api), enrol(api)
    for node, group in ((in_group, "Rack-A"), (elsewhere, "rack-b")):
        resp = api.http.patch(
            f"/v1/nodes/{node}",
            json=[{"op": "replace", "path": "/conductor_group", "value": group}],
            headers={"X-OpenStack-Ironic-API-Version": "1.46"},
        )
        assert resp.status_code == 200, resp.text
    assert api.node(in_group)["conductor_group"] == "rack-a"
    for configured in ("rack-a", "RACK-A"):
        with NovaDriver(
            nova_python_path,
            nova_server.url,
            "compute-" + configured,
            tmp_path / f"{configured}.log",
            conductor_group=configured,
        ) as grouped:
            assert grouped.call("available_nodes") == [in_group]


def test_a_node_reserved_by_one_instance_is_refused_to_another(api: Api, nova: NovaDriver) -> None:
    """Two builds race for one node: both saw it free, the first reserves it. The second
    reservation must fail (409, as Ironic's) so that Nova reschedules that build, rather than
    take the node away from the first instance."""
    node = enrol(api)
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    for instance in (first, second):
        nova.call("new_instance", uuid=instance, node=node, vifs=[])
    with pytest.raises(NovaError) as refused:
        nova.call("prepare_two_for_spawn_at_once", first=first, second=second)
    assert refused.value.error == "InstanceDeployFailure", refused.value
    assert "Failed to reserve node" in refused.value.message
    assert api.node(node)["instance_uuid"] == first


def test_the_resource_class_of_a_node_with_an_instance_cannot_change(
    api: Api, nova: NovaDriver
) -> None:
    """Nova counts an instance against its node's resource class: changed under the instance,
    the node would be offered again under the new class. As Ironic, the change is refused
    (409) once the node is deployed, in maintenance too; Nova keeps seeing it as used."""
    node = enrol(api)
    instance, _ = spawned(nova, node)
    api.send("PUT", f"/v1/nodes/{node}/maintenance", {"reason": "relabel"})
    resp = api.http.patch(
        f"/v1/nodes/{node}", json=[{"op": "replace", "path": "/resource_class", "value": "gold"}]
    )
    assert resp.status_code == 409, resp.text
    assert "resource_class" in resp.json()["error_message"]
    assert api.node(node)["resource_class"] == "baremetal"
    api.send("DELETE", f"/v1/nodes/{node}/maintenance")
    assert nova.call("node_resources", node=node)["used"] is True
    nova.call("destroy", uuid=instance)
    api.send(
        "PATCH",
        f"/v1/nodes/{node}",
        [{"op": "replace", "path": "/resource_class", "value": "gold"}],
        status=200,
    )
