"""Paging through lists by following their own ``next`` links, whatever the sort key.

Sort columns may hold NULLs and ties. metalwire orders NULLs first in ascending order and last
in descending order on every database, and breaks ties by creation order (the row id), so a
walk page by page sees each object exactly once, in the order of the whole list.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete

from metalwire.db import nodes as node_db
from metalwire.db import portgroups as portgroup_db
from metalwire.db import ports as port_db
from metalwire.db.models import Node, NodeHistory, Port, Portgroup
from tests.conftest import Api, fault

# -- the walk ---------------------------------------------------------------------------------


def walk(api: Api, url: str, key: str, most: int) -> list[str]:
    """The UUIDs of every page, following ``next`` links; fails on a non-200 page."""
    seen: list[str] = []
    for _ in range(most + 2):
        resp = api.get(url)
        assert resp.status_code == 200, f"GET {url}: {resp.status_code} {resp.text}"
        body = resp.json()
        seen += [item["uuid"] for item in body[key]]
        following = body.get("next")
        if not following:
            return seen
        url = following.removeprefix("http://testserver")
    raise AssertionError(f"{url}: more pages than objects ({seen})")


# Sort keys that are an owner's row id, and the field that shows the owner (its UUID).
_OWNER_KEYS = {"node_id": "node_uuid", "portgroup_id": "portgroup_uuid"}


def _sort_value(obj: dict[str, Any], sort_key: str, owners: dict[str, int]) -> Any:
    if sort_key in _OWNER_KEYS:
        owner = obj[_OWNER_KEYS[sort_key]]
        return None if owner is None else owners[owner]
    value = obj[sort_key]
    if value is not None and sort_key.endswith("_at"):
        return dt.datetime.fromisoformat(value)
    return value


def expected_order(
    created: list[dict[str, Any]],
    sort_key: str,
    sort_dir: str,
    owners: dict[str, int] | None = None,
) -> list[str]:
    """NULLs first when ascending, last when descending; ties in creation (id) order.
    ``owners`` ranks the nodes and portgroups (by UUID) in their creation order, for the
    sort keys that are an owner's id."""

    def rank(pair: tuple[int, dict[str, Any]]) -> tuple[Any, ...]:
        index, obj = pair
        if sort_key == "id":
            return (index,)
        value = _sort_value(obj, sort_key, owners or {})
        return (value is not None, value, index)

    ascending = [obj["uuid"] for _, obj in sorted(enumerate(created), key=rank)]
    return ascending if sort_dir == "asc" else ascending[::-1]


def check_every_walk(
    api: Api,
    collection: str,
    query: str,
    created: list[dict[str, Any]],
    sortable: set[str],
    limits: tuple[int, ...],
    owners: dict[str, int],
) -> None:
    """Every sort key both ways, at each page size, sees each object once, in order."""
    for sort_key in sorted(sortable):
        for sort_dir in ("asc", "desc"):
            want = expected_order(created, sort_key, sort_dir, owners)
            for limit in limits:
                url = f"/v1/{collection}?{query}&sort_key={sort_key}&sort_dir={sort_dir}"
                got = walk(api, f"{url}&limit={limit}", collection, len(created))
                assert got == want, f"{url}&limit={limit}"


# -- inventories ------------------------------------------------------------------------------


@dataclass
class NodeSpec:
    name: str | None = None
    owner: str | None = None
    lessee: str | None = None
    resource_class: str | None = None
    driver: str = "fake-hardware"
    maintenance: bool = False
    conductor_group: str = ""
    instance: bool = False
    touched: bool = False  # patched after creation, so updated_at is set
    managed: bool = False  # moved to manageable, so provision_updated_at is set


@dataclass
class PortSpec:
    address: int
    physical_network: str | None = None
    pxe_enabled: bool = True
    touched: bool = False
    category: str | None = None
    vendor: str | None = None


@dataclass
class PortgroupSpec:
    name: str | None = None
    address: int | None = None
    touched: bool = False
    physical_network: str | None = None
    category: str | None = None


@dataclass
class Inventory:
    nodes: list[NodeSpec]
    ports: list[PortSpec] = field(default_factory=list)
    portgroups: list[PortgroupSpec] = field(default_factory=list)


def mac(number: int) -> str:
    return f"52:54:00:00:{number // 256:02x}:{number % 256:02x}"


