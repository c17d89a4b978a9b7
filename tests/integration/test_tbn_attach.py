"""Trait-based networking through a real ``metalwire serve``: attach and detach by the node's
traits, on SQLite, PostgreSQL and MariaDB, with ``baremetal node vif attach`` where the CLI
can say it.
Each port says ``available_for_dynamic_portgroup`` (API 1.111) when it is created: Ironic's
default is true, so the ports a grouping must leave alone say false.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent
from typing import Any

import httpx
import pytest

from metalwire.db.engine import Database
from metalwire.db.models import Port, Portgroup
from tests.cli.conftest import clean_env, run_metalwire
from tests.compat.clients import Cli
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.111"}
RULES = dedent(
    """\
    CUSTOM_STORAGE:
      order: 1
      actions:
        - action: attach_port
          filter: port.category == 'storage' && network.tags == 'storage'
    CUSTOM_BOND:
      order: 2
      actions:
        - action: attach_portgroup
          filter: port.physical_network == 'physnet1'
    CUSTOM_DYNAMIC:
      actions:
        - action: group_and_attach_ports
          filter: port.category == 'network'
          min_count: 2
          max_count: 2
    CUSTOM_BONDED:
      actions:
        - action: bond_ports
          filter: port.category == 'network' && network.name =~ 'tenant'
          min_count: 2
    """
)


@dataclass
class Deployment:
    servers: list[MetalwireServer]
    db: Database
    http: httpx.Client
    cli: Cli

    def node(self, name: str, traits: list[str]) -> str:
        resp = self.http.post("/v1/nodes", json={"driver": "fake-hardware", "name": name})
        assert resp.status_code == 201, resp.text
        if traits:
            patch = [{"op": "add", "path": "/instance_info", "value": {"traits": traits}}]
            resp = self.http.patch(f"/v1/nodes/{name}", json=patch)
            assert resp.status_code == 200, resp.text
        return str(resp.json()["uuid"])

    def port(self, node: str, mac: str, *, dynamic: bool = False, **fields: Any) -> str:
        body = {"node_uuid": node, "address": mac, "available_for_dynamic_portgroup": dynamic}
        resp = self.http.post("/v1/ports", json={**body, **fields})
        assert resp.status_code == 201, resp.text
        assert resp.json()["available_for_dynamic_portgroup"] is dynamic
        return str(resp.json()["uuid"])

    def groupable(self, node: str, macs: str, numbers: range | tuple[int, ...]) -> list[str]:
        """Ports ``macs`` + each number a grouping action may take (category network, on
        physnet1, available_for_dynamic_portgroup)."""
        return [
            self.port(node, f"{macs}{n}", dynamic=True, category="network",
                      physical_network="physnet1")
            for n in numbers
        ]  # fmt: skip

    def portgroup(self, node: str, name: str, **fields: Any) -> str:
        resp = self.http.post("/v1/portgroups", json={"node_uuid": node, "name": name, **fields})
        assert resp.status_code == 201, resp.text
        return str(resp.json()["uuid"])

    def attach(self, node: str, body: dict[str, Any], server: int = 0) -> httpx.Response:
        url = self.servers[server].url + f"/v1/nodes/{node}/vifs"
        return httpx.post(url, json=body, headers=HEADERS, timeout=60)

    def vif_of(self, kind: str, uuid: str) -> str | None:
        resp = self.http.get(f"/v1/{kind}s/{uuid}")
        assert resp.status_code == 200, resp.text
        return resp.json()["internal_info"].get("tenant_vif_port_id")

    def members(self, node: str) -> dict[str, str | None]:
        ports = self.http.get(f"/v1/nodes/{node}/ports/detail").json()["ports"]
        return {p["uuid"]: p["portgroup_uuid"] for p in ports}

    def portgroups(self, node: str) -> list[Portgroup]:
        with self.db.reading() as work:
            found = work.nodes.find(node)
            assert found is not None
            return work.portgroups.for_node(found.id)

    def ports(self, node: str) -> list[Port]:
        with self.db.reading() as work:
            found = work.nodes.find(node)
            assert found is not None
            return work.ports.for_node(found.id)


def _database_url(database: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if database == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    request.getfixturevalue("config")  # empties the shared test database
    return str(request.getfixturevalue(f"{database}_url"))


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One HOME for the module's CLI runs: they then fork from one process that has imported
    the client (tests/support/preforked.py), instead of one per test."""
    home = tmp_path_factory.mktemp("cli-home")
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), "LANG": "C.UTF-8"}


