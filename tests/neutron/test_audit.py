"""The drift audit against the real Neutron: drift is made directly in Neutron, the audit finds
each kind, a repair fixes the safe ones (each fix in the node's history), the next audit is
clean; the ``metalwire audit`` command and the periodic audit see the same.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Result, clean_env, run_metalwire
from tests.neutron.clients import Metalwire, Neutron, link, neutron_with
from tests.support.helpers import wait_for
from tests.support.neutron import NeutronServer
from tests.support.server import MetalwireServer
from tests.support.worker_processes import serving_pids, workers_of

Json = dict[str, Any]
AUDIT = "/v1/metalwire/audit"
NETWORK = "audit-p1"


@pytest.fixture(scope="module")
def neutron(neutron_endpoint: str) -> Iterator[Neutron]:
    with neutron_with(neutron_endpoint, {NETWORK: "physnet1"}) as api:
        yield api


@pytest.fixture(scope="module")
def server(
    neutron: Neutron, neutron_endpoint: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MetalwireServer]:
    env = {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
        "METALWIRE_CONDUCTOR_AUDIT_INTERVAL": "1",
    }
    with MetalwireServer(tmp_path_factory.mktemp("audit"), env=env) as running:
        yield running


@pytest.fixture(scope="module")
def api(server: MetalwireServer) -> Iterator[Metalwire]:
    client = Metalwire(server.url)
    yield client
    client.close()


def cli(server: MetalwireServer, *args: str) -> Result:
    return run_metalwire(*args, env=clean_env(METALWIRE_URL=server.url))


def node_with_ports(api: Metalwire, name: str, octet: int, count: int) -> tuple[Json, list[Json]]:
    node = api.node(name)
    ports = [
        api.port(
            node,
            f"52:54:00:{octet:02x}:00:{n:02x}",
            link(f"Ethernet{octet}/{n}"),
            physical_network="physnet1",
        )
        for n in range(1, count + 1)
    ]
    return node, ports


def attach(api: Metalwire, node: str, port: Json, vif: Json) -> None:
    response = api.attach(node, vif["id"], port_uuid=port["uuid"])
    assert response.status_code == 204, response.text


def put_port(neutron: Neutron, port_id: str, **fields: Any) -> None:
    response = neutron.http.put(f"/ports/{port_id}", json={"port": fields})
    assert response.status_code == 200, response.text


def audit_now(api: Metalwire, query: str = "") -> Any:
    """The answer of ``POST /v1/metalwire/audit``: an audit now (a GET reads the latest)."""
    response = api.http.post(AUDIT + query, json={})
    assert response.status_code == 200, response.text
    return response.json()


def audit(api: Metalwire, node: str | None = None) -> dict[str, str]:
    """The findings of an audit now, as {VIF id: kind}."""
    query = f"?node={node}" if node else ""
    findings = audit_now(api, query)["findings"]
    found = {f["vif_id"]: f["kind"] for f in findings}
    assert len(found) == len(findings), findings
    return found


def history(api: Metalwire, node: str) -> list[Json]:
    entries: list[Json] = api.get(f"/v1/nodes/{node}/history?detail=true")["history"]
    return entries


def test_audit_finds_each_drift_and_repair_fixes_the_safe_ones(
    api: Metalwire, neutron: Neutron
) -> None:
    active, (a1, a2, _a3) = node_with_ports(api, "drift-active", 0x41, 3)
    idle, (i1, i2) = node_with_ports(api, "drift-idle", 0x42, 2)
    api.provision("drift-active", "manage", "provide")
    api.provision("drift-idle", "manage", "provide")
    unbound, gone, moved_mac, bound = (neutron.vif(NETWORK) for _ in range(4))
    attach(api, "drift-active", a1, unbound)
    attach(api, "drift-active", a2, gone)
    api.provision("drift-active", "active")
    attach(api, "drift-idle", i1, moved_mac)
    attach(api, "drift-idle", i2, bound)
    neutron.wait_status(unbound["id"], "ACTIVE")
    assert audit(api) == {}, "no drift yet"

    # Drift, made behind metalwire's back.
    put_port(neutron, unbound["id"], **{"binding:host_id": "", "binding:profile": {}})
    assert neutron.http.delete(f"/ports/{gone['id']}").status_code == 204
    put_port(neutron, moved_mac["id"], mac_address="52:54:00:42:00:99")
    put_port(
        neutron,
        bound["id"],
        **{
            "binding:host_id": idle["uuid"],
            "binding:vnic_type": "baremetal",
            "binding:profile": {"local_link_information": [link("Ethernet66/2")]},
        },
    )
    orphan = neutron.vif(
        NETWORK,
        **{
            "binding:host_id": active["uuid"],
            "binding:vnic_type": "baremetal",
            "binding:profile": {"local_link_information": [link("Ethernet65/3")]},
        },
    )
    # A baremetal port bound to a host metalwire does not know is nobody's business here.
    neutron.vif(NETWORK, **{"binding:host_id": "compute-9", "binding:vnic_type": "baremetal"})

    findings = {f["vif_id"]: f for f in audit_now(api)["findings"]}
    assert {vif: f["kind"] for vif, f in findings.items()} == {
        unbound["id"]: "binding_mismatch",
        gone["id"]: "vif_port_missing",
        moved_mac["id"]: "mac_mismatch",
        bound["id"]: "bound_while_not_deployed",
        orphan["id"]: "orphan_port",
    }
    assert findings[gone["id"]]["repairable"] is False
    assert f"Neutron has no port {gone['id']}" in findings[gone["id"]]["message"]
    mac = findings[moved_mac["id"]]
    assert (mac["expected"], mac["actual"]) == (i1["address"], "52:54:00:42:00:99")
    assert mac["target_uuid"] == i1["uuid"] and mac["repair"] == "reset MAC"
    rebind = findings[unbound["id"]]
    assert rebind["expected"]["binding:host_id"] == active["uuid"]
    assert rebind["expected"]["local_link_information"] == [link("Ethernet65/1")]
    assert rebind["actual"]["binding:host_id"] == ""
    assert findings[orphan["id"]]["node_uuid"] == active["uuid"]
    assert audit(api, "drift-idle") == {
        moved_mac["id"]: "mac_mismatch",
        bound["id"]: "bound_while_not_deployed",
    }

    response = api.http.post(AUDIT + "/repair", json={})
    assert response.status_code == 200, response.text
    done = response.json()
    assert {r["vif_id"]: r["repaired"] for r in done["repairs"]} == {
        unbound["id"]: True,
        moved_mac["id"]: True,
        bound["id"]: True,
        orphan["id"]: True,
    }, done["repairs"]
    assert [(f["vif_id"], f["kind"]) for f in done["findings"]] == [
        (gone["id"], "vif_port_missing")
    ]

    # Neutron holds what the attachments say again.
    rebound = neutron.wait_status(unbound["id"], "ACTIVE")
    assert rebound["binding:host_id"] == active["uuid"]
    assert rebound["binding:profile"] == {
        "local_link_information": [link("Ethernet65/1")],
        "physical_network": "physnet1",
    }
    assert neutron.port(moved_mac["id"])["mac_address"] == i1["address"]
    reseeded = neutron.port(bound["id"])  # as an attach to a node not deployed leaves it
    assert (reseeded["binding:host_id"], reseeded["binding:profile"]) == (idle["uuid"], {})
    assert neutron.port(orphan["id"])["binding:host_id"] == ""
    assert audit(api) == {gone["id"]: "vif_port_missing"}

    # Each fix is in its node's history.
    repaired = {
        e["vif_id"]: e
        for e in history(api, "drift-active") + history(api, "drift-idle")
        if e["event_type"] == "audit"
    }
    assert set(repaired) == {unbound["id"], moved_mac["id"], bound["id"], orphan["id"]}
    assert all(e["result"] == "success" for e in repaired.values())
    assert "Drift repaired: set the MAC" in repaired[moved_mac["id"]]["event"]
    assert "Drift repaired: unbound Neutron port" in repaired[orphan["id"]]["event"]

    # The missing port is for the operator: once the VIF is detached, nothing is left.
    assert api.detach("drift-active", gone["id"]).status_code == 204
    assert audit(api) == {}


def test_metalwire_audit_command_prints_json_and_repairs(
    api: Metalwire, neutron: Neutron, server: MetalwireServer
) -> None:
    _node, (port,) = node_with_ports(api, "drift-cli", 0x43, 1)
    vif = neutron.vif(NETWORK)
    attach(api, "drift-cli", port, vif)
    put_port(neutron, vif["id"], mac_address="52:54:00:43:00:99")

    shown = cli(server, "audit", "--node", "drift-cli", "-f", "json")
    assert shown.code == 0, shown.stderr
    rows = json.loads(shown.stdout)
    assert [(r["Kind"], r["VIF ID"], r["Node UUID"]) for r in rows] == [
        ("mac_mismatch", vif["id"], _node["uuid"])
    ]
    assert rows[0]["Target UUID"] == port["uuid"] and rows[0]["Repair"] == "reset MAC"

    repaired = cli(server, "audit", "--node", "drift-cli", "--repair", "-f", "json")
    assert repaired.code == 0, repaired.stderr
    assert [(r["VIF ID"], r["Repaired"]) for r in json.loads(repaired.stdout)] == [
        (vif["id"], True)
    ]
    assert neutron.port(vif["id"])["mac_address"] == port["address"]

    again = cli(server, "audit", "--node", "drift-cli", "-f", "json")
    assert again.code == 0, again.stderr
    assert json.loads(again.stdout) == []


def test_periodic_audit_keeps_the_latest_findings(api: Metalwire, neutron: Neutron) -> None:
    _node, (port,) = node_with_ports(api, "drift-periodic", 0x44, 1)
    vif = neutron.vif(NETWORK)
    attach(api, "drift-periodic", port, vif)
    put_port(neutron, vif["id"], mac_address="52:54:00:44:00:99")

    def latest() -> dict[str, str]:
        return {f["vif_id"]: f["kind"] for f in api.get(AUDIT + "/latest")["findings"]}

    assert wait_for(lambda: latest().get(vif["id"]) == "mac_mismatch", timeout=30)
    assert api.http.post(AUDIT + "/repair?node=drift-periodic", json={}).status_code == 200
    assert wait_for(lambda: vif["id"] not in latest(), timeout=30)


def test_flat_vifs_are_expected_bound_to_the_node(api: Metalwire, neutron: Neutron) -> None:
    """A deployed ``flat`` node's VIFs are bound to the node, with no link information to
    compare (``flat`` sends no profile); a repair binds them so again."""
    node = api.node("drift-flat", "flat", instance_info={"nova_host_id": "compute-7"})
    port = api.port(node, "52:54:00:45:00:01", link("Ethernet69/1"))
    vif = neutron.vif(NETWORK)
    api.provision("drift-flat", "manage", "provide")
    attach(api, "drift-flat", port, vif)
    assert api.provision("drift-flat", "active")["provision_state"] == "active"
    assert neutron.port(vif["id"])["binding:host_id"] == node["uuid"]
    assert audit(api, "drift-flat") == {}

    put_port(neutron, vif["id"], **{"binding:host_id": "compute-7"})
    finding = audit_now(api, "?node=drift-flat")["findings"][0]
    assert finding["kind"] == "binding_mismatch"
    assert finding["expected"] == {
        "binding:host_id": node["uuid"],
        "binding:vnic_type": "baremetal",
    }
    assert api.http.post(AUDIT + "/repair?node=drift-flat", json={}).status_code == 200
    rebound = neutron.port(vif["id"])
    assert rebound["binding:host_id"] == node["uuid"]
    assert audit(api, "drift-flat") == {}


def test_a_node_not_deployed_keeps_the_seed_of_its_vifs(
    api: Metalwire, neutron: Neutron, neutron_server: NeutronServer
) -> None:
    """An attach to a node that is not deployed seeds the VIF's binding (node UUID,
    ``baremetal``, empty profile: a routed network allocates the port's address from it).
    The seed is no drift, nor is no binding (what a neutron deploy leaves while the node is
    on the provisioning network; the address stays); a binding to another host, or to the
    node with a profile or another vnic type, is, and its repair puts the seed back rather
    than unbinding."""
    node, ports = node_with_ports(api, "drift-seed", 0x4C, 4)
    api.provision("drift-seed", "manage", "provide")
    seeded, linked, elsewhere, profiled = (neutron.vif(NETWORK) for _ in range(4))
    for port, vif in zip(ports, (seeded, linked, elsewhere, profiled), strict=True):
        attach(api, "drift-seed", port, vif)
    seed = {"binding:host_id": node["uuid"], "binding:vnic_type": "baremetal"}
    assert {**seed, "binding:profile": {}}.items() <= neutron.port(seeded["id"]).items()
    assert audit(api, "drift-seed") == {}, "the seed of an attach is no drift"

    links = {"local_link_information": [link("Ethernet76/2")]}
    put_port(neutron, linked["id"], **{"binding:profile": links})
    assert neutron.wait_status(linked["id"], "ACTIVE")["binding:vif_type"] == "other"
    put_port(neutron, elsewhere["id"], **{"binding:host_id": "compute-3"})
    put_port(neutron, profiled["id"], **{"binding:profile": {"physical_network": "physnet1"}})
    put_port(neutron, seeded["id"], **{"binding:host_id": "", "binding:profile": {}})

    findings = {f["vif_id"]: f for f in audit_now(api, "?node=drift-seed")["findings"]}
    assert {vif: f["kind"] for vif, f in findings.items()} == {
        linked["id"]: "bound_while_not_deployed",
        elsewhere["id"]: "bound_while_not_deployed",
        profiled["id"]: "bound_while_not_deployed",
    }
    assert {f["repair"] for f in findings.values()} == {"seed again"}
    assert findings[elsewhere["id"]]["expected"] == {**seed, "binding:profile": {}}
    assert findings[elsewhere["id"]]["actual"]["binding:host_id"] == "compute-3"
    assert "physical_network" in findings[profiled["id"]]["message"]

    response = api.http.post(AUDIT + "/repair?node=drift-seed", json={})
    assert response.status_code == 200, response.text
    assert all(r["repaired"] for r in response.json()["repairs"]), response.json()
    for vif in (linked, elsewhere, profiled):
        port = neutron.port(vif["id"])
        assert {**seed, "binding:profile": {}}.items() <= port.items(), port
    assert "delete port Ethernet76/2" in neutron_server.fake_switch_commands()
    assert audit(api, "drift-seed") == {}
    events = [e["event"] for e in history(api, "drift-seed") if e["event_type"] == "audit"]
    assert len(events) == 3 and all("seeded the binding" in e for e in events), events


def test_a_rescued_node_keeps_its_tenant_binding(api: Metalwire, neutron: Neutron) -> None:
    """Rescue (and unrescue) touch no network: a rescued node's VIFs stay bound as on an
    active node. The audit expects that binding, and a repair of a drifted one binds it
    again instead of taking the node off its tenant network."""
    _node, (port,) = node_with_ports(api, "drift-rescue", 0x4D, 1)
    vif = neutron.vif(NETWORK)
    api.provision("drift-rescue", "manage", "provide")
    attach(api, "drift-rescue", port, vif)
    api.provision("drift-rescue", "active")
    response = api.http.put(
        "/v1/nodes/drift-rescue/states/provision",
        json={"target": "rescue", "rescue_password": "s3cret"},
    )
    assert response.status_code == 202, response.text
    assert wait_for(lambda: api.get("/v1/nodes/drift-rescue")["provision_state"] == "rescue")
    bound = neutron.wait_status(vif["id"], "ACTIVE")
    assert bound["binding:profile"]["local_link_information"] == [link("Ethernet77/1")]
    assert audit(api, "drift-rescue") == {}, "a rescued node's VIF is bound, as deployed"

    put_port(neutron, vif["id"], **{"binding:host_id": "", "binding:profile": {}})
    assert audit(api, "drift-rescue") == {vif["id"]: "binding_mismatch"}
    assert api.http.post(AUDIT + "/repair?node=drift-rescue", json={}).status_code == 200
    rebound = neutron.wait_status(vif["id"], "ACTIVE")
    assert rebound["binding:profile"]["local_link_information"] == [link("Ethernet77/1")]
    assert audit(api, "drift-rescue") == {}


def test_a_bond_is_expected_with_every_member_link(api: Metalwire, neutron: Neutron) -> None:
    node = api.node("drift-bond")
    bond = api.portgroup(node, name="bond-drift", address="52:54:00:46:00:10", mode="802.3ad")
    for n in (1, 2):
        api.port(
            node,
            f"52:54:00:46:00:0{n}",
            link(f"Ethernet70/{n}"),
            pxe_enabled=False,
            physical_network="physnet1",
            portgroup_uuid=bond["uuid"],
        )
    api.provision("drift-bond", "manage", "provide")
    vif = neutron.vif(NETWORK)
    response = api.attach("drift-bond", vif["id"], portgroup_uuid=bond["uuid"])
    assert response.status_code == 204, response.text
    api.provision("drift-bond", "active")
    bound = neutron.wait_status(vif["id"], "ACTIVE")
    assert audit(api, "drift-bond") == {}

    profile = dict(bound["binding:profile"])
    profile["local_link_information"] = [link("Ethernet70/1")]
    put_port(neutron, vif["id"], **{"binding:profile": profile})
    (finding,) = audit_now(api, "?node=drift-bond")["findings"]
    assert finding["kind"] == "binding_mismatch" and finding["target_uuid"] == bond["uuid"]
    assert finding["expected"]["local_link_information"] == [
        link("Ethernet70/1"),
        link("Ethernet70/2"),
    ]
    assert api.http.post(AUDIT + "/repair?node=drift-bond", json={}).status_code == 200
    assert neutron.wait_status(vif["id"], "ACTIVE")["binding:profile"] == bound["binding:profile"]
    assert audit(api, "drift-bond") == {}


def connections_to_every_worker(server: MetalwireServer) -> list[http.client.HTTPConnection]:
    """Open connections to the server (a few at once, so that each worker takes some) until
    every worker holds one of them. A connection is a worker's once that worker accepts it,
    which a loaded machine can delay: each check waits for that, up to 30 s in all."""
    assert server.process is not None
    workers = workers_of(server.process.pid)
    opened: list[http.client.HTTPConnection] = []

    def every_worker_holds_one() -> bool:
        if len(opened) < 40:
            batch = [
                http.client.HTTPConnection("127.0.0.1", server.port, timeout=30) for _ in range(4)
            ]
            threads = [threading.Thread(target=c.connect) for c in batch]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            opened.extend(batch)
        ports = [c.sock.getsockname()[1] for c in opened if c.sock is not None]
        return set(serving_pids(server.port, ports, workers).values()) == set(workers)

    if wait_for(every_worker_holds_one, timeout=30, interval=0.2):
        return opened
    for connection in opened:
        connection.close()
    raise AssertionError(f"connections did not reach every worker of {workers}")


def test_the_workers_of_one_server_share_the_periodic_audit(
    neutron: Neutron, neutron_endpoint: str, tmp_path: Path
) -> None:
    env = {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
        "METALWIRE_CONDUCTOR_AUDIT_INTERVAL": "1",
        "METALWIRE_API_API_WORKERS": "2",
    }
    with MetalwireServer(tmp_path / "data", env=env) as server:
        api = Metalwire(server.url)
        try:
            _node, (port,) = node_with_ports(api, "drift-workers", 0x4B, 1)
            vif = neutron.vif(NETWORK)
            attach(api, "drift-workers", port, vif)
        finally:
            api.close()
        put_port(neutron, vif["id"], mac_address="52:54:00:4b:00:99")
        connections = connections_to_every_worker(server)

        def kind_seen(connection: http.client.HTTPConnection) -> str | None:
            connection.request("GET", AUDIT)
            findings = json.loads(connection.getresponse().read())["findings"]
            return {f["vif_id"]: f["kind"] for f in findings}.get(vif["id"])

        try:
            # Every worker answers with the findings of the audit the first one runs.
            assert wait_for(
                lambda: all(kind_seen(c) == "mac_mismatch" for c in connections), timeout=30
            )
            assert server.log().count("The drift audit runs every") == 1
        finally:
            for connection in connections:
                connection.close()