def _without_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def build(api: Api, inventory: Inventory, tag: str) -> dict[str, list[dict[str, Any]]]:
    """Create the inventory through the API; returns each kind's objects, oldest first."""
    nodes = []
    for spec in inventory.nodes:
        nodes.append(
            api.node(
                **_without_none(
                    {
                        "name": spec.name,
                        "owner": spec.owner,
                        "lessee": spec.lessee,
                        "resource_class": spec.resource_class,
                        "driver": spec.driver,
                        "maintenance": spec.maintenance,
                        "conductor_group": spec.conductor_group,
                        "instance_uuid": str(uuid.uuid4()) if spec.instance else None,
                        "description": tag,
                    }
                )
            )
        )
    holder = nodes[0]
    ports = [
        api.port(
            holder,
            mac(spec.address),
            pxe_enabled=spec.pxe_enabled,
            **_without_none(
                {
                    "physical_network": spec.physical_network,
                    "category": spec.category,
                    "vendor": spec.vendor,
                }
            ),
        )
        for spec in inventory.ports
    ]
    portgroups = [
        api.portgroup(
            holder,
            **_without_none(
                {
                    "name": spec.name,
                    "address": None if spec.address is None else mac(0x8000 + spec.address),
                    "physical_network": spec.physical_network,
                    "category": spec.category,
                }
            ),
        )
        for spec in inventory.portgroups
    ]
    # Newest first, so the order of the timestamps is not the creation order.
    for obj, spec in reversed(list(zip(nodes, inventory.nodes, strict=True))):
        if spec.managed:
            resp = api.put(f"/v1/nodes/{obj['uuid']}/states/provision", {"target": "manage"})
            assert resp.status_code == 202, resp.text
        if spec.touched:
            _touch(api, f"/v1/nodes/{obj['uuid']}")
    touched = [
        f"/v1/ports/{p['uuid']}" for p, s in zip(ports, inventory.ports, strict=True) if s.touched
    ]
    touched += [
        f"/v1/portgroups/{g['uuid']}"
        for g, s in zip(portgroups, inventory.portgroups, strict=True)
        if s.touched
    ]
    for url in reversed(touched):
        _touch(api, url)
    return {
        "nodes": _reread(api, "/v1/nodes", "nodes", nodes),
        "ports": _reread(api, "/v1/ports", "ports", ports),
        "portgroups": _reread(api, "/v1/portgroups", "portgroups", portgroups),
    }


def _touch(api: Api, url: str) -> None:
    resp = api.patch(url, [{"op": "add", "path": "/extra/touched", "value": True}])
    assert resp.status_code == 200, resp.text