@pytest.fixture
def deployment(
    database: str, tmp_path: Path, cli_env: dict[str, str], request: pytest.FixtureRequest
) -> Iterator[Deployment]:
    count = getattr(request, "param", 1)
    with _deployed(database, tmp_path, cli_env, request, count) as deployed:
        yield deployed


@pytest.fixture
def lenient(
    database: str, tmp_path: Path, cli_env: dict[str, str], request: pytest.FixtureRequest
) -> Iterator[Deployment]:
    """Neither an error nor the default trait when no rule places a VIF."""
    options = {
        "METALWIRE_CONDUCTOR_TRAIT_BASED_NETWORKING_RAISE_WHEN_NO_MATCH": "false",
        "METALWIRE_CONDUCTOR_TRAIT_BASED_NETWORKING_ENABLE_DEFAULT_TRAIT": "false",
    }
    with _deployed(database, tmp_path, cli_env, request, 1, options) as deployed:
        yield deployed


@contextmanager
def _deployed(
    database: str,
    tmp_path: Path,
    cli_env: dict[str, str],
    request: pytest.FixtureRequest,
    count: int,
    options: dict[str, str] | None = None,
) -> Iterator[Deployment]:
    rules = tmp_path / "tbn.yaml"
    rules.write_text(RULES)
    url = _database_url(database, tmp_path, request)
    env = {
        "METALWIRE_CONDUCTOR_ENABLE_TRAIT_BASED_NETWORKING": "true",
        "METALWIRE_CONDUCTOR_TRAIT_BASED_NETWORKING_CONFIG_FILE": str(rules),
        **(options or {}),
    }
    servers = [MetalwireServer(tmp_path / f"s{i}", database=url, env=env) for i in range(count)]
    for server in servers:
        server.start()
    db = Database(url)
    try:
        with httpx.Client(base_url=servers[0].url, headers=HEADERS, timeout=60) as http:
            cli = Cli("baremetal", servers[0].url, cli_env, "1.107")
            yield Deployment(servers, db, http, cli)
    finally:
        db.dispose()
        for server in servers:
            server.stop()
    for server in servers:
        assert "Traceback" not in server.log(), server.log()


def test_the_cli_attaches_by_trait_to_the_matching_port_and_skips_attached_ones(
    deployment: Deployment,
) -> None:
    d = deployment
    node = d.node("tbn-storage", ["CUSTOM_STORAGE"])
    other = d.port(node, "52:54:00:71:00:01", category="network")
    storage = [d.port(node, f"52:54:00:71:00:1{n}", category="storage") for n in (1, 2)]

    d.cli.ok("node", "vif", "attach", "tbn-storage", "vif-s1", "--vif-info", "tags=storage")
    d.cli.ok("node", "vif", "attach", "tbn-storage", "vif-s2", "--vif-info", "tags=storage,x")

    # Newest first, and the attached one is skipped the second time.
    assert d.vif_of("port", storage[1]) == "vif-s1"
    assert d.vif_of("port", storage[0]) == "vif-s2"
    assert d.vif_of("port", other) is None

    # A third storage VIF: no free storage port; the 400 names the traits and each refusal.
    failed = d.cli.run(
        "node", "vif", "attach", "tbn-storage", "vif-s3", "--vif-info", "tags=storage"
    )
    assert failed.returncode != 0
    assert "CUSTOM_STORAGE" in failed.stderr, failed.describe()
    resp = d.attach(node, {"id": "vif-s3", "tags": ["storage"]})
    assert resp.status_code == 400, resp.text
    message = resp.json()["error_message"]
    assert "instance_info['traits']): CUSTOM_STORAGE" in message
    assert f"port {other} (52:54:00:71:00:01) does not match" in message
    assert "busy with VIF vif-s1" in message
    assert d.vif_of("port", other) is None

    d.cli.ok("node", "vif", "detach", "tbn-storage", "vif-s1")
    assert d.vif_of("port", storage[1]) is None


