"""Trait-based networking with ``neutron`` against the real Neutron: a dynamic portgroup's
VIF is bound through every member's link, a binding Neutron refuses leaves no group and no
port moved, and the drift audit reports a dynamic portgroup whose VIF is gone. Metalwire's
own database is SQLite, then PostgreSQL (METALWIRE_TEST_DATABASES narrows it)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest

from metalwire.db.engine import Database
from tests.conftest import DATABASES
from tests.neutron.clients import (
    SW2,
    UNKNOWN_SWITCH,
    Json,
    Metalwire,
    Neutron,
    assert_unbound,
    link,
    neutron_with,
)
from tests.support.helpers import fault
from tests.support.server import MetalwireServer

NETWORK = "tbn-p1"
RULES = dedent(
    """\
    CUSTOM_BOND:
      actions:
        - action: group_and_attach_ports
          filter: port.category == 'network'
          min_count: 2
    """
)


@pytest.fixture(scope="module")
def neutron(neutron_endpoint: str) -> Iterator[Neutron]:
    with neutron_with(neutron_endpoint, {NETWORK: "physnet1"}) as api:
        yield api


@pytest.fixture(
    scope="module",
    params=[
        pytest.param(name, marks=[pytest.mark.postgresql] if name == "postgresql" else [])
        for name in ("sqlite", "postgresql")
        if name in DATABASES
    ],
)
def database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Metalwire's database: a SQLite file, or a new database on the session's PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('tbn-db') / 'metalwire.db'}"
    postgres = request.getfixturevalue("postgres_server")
    return str(postgres.create_database(f"tbn_neutron_{uuid.uuid4().hex[:8]}"))


def server_env(neutron_endpoint: str, rules: Path) -> dict[str, str]:
    rules.write_text(RULES)
    return {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        "METALWIRE_CONDUCTOR_AUTOMATED_CLEAN": "false",
        "METALWIRE_CONDUCTOR_ENABLE_TRAIT_BASED_NETWORKING": "true",
        "METALWIRE_CONDUCTOR_TRAIT_BASED_NETWORKING_CONFIG_FILE": str(rules),
    }


@pytest.fixture(scope="module")
def server(
    neutron: Neutron,
    neutron_endpoint: str,
    database_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[MetalwireServer]:
    env = server_env(neutron_endpoint, tmp_path_factory.mktemp("tbn-rules") / "tbn.yaml")
    data_dir = tmp_path_factory.mktemp("tbn-neutron")
    with MetalwireServer(data_dir, database=database_url, env=env) as running:
        yield running
    assert "Traceback" not in running.log(), running.log()


@pytest.fixture(scope="module")
def api(server: MetalwireServer) -> Iterator[Metalwire]:
    client = Metalwire(server.url)
    client.http.headers["X-OpenStack-Ironic-API-Version"] = "1.107"
    yield client
    client.close()


@pytest.fixture(scope="module")
def db(server: MetalwireServer, database_url: str) -> Iterator[Database]:
    database = Database(database_url)
    yield database
    database.dispose()


def active_node(
    api: Metalwire,
    db: Database,
    neutron: Neutron,
    name: str,
    links: list[Json],
    prefix: int,
    trait: str = "CUSTOM_BOND",
) -> Json:
    """An active node with the trait (and asking for it), one groupable port per link, and
    no VIF (its deploy's VIF was on the first port)."""
    node = api.node(name, instance_info={"traits": [trait]})
    # A deploy asks for traits the node has (Nova's flavor asks only for those).
    traits = api.http.put(f"/v1/nodes/{name}/traits", json={"traits": [trait]})
    assert traits.status_code == 204, traits.text
    first = None
    for n, local_link in enumerate(links):
        port = api.port(
            node,
            f"52:54:00:{prefix:02x}:00:{n:02x}",
            local_link,
            category="network",
            physical_network="physnet1",
            pxe_enabled=n == 0,
        )
        with db.writing() as work:
            work.ports.update(port["uuid"], {"available_for_dynamic_portgroup": True})
        first = first or port
    assert first is not None
    api.provision(name, "manage", "provide")
    api.deploy_with(name, neutron.vif(NETWORK)["id"], port_uuid=first["uuid"])
    return node


def groups(api: Metalwire, name: str) -> list[Json]:
    return list(api.get(f"/v1/nodes/{name}/portgroups/detail")["portgroups"])


def memberships(api: Metalwire, name: str) -> set[Any]:
    return {p["portgroup_uuid"] for p in api.get(f"/v1/nodes/{name}/ports/detail")["ports"]}


def test_the_dynamic_portgroup_binds_through_every_member(
    api: Metalwire, db: Database, neutron: Neutron
) -> None:
    links = [link("Ethernet40/1"), link("Ethernet40/2", SW2.name, SW2.mac_address)]
    node = active_node(api, db, neutron, "tbn-bind", links, 0x81)
    vif = neutron.vif(NETWORK)

    response = api.attach("tbn-bind", vif["id"])
    assert response.status_code == 204, response.text

    (group,) = groups(api, "tbn-bind")
    assert group["name"].startswith("tbn_dyn_portgroup_")
    assert group["internal_info"] == {"tenant_vif_port_id": vif["id"]}
    port = neutron.wait_status(vif["id"], "ACTIVE")
    assert port["binding:host_id"] == node["uuid"]
    profile = port["binding:profile"]
    assert sorted(profile["local_link_information"], key=str) == sorted(links, key=str)
    assert profile["local_group_information"]["id"] == group["uuid"]
    assert profile["local_group_information"]["name"] == group["name"]
    assert profile["physical_network"] == "physnet1"

    assert api.detach("tbn-bind", vif["id"]).status_code == 204
    assert groups(api, "tbn-bind") == []
    assert memberships(api, "tbn-bind") == {None}
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_a_binding_neutron_refuses_leaves_no_group_and_no_port_moved(
    api: Metalwire, db: Database, neutron: Neutron
) -> None:
    active_node(api, db, neutron, "tbn-refused", [link("Ethernet41/1"), UNKNOWN_SWITCH], 0x82)
    vif = neutron.vif(NETWORK)

    response = api.attach("tbn-refused", vif["id"])

    assert response.status_code == 502, response.text
    message = fault(response)
    assert "binding:vif_type is binding_failed" in message
    assert "Everything already done was undone." in message
    assert groups(api, "tbn-refused") == []
    assert memberships(api, "tbn-refused") == {None}
    assert api.vifs("tbn-refused") == []
    assert_unbound(neutron.port(vif["id"]), vif["mac_address"])


def test_the_audit_finds_a_dynamic_portgroup_whose_vif_is_gone_and_repairs_it(
    api: Metalwire, db: Database, neutron: Neutron
) -> None:
    active_node(api, db, neutron, "tbn-gone", [link("Ethernet42/1"), link("Ethernet42/2")], 0x83)
    vif = neutron.vif(NETWORK)
    assert api.attach("tbn-gone", vif["id"]).status_code == 204
    (group,) = groups(api, "tbn-gone")
    assert neutron.http.delete(f"/ports/{vif['id']}").status_code == 204

    report = api.http.post("/v1/metalwire/audit?node=tbn-gone", json={})
    assert report.status_code == 200, report.text
    (finding,) = report.json()["findings"]
    assert finding["kind"] == "dynamic_portgroup_vif_gone"
    assert (finding["vif_id"], finding["target_uuid"]) == (vif["id"], group["uuid"])
    assert finding["repairable"] is True

    repaired = api.http.post("/v1/metalwire/audit/repair?node=tbn-gone", json={})
    assert repaired.status_code == 200, repaired.text
    assert groups(api, "tbn-gone") == []
    assert memberships(api, "tbn-gone") == {None}
    assert api.vifs("tbn-gone") == []
    again = api.http.post("/v1/metalwire/audit?node=tbn-gone", json={})
    assert again.json()["findings"] == [], again.text


def test_without_raising_a_vif_no_rule_places_is_bound_where_it_would_be_without_rules(
    neutron: Neutron, neutron_endpoint: str, tmp_path: Path
) -> None:
    """Ironic 39 answers 204 and binds nothing; the VIF is recorded and bound on the port
    the ordinary choice picks (the PXE port)."""
    env = {
        **server_env(neutron_endpoint, tmp_path / "tbn.yaml"),
        "METALWIRE_CONDUCTOR_TRAIT_BASED_NETWORKING_RAISE_WHEN_NO_MATCH": "false",
        "METALWIRE_CONDUCTOR_TRAIT_BASED_NETWORKING_ENABLE_DEFAULT_TRAIT": "false",
    }
    database = f"sqlite:///{tmp_path / 'metalwire.db'}"
    with MetalwireServer(tmp_path / "data", database=database, env=env) as running:
        api = Metalwire(running.url)
        api.http.headers["X-OpenStack-Ironic-API-Version"] = "1.107"
        db = Database(database)
        try:
            links = [link("Ethernet43/1"), link("Ethernet43/2")]
            node = active_node(api, db, neutron, "tbn-none", links, 0x84, "CUSTOM_NO_RULES")
            vif = neutron.vif(NETWORK)

            response = api.attach("tbn-none", vif["id"])

            assert response.status_code == 204, response.text
            assert api.vifs("tbn-none") == [vif["id"]]
            assert groups(api, "tbn-none") == []
            port = neutron.wait_status(vif["id"], "ACTIVE")
            assert port["binding:host_id"] == node["uuid"]
            assert port["binding:profile"]["local_link_information"] == [links[0]]
            assert api.detach("tbn-none", vif["id"]).status_code == 204
            assert_unbound(neutron.port(vif["id"]), vif["mac_address"])
        finally:
            db.dispose()
            api.close()
    assert "No trait-based networking rule places VIF" in running.log()
    assert "Traceback" not in running.log(), running.log()