def _reread(api: Api, url: str, key: str, made: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The objects as stored now, in creation order."""
    listed = {obj["uuid"]: obj for obj in api.get(f"{url}/detail").json()[key]}
    return [listed[obj["uuid"]] for obj in made]


def check_inventory(api: Api, inventory: Inventory, limits: tuple[int, ...]) -> None:
    """Walk every list of the inventory; the filters keep other objects out of them."""
    tag = f"walk-{uuid.uuid4().hex}"
    made = build(api, inventory, tag)
    holder = made["nodes"][0]["uuid"]
    owners = {
        o["uuid"]: rank for kind in ("nodes", "portgroups") for rank, o in enumerate(made[kind])
    }
    for collection, query, sortable in (
        ("nodes", f"description_contains={tag}", node_db.SORTABLE),
        ("ports", f"node={holder}", port_db.SORTABLE),
        ("portgroups", f"node={holder}", portgroup_db.SORTABLE),
    ):
        check_every_walk(api, collection, query, made[collection], sortable, limits, owners)


# -- reproductions ----------------------------------------------------------------------------

NULLABLE_NODE_KEYS = [
    "name",
    "owner",
    "lessee",
    "resource_class",
    "instance_uuid",
    "updated_at",
    "provision_updated_at",
]


@pytest.mark.parametrize("sort_dir", ["asc", "desc"])
@pytest.mark.parametrize("sort_key", NULLABLE_NODE_KEYS)
def test_nodes_page_by_a_nullable_sort_key(api: Api, sort_key: str, sort_dir: str) -> None:
    inventory = Inventory(
        nodes=[
            NodeSpec(),
            NodeSpec(
                name="b", owner="b", lessee="b", resource_class="b", instance=True, touched=True
            ),
            NodeSpec(),
            NodeSpec(name="a", owner="a", lessee="a", resource_class="a", managed=True),
            NodeSpec(),
        ]
    )
    made = build(api, inventory, "nullable")["nodes"]
    got = walk(api, f"/v1/nodes?sort_key={sort_key}&sort_dir={sort_dir}&limit=1", "nodes", 5)
    assert got == expected_order(made, sort_key, sort_dir)


@pytest.mark.parametrize("sort_dir", ["asc", "desc"])
@pytest.mark.parametrize("sort_key", ["physical_network", "updated_at", "category", "vendor"])
def test_ports_page_by_a_nullable_sort_key(api: Api, sort_key: str, sort_dir: str) -> None:
    inventory = Inventory(
        nodes=[NodeSpec()],
        ports=[
            PortSpec(1),
            PortSpec(2, physical_network="physnet2", touched=True, category="b", vendor="b"),
            PortSpec(3),
            PortSpec(4, physical_network="physnet1", category="a", vendor="a"),
        ],
    )
    made = build(api, inventory, "nullable")["ports"]
    got = walk(api, f"/v1/ports?sort_key={sort_key}&sort_dir={sort_dir}&limit=1", "ports", 4)
    assert got == expected_order(made, sort_key, sort_dir)


@pytest.mark.parametrize("sort_dir", ["asc", "desc"])
@pytest.mark.parametrize(
    "sort_key", ["name", "address", "updated_at", "physical_network", "category"]
)
def test_portgroups_page_by_a_nullable_sort_key(api: Api, sort_key: str, sort_dir: str) -> None:
    inventory = Inventory(
        nodes=[NodeSpec()],
        portgroups=[
            PortgroupSpec(),
            PortgroupSpec(name="b", address=2, touched=True, physical_network="b", category="b"),
            PortgroupSpec(),
            PortgroupSpec(name="a", address=1, physical_network="a", category="a"),
        ],
    )
    made = build(api, inventory, "nullable")["portgroups"]
    url = f"/v1/portgroups?sort_key={sort_key}&sort_dir={sort_dir}&limit=1"
    assert walk(api, url, "portgroups", 4) == expected_order(made, sort_key, sort_dir)


def test_ties_in_the_sort_key_page_in_creation_order(api: Api) -> None:
    made = build(api, Inventory(nodes=[NodeSpec(owner="same") for _ in range(4)]), "ties")
    for sort_dir in ("asc", "desc"):
        got = walk(api, f"/v1/nodes?sort_key=owner&sort_dir={sort_dir}&limit=1", "nodes", 4)
        assert got == expected_order(made["nodes"], "owner", sort_dir)


@pytest.mark.parametrize("collection", ["nodes", "ports", "portgroups"])
@pytest.mark.parametrize("limit", ["0", "-1"])
def test_limit_must_be_positive(api: Api, collection: str, limit: str) -> None:
    resp = api.get(f"/v1/{collection}?limit={limit}")
    assert resp.status_code == 400
    assert fault(resp) == "Limit must be positive"


@pytest.mark.parametrize(
    ("collection", "kind"), [("nodes", "Node"), ("ports", "Port"), ("portgroups", "Portgroup")]
)
def test_unknown_marker_is_404(api: Api, collection: str, kind: str) -> None:
    marker = str(uuid.uuid4())
    resp = api.get(f"/v1/{collection}?marker={marker}")
    assert resp.status_code == 404
    assert fault(resp) == f"{kind} {marker} could not be found."


def test_unknown_history_marker_is_404(api: Api) -> None:
    node = api.node()
    marker = str(uuid.uuid4())
    resp = api.get(f"/v1/nodes/{node['uuid']}/history?marker={marker}")
    assert resp.status_code == 404
    assert fault(resp) == f"Node history record {marker} could not be found."


@pytest.mark.parametrize("collection", ["nodes", "ports", "portgroups"])
def test_marker_must_be_a_uuid(api: Api, collection: str) -> None:
    resp = api.get(f"/v1/{collection}?marker=node-1")
    assert resp.status_code == 400
    assert "marker" in fault(resp) and "'node-1'" in fault(resp)


# -- every sort key, both ways ----------------------------------------------------------------

# NULLs and ties in every nullable or repeated sort column; run on every database.
FIXED = Inventory(
    nodes=[
        NodeSpec(owner="b", resource_class="x", touched=True),
        NodeSpec(name="c", owner="a", lessee="l", maintenance=True, conductor_group="g"),
        NodeSpec(driver="ipmi", resource_class="x", instance=True, managed=True),
        NodeSpec(name="a", owner="b", lessee="l", touched=True, managed=True),
        NodeSpec(driver="ipmi", maintenance=True, instance=True),
        NodeSpec(name="b", resource_class="y", conductor_group="g", touched=True),
    ],
    ports=[
        PortSpec(7, physical_network="p2", touched=True),
        PortSpec(3),
        PortSpec(5, physical_network="p1", pxe_enabled=False),
        PortSpec(1, physical_network="p2", touched=True),
        PortSpec(9, pxe_enabled=False),
    ],
    portgroups=[
        PortgroupSpec(name="b", touched=True),
        PortgroupSpec(address=4),
        PortgroupSpec(),
        PortgroupSpec(name="a", address=2, touched=True),
        PortgroupSpec(address=1),
    ],
)


def test_every_sort_key_pages_both_ways(api: Api) -> None:
    check_inventory(api, FIXED, limits=(1, 2))


# -- the property -----------------------------------------------------------------------------

_NAMES = st.text(alphabet="abc", min_size=1, max_size=3)
_VALUES = st.none() | st.sampled_from(["a", "b"])


@st.composite
def inventories(draw: st.DrawFn) -> Inventory:
    count = draw(st.integers(min_value=1, max_value=7))
    names = draw(st.lists(st.none() | _NAMES, min_size=count, max_size=count))
    seen: set[str] = set()
    nodes = []
    for name in names:
        unique_name = name if name is not None and name not in seen else None
        if unique_name is not None:
            seen.add(unique_name)
        nodes.append(
            NodeSpec(
                name=unique_name,
                owner=draw(_VALUES),
                lessee=draw(_VALUES),
                resource_class=draw(_VALUES),
                driver=draw(st.sampled_from(["fake-hardware", "ipmi"])),
                maintenance=draw(st.booleans()),
                conductor_group=draw(st.sampled_from(["", "g"])),
                instance=draw(st.booleans()),
                touched=draw(st.booleans()),
                managed=draw(st.booleans()),
            )
        )
    addresses = draw(st.lists(st.integers(0, 50), unique=True, max_size=6))
    ports = [
        PortSpec(
            address,
            physical_network=draw(_VALUES),
            pxe_enabled=draw(st.booleans()),
            touched=draw(st.booleans()),
        )
        for address in addresses
    ]
    groups = draw(st.integers(min_value=0, max_value=5))
    group_names = draw(st.lists(_NAMES, unique=True, min_size=groups, max_size=groups))
    group_addresses = draw(st.lists(st.integers(0, 50), unique=True, min_size=groups))
    portgroups = [
        PortgroupSpec(
            name=draw(st.none() | st.just(group_names[i])),
            address=draw(st.none() | st.just(group_addresses[i])),
            touched=draw(st.booleans()),
        )
        for i in range(groups)
    ]
    return Inventory(nodes=nodes, ports=ports, portgroups=portgroups)


# The property runs on SQLite; the fixed inventory above covers PostgreSQL and MariaDB.
@pytest.mark.parametrize("database", ["sqlite"])
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(inventory=inventories(), limit=st.integers(min_value=1, max_value=3))
def test_paging_sees_every_object_once_in_order(api: Api, inventory: Inventory, limit: int) -> None:
    empty_inventory(api)  # the examples share the test's database
    check_inventory(api, inventory, limits=(limit,))


def empty_inventory(api: Api) -> None:
    with api.client.app.state.services.db.write() as session:
        for model in (Port, Portgroup, NodeHistory, Node):
            session.execute(delete(model))


@pytest.mark.parametrize("collection", ["nodes", "nodes/detail", "ports", "portgroups"])
def test_a_query_parameter_the_list_does_not_take_is_400(api: Api, collection: str) -> None:
    """Ironic 39 refuses it rather than list everything, which a typo in a filter would do."""
    api.node()
    resp = api.get(f"/v1/{collection}?colour=red")
    assert resp.status_code == 400, resp.text
    assert "colour" in fault(resp)
    assert api.get(f"/v1/{collection}?limit=1&sort_dir=asc").status_code == 200


@pytest.mark.parametrize("collection", ["nodes", "ports", "portgroups"])
def test_detail_query_on_a_detail_list_is_400(api: Api, collection: str) -> None:
    """As Ironic 39: the /detail list is detailed already and takes no ?detail=."""
    resp = api.get(f"/v1/{collection}/detail?detail=true")
    assert resp.status_code == 400 and "detail" in fault(resp)
    assert api.get(f"/v1/{collection}?detail=true").status_code == 200
    assert api.get(f"/v1/{collection}/detail").status_code == 200