def test_attach_portgroup_and_the_default_trait(deployment: Deployment) -> None:
    d = deployment
    node = d.node("tbn-bond", ["CUSTOM_BOND"])
    loose = d.port(node, "52:54:00:72:00:01", physical_network="physnet1")
    bond = d.portgroup(node, "tbn-bond0", address="52:54:00:72:00:10", physical_network="physnet1")
    d.port(node, "52:54:00:72:00:11", portgroup_uuid=bond, physical_network="physnet1")

    assert d.attach(node, {"id": "vif-b1"}).status_code == 204
    assert d.vif_of("portgroup", bond) == "vif-b1"
    assert d.vif_of("port", loose) is None

    # No trait of the node has rules: the built-in default takes the first free target.
    plain = d.node("tbn-plain", [])
    port = d.port(plain, "52:54:00:72:01:01")
    d.cli.ok("node", "vif", "attach", "tbn-plain", "vif-d1")
    assert d.vif_of("port", port) == "vif-d1"


@pytest.mark.parametrize("trait", ["CUSTOM_DYNAMIC", "CUSTOM_BONDED"])
def test_grouping_builds_a_dynamic_portgroup_and_detach_removes_it(
    deployment: Deployment, trait: str
) -> None:
    d = deployment
    node = d.node("tbn-dyn", [trait])
    picks = d.groupable(node, "52:54:00:73:00:0", (1, 2, 3))
    unflagged = d.port(node, "52:54:00:73:00:04", category="network", physical_network="physnet1")

    resp = d.attach(node, {"id": "vif-g1", "name": "tenant-a"})
    assert resp.status_code == 204, resp.text

    (group,) = d.portgroups(node)
    assert group.dynamic_portgroup is True
    assert group.name is not None and group.name.startswith("tbn_dyn_portgroup_")
    assert (group.address, group.physical_network) == (None, "physnet1")
    assert d.vif_of("portgroup", group.uuid) == "vif-g1"
    wanted = 2 if trait == "CUSTOM_DYNAMIC" else 3  # max_count 2, or every match
    members = d.members(node)
    assert sorted(picks[::-1][:wanted]) == sorted(u for u, g in members.items() if g == group.uuid)
    assert members[unflagged] is None

    assert d.http.delete(f"/v1/nodes/{node}/vifs/vif-g1").status_code == 204
    assert d.portgroups(node) == []
    assert set(d.members(node).values()) == {None}


@pytest.mark.parametrize("deployment", [2], indirect=True)
def test_two_processes_racing_grouping_attaches_never_share_a_port(
    deployment: Deployment,
) -> None:
    d = deployment
    node = d.node("tbn-race", ["CUSTOM_DYNAMIC"])
    d.groupable(node, "52:54:00:74:00:0", range(5))
    barrier = threading.Barrier(6)

    def attach(i: int) -> int:
        barrier.wait()
        return d.attach(node, {"id": f"vif-r{i}"}, server=i % 2).status_code

    with ThreadPoolExecutor(6) as pool:
        statuses = sorted(pool.map(attach, range(6)))
    # Five ports, two per group: two groups, the other four attaches find too few ports.
    assert statuses == [204, 204, 400, 400, 400, 400], statuses
    groups = d.portgroups(node)
    assert len(groups) == 2
    members = [p.portgroup_id for p in d.ports(node) if p.portgroup_id is not None]
    assert sorted(members) == sorted([g.id for g in groups] * 2)
    vifs = d.http.get(f"/v1/nodes/{node}/vifs").json()["vifs"]
    assert len(vifs) == 2


def test_the_dry_run_shows_the_plan_and_the_dynamic_portgroup_it_would_build(
    deployment: Deployment,
) -> None:
    d = deployment
    node = d.node("tbn-dry", ["CUSTOM_STORAGE", "CUSTOM_DYNAMIC"])
    picks = d.groupable(node, "52:54:00:75:00:0", (1, 2))
    plain = d.port(node, "52:54:00:75:00:03", category="network")
    dry = {**HEADERS, "X-Metalwire-Dry-Run": "true"}
    url = f"{d.servers[0].url}/v1/nodes/{node}/vifs"

    answer = httpx.post(url, json={"id": "vif-dry"}, headers=dry, timeout=60).json()

    plan = answer["trait_based_networking"]
    assert plan["trait"] == "CUSTOM_DYNAMIC"
    assert [t["trait"] for t in plan["tried"]] == ["CUSTOM_STORAGE", "CUSTOM_DYNAMIC"]
    storage = plan["tried"][0]["actions"][0]
    assert storage["applies"] is False and "0 free port(s) matched" in storage["problem"]
    assert {r["uuid"] for r in storage["refused"]} == {*picks, plain}
    grouping = plan["tried"][1]["actions"][0]
    assert grouping["carried_out"] is True
    assert sorted(t["uuid"] for t in grouping["targets"]) == sorted(picks)
    assert grouping["refused"] == [
        {"uuid": plain, "kind": "port", "reason": "is not available_for_dynamic_portgroup"}
    ]
    target = answer["target"]
    assert (target["type"], target["uuid"], target["physical_network"]) == (
        "dynamic_portgroup",
        None,
        "physnet1",
    )
    assert sorted(target["ports"]) == sorted(picks)
    assert answer["error"] is None
    # Nothing was built or attached.
    assert d.portgroups(node) == [] and d.http.get(f"/v1/nodes/{node}/vifs").json()["vifs"] == []

    # No match: a 200 carrying the 400 the attach would answer, and the plan that failed.
    nothing = httpx.post(
        url.replace(node, d.node("tbn-dry-none", ["CUSTOM_STORAGE"])),
        json={"id": "vif-dry2", "tags": ["storage"]},
        headers=dry,
        timeout=60,
    ).json()
    assert nothing["target"] is None
    assert nothing["error"]["code"] == 400 and nothing["error"]["type"] == "NoTraitMatches"
    assert nothing["trait_based_networking"]["trait"] is None

    # The metalwire command shows the same plan.
    done = run_metalwire(
        "node", "vif", "attach", "tbn-dry", "vif-dry", "--dry-run",
        env=clean_env(METALWIRE_URL=d.servers[0].url),
    )  # fmt: skip
    assert done.code == 0, done.stdout + done.stderr
    assert "dynamic_portgroup" in done.stdout
    assert "CUSTOM_DYNAMIC: group_and_attach_ports" in done.stdout
    assert "(carried out)" in done.stdout


def test_an_attached_dynamic_portgroup_and_its_members_stay_as_the_vif_was_bound(
    deployment: Deployment,
) -> None:
    d = deployment
    node = d.node("tbn-guard", ["CUSTOM_DYNAMIC"])
    picks = d.groupable(node, "52:54:00:76:00:0", (1, 2))
    spare = d.port(node, "52:54:00:76:00:03", physical_network="physnet1")
    other = d.node("tbn-guard-other", [])
    assert d.attach(node, {"id": "vif-guard"}).status_code == 204
    (group,) = d.portgroups(node)
    held = "is a dynamic portgroup built for VIF vif-guard"

    def refused(resp: httpx.Response, status: int) -> None:
        assert resp.status_code == status, resp.text
        message = resp.json()["error_message"]
        assert held in message and f"portgroup {group.uuid}" in message, resp.text

    # Deleting the group: 400 as Ironic answers for a portgroup with members, naming the VIF.
    failed = d.cli.run("port", "group", "delete", group.uuid)
    assert failed.returncode != 0 and held in failed.stderr, failed.describe()
    refused(d.http.delete(f"/v1/portgroups/{group.uuid}"), 400)
    # Changing what the VIF was bound with: 409; its labels may change.
    failed = d.cli.run("port", "group", "set", group.uuid, "--mode", "balance-rr")
    assert failed.returncode != 0 and held in failed.stderr, failed.describe()
    bound = {
        "/physical_network": "physnet2",
        "/node_uuid": other,
        "/standalone_ports_supported": False,
        "/address": "52:54:00:76:00:10",
    }
    for path, value in bound.items():
        patch = [{"op": "replace", "path": path, "value": value}]
        refused(d.http.patch(f"/v1/portgroups/{group.uuid}", json=patch), 409)
    d.cli.ok("port", "group", "set", group.uuid, "--name", "renamed-bond", "--extra", "k=v")

    # Its members neither leave, move, nor go; no port joins it.
    failed = d.cli.run("port", "unset", picks[0], "--port-group")
    assert failed.returncode != 0 and held in failed.stderr, failed.describe()
    failed = d.cli.run("port", "delete", picks[1])
    assert failed.returncode != 0 and held in failed.stderr, failed.describe()
    move = [{"op": "replace", "path": "/node_uuid", "value": other},
            {"op": "remove", "path": "/portgroup_uuid"}]  # fmt: skip
    refused(d.http.patch(f"/v1/ports/{picks[0]}", json=move), 409)
    join = [{"op": "replace", "path": "/portgroup_uuid", "value": group.uuid}]
    refused(d.http.patch(f"/v1/ports/{spare}", json=join), 409)
    body = {"node_uuid": node, "address": "52:54:00:76:00:04", "portgroup_uuid": group.uuid}
    refused(d.http.post("/v1/ports", json=body), 409)
    d.cli.ok("port", "set", picks[0], "--extra", "note=fine")  # a member's own labels may change

    (still,) = d.portgroups(node)
    assert (still.name, still.mode, still.physical_network) == (
        "renamed-bond",
        group.mode,
        "physnet1",
    )
    members = d.members(node)
    assert sorted(u for u, g in members.items() if g == group.uuid) == sorted(picks)
    assert members[spare] is None and d.vif_of("portgroup", group.uuid) == "vif-guard"

    # Without its VIF the group is gone, and the ports are the operator's again.
    d.cli.ok("node", "vif", "detach", "tbn-guard", "vif-guard")
    assert d.portgroups(node) == []
    d.cli.ok("port", "delete", picks[1])


def test_a_port_of_a_busy_or_closed_portgroup_never_takes_a_vif_of_its_own(
    deployment: Deployment,
) -> None:
    """A member of a portgroup carrying a VIF (a dynamic bond too) or not supporting
    standalone ports is no candidate, nor is a portgroup one of whose members carries one."""
    d = deployment
    # The built-in default: the closed bond takes the first VIF; its members are no ports of
    # their own for the second.
    node = d.node("tbn-closed", [])
    closed = d.portgroup(node, "tbn-closed0", standalone_ports_supported=False)
    links = [
        d.port(node, f"52:54:00:77:00:0{n}", portgroup_uuid=closed, pxe_enabled=False)
        for n in (1, 2)
    ]
    assert d.attach(node, {"id": "vif-c1"}).status_code == 204
    assert d.vif_of("portgroup", closed) == "vif-c1"
    second = d.attach(node, {"id": "vif-c2"})
    assert second.status_code == 400, second.text
    assert f"belongs to portgroup {closed}, which is busy with VIF vif-c1" in second.text
    assert [d.vif_of("port", link) for link in links] == [None, None]

    # A dynamic bond's members stay its VIF's.
    bonded = d.node("tbn-bonded", ["CUSTOM_DYNAMIC"])
    picks = d.groupable(bonded, "52:54:00:77:01:0", (1, 2))
    assert d.attach(bonded, {"id": "vif-d1"}).status_code == 204
    (group,) = d.portgroups(bonded)
    patch = [{"op": "add", "path": "/instance_info", "value": {"traits": []}}]
    assert d.http.patch(f"/v1/nodes/{bonded}", json=patch).status_code == 200
    refused = d.attach(bonded, {"id": "vif-d2"})
    assert refused.status_code == 400, refused.text
    assert f"belongs to portgroup {group.uuid}, which is busy with VIF vif-d1" in refused.text
    assert [d.vif_of("port", pick) for pick in picks] == [None, None]

    # A member of an open portgroup may take a VIF by a rule; the portgroup then cannot.
    shared = d.node("tbn-shared", ["CUSTOM_STORAGE"])
    bond = d.portgroup(shared, "tbn-shared0", physical_network="physnet1")
    member = d.port(
        shared, "52:54:00:77:02:01", portgroup_uuid=bond, category="storage",
        physical_network="physnet1",
    )  # fmt: skip
    assert d.attach(shared, {"id": "vif-s1", "tags": ["storage"]}).status_code == 204
    assert d.vif_of("port", member) == "vif-s1"
    patch = [{"op": "add", "path": "/instance_info", "value": {"traits": ["CUSTOM_BOND"]}}]
    assert d.http.patch(f"/v1/nodes/{shared}", json=patch).status_code == 200
    taken = d.attach(shared, {"id": "vif-s2"})
    assert taken.status_code == 400, taken.text
    assert f"its member port {member} carries VIF vif-s1" in taken.text
    assert d.vif_of("portgroup", bond) is None


def test_a_portgroup_without_a_member_that_can_carry_the_vif_never_takes_it(
    deployment: Deployment,
) -> None:
    """The built-in default tries portgroups first: an empty one, or one whose members the
    interface cannot use, is passed over for a port that works."""
    d = deployment
    node = d.node("tbn-empty", [])
    port = d.port(node, "52:54:00:78:00:01")
    empty = d.portgroup(node, "tbn-empty0")
    broken = d.portgroup(node, "tbn-broken0")
    d.port(node, "52:54:00:78:00:02", portgroup_uuid=broken, is_smartnic=True)

    resp = d.attach(node, {"id": "vif-e1"})

    assert resp.status_code == 204, resp.text
    assert d.vif_of("port", port) == "vif-e1"
    assert d.vif_of("portgroup", empty) is None and d.vif_of("portgroup", broken) is None
    dry = {**HEADERS, "X-Metalwire-Dry-Run": "true"}
    url = f"{d.servers[0].url}/v1/nodes/{node}/vifs"
    plan = httpx.post(url, json={"id": "vif-e2"}, headers=dry, timeout=60).json()
    refused = {
        r["uuid"]: r["reason"]
        for attempt in plan["trait_based_networking"]["tried"]
        for action in attempt["actions"]
        for r in action["refused"]
    }
    assert refused[empty] == "has no member ports"
    assert refused[broken] == "has no member port the network interface can use"


def test_without_raising_a_vif_no_rule_places_goes_where_it_would_without_the_rules(
    lenient: Deployment,
) -> None:
    """Ironic 39 answers 204 and attaches nothing; the VIF is recorded on the port or
    portgroup the ordinary choice picks, or refused when there is none."""
    d = lenient
    node = d.node("tbn-lenient", ["CUSTOM_STORAGE"])
    pxe = d.port(node, "52:54:00:79:00:01", category="network")
    other = d.port(node, "52:54:00:79:00:02", category="network", pxe_enabled=False)

    resp = d.attach(node, {"id": "vif-l1"})  # no storage tag: CUSTOM_STORAGE matches nothing

    assert resp.status_code == 204, resp.text
    vifs = d.http.get(f"/v1/nodes/{node}/vifs").json()["vifs"]
    assert vifs == [{"id": "vif-l1"}]
    assert (d.vif_of("port", pxe), d.vif_of("port", other)) == ("vif-l1", None)
    log = d.servers[0].log()
    assert "No trait-based networking rule places VIF vif-l1 on node" in log
    assert "instance_info['traits']): CUSTOM_STORAGE" in log

    # The dry run shows the plan that placed nothing and the target chosen instead.
    dry = {**HEADERS, "X-Metalwire-Dry-Run": "true"}
    url = f"{d.servers[0].url}/v1/nodes/{node}/vifs"
    answer = httpx.post(url, json={"id": "vif-l2"}, headers=dry, timeout=60).json()
    assert answer["trait_based_networking"]["trait"] is None
    assert (answer["target"]["uuid"], answer["error"]) == (other, None)
    assert [r["uuid"] for r in answer["refused"]] == [pxe]
    done = run_metalwire(
        "node", "vif", "attach", "tbn-lenient", "vif-l2", "--dry-run",
        env=clean_env(METALWIRE_URL=d.servers[0].url),
    )  # fmt: skip
    assert done.code == 0, done.stdout + done.stderr
    (chosen,) = [line for line in done.stdout.splitlines() if " chosen " in line]
    assert other in chosen and "no trait-based networking rule places it" in chosen, chosen

    assert d.attach(node, {"id": "vif-l2"}).status_code == 204
    assert d.vif_of("port", other) == "vif-l2"

    # No trait at all (and no default trait), then no free port: the ordinary choice's 400.
    bare = d.node("tbn-lenient-bare", [])
    busy = d.port(bare, "52:54:00:79:01:01")
    assert d.attach(bare, {"id": "vif-l3"}).status_code == 204
    assert d.vif_of("port", busy) == "vif-l3"
    refused = d.attach(bare, {"id": "vif-l4"})
    assert refused.status_code == 400, refused.text
    assert "No free port or portgroup on node" in refused.json()["error_message"]
    assert d.http.get(f"/v1/nodes/{bare}/vifs").json()["vifs"] == [{"id": "vif-l3"}]
