"""Fields clients read from nodes, ports and portgroups, as Ironic fills them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from metalwire.api.app import build_services, create_app
from metalwire.config import Config
from metalwire.db.engine import Database
from tests.conftest import Api, fault

VIF = "3f6c0cb2-9a4e-4d5b-8d1b-7c3c1f0e2a11"
OLD = dt.datetime(2001, 1, 1, tzinfo=dt.UTC)


@pytest.fixture
def api_with(config: Config) -> Iterator[Callable[..., Api]]:
    """Makes an API whose ``[DEFAULT]`` options are set as the test asks."""
    opened: list[tuple[TestClient, Any, Any]] = []

    def make(**defaults: Any) -> Api:
        for name, value in defaults.items():
            setattr(config.default, name, value)
        services, locks = build_services(config, upgrade_schema=False)
        client = TestClient(create_app(config, services))
        client.__enter__()
        opened.append((client, locks, services))
        return Api(client)

    yield make
    for client, locks, services in opened:
        client.__exit__(None, None, None)
        locks.release_all()
        services.db.dispose()


# -- portgroup mode ------------------------------------------------------------------------


def test_portgroup_mode_defaults_to_active_backup(api: Api) -> None:
    node = api.node()
    portgroup = api.portgroup(node)
    assert portgroup["mode"] == "active-backup"
    assert api.get(f"/v1/portgroups/{portgroup['uuid']}").json()["mode"] == "active-backup"


def test_empty_portgroup_mode_on_create_gets_the_default(api: Api) -> None:
    assert api.portgroup(api.node(), mode="")["mode"] == "active-backup"
    assert api.portgroup(api.node(), mode=None)["mode"] == "active-backup"


def test_portgroup_mode_given_on_create_is_kept(api: Api) -> None:
    assert api.portgroup(api.node(), mode="802.3ad")["mode"] == "802.3ad"


def test_portgroup_created_before_1_26_gets_the_default_mode(api: Api) -> None:
    node = api.node()
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"]}, version="1.23")
    assert resp.status_code == 201, resp.text
    assert "mode" not in resp.json()
    assert api.get(f"/v1/portgroups/{resp.json()['uuid']}").json()["mode"] == "active-backup"


def test_default_portgroup_mode_comes_from_the_configuration(api_with: Callable[..., Api]) -> None:
    api = api_with(default_portgroup_mode="balance-rr")
    assert api.portgroup(api.node())["mode"] == "balance-rr"


def test_removing_portgroup_mode_is_400(api: Api) -> None:
    portgroup = api.portgroup(api.node(), mode="802.3ad")
    resp = api.patch(f"/v1/portgroups/{portgroup['uuid']}", [{"op": "remove", "path": "/mode"}])
    assert resp.status_code == 400
    assert "'mode' is a mandatory attribute" in fault(resp)
    assert api.get(f"/v1/portgroups/{portgroup['uuid']}").json()["mode"] == "802.3ad"


def test_portgroup_mode_replaced_by_null_takes_the_default(api: Api) -> None:
    portgroup = api.portgroup(api.node(), mode="802.3ad")
    resp = api.patch(
        f"/v1/portgroups/{portgroup['uuid']}", [{"op": "replace", "path": "/mode", "value": None}]
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["mode"] == "active-backup"


# -- node hardware interfaces ---------------------------------------------------------------

INTERFACES = (
    "bios",
    "boot",
    "console",
    "deploy",
    "inspect",
    "management",
    "power",
    "raid",
    "rescue",
    "storage",
    "vendor",
)


def _interfaces(node: dict[str, object]) -> dict[str, object]:
    return {kind: node[f"{kind}_interface"] for kind in INTERFACES}


EXPECTED_DEFAULTS = {
    "fake-hardware": {**dict.fromkeys(INTERFACES, "fake"), "storage": "noop"},
    "ipmi": {
        "bios": "no-bios",
        "boot": "ipxe",
        "console": "no-console",
        "deploy": "autodetect",
        "inspect": "no-inspect",
        "management": "ipmitool",
        "power": "ipmitool",
        "raid": "no-raid",
        "rescue": "no-rescue",
        "storage": "noop",
        "vendor": "ipmitool",
    },
    "redfish": {
        "bios": "redfish",
        "boot": "ipxe",
        "console": "no-console",
        "deploy": "autodetect",
        "inspect": "redfish",
        "management": "redfish",
        "power": "redfish",
        "raid": "redfish",
        "rescue": "no-rescue",
        "storage": "noop",
        "vendor": "redfish",
    },
    "manual-management": {
        "bios": "no-bios",
        "boot": "ipxe",
        "console": "no-console",
        "deploy": "autodetect",
        "inspect": "no-inspect",
        "management": "noop",
        "power": "agent",
        "raid": "no-raid",
        "rescue": "no-rescue",
        "storage": "noop",
        "vendor": "no-vendor",
    },
}


@pytest.mark.parametrize("driver", sorted(EXPECTED_DEFAULTS))
def test_node_interfaces_default_to_the_hardware_types_own(api: Api, driver: str) -> None:
    node = api.node(driver=driver)
    assert _interfaces(node) == EXPECTED_DEFAULTS[driver]
    assert _interfaces(api.get(f"/v1/nodes/{node['uuid']}").json()) == EXPECTED_DEFAULTS[driver]


def test_node_interface_given_on_create_is_kept(api: Api) -> None:
    node = api.node(driver="ipmi", boot_interface="pxe")
    assert node["boot_interface"] == "pxe"
    assert node["power_interface"] == "ipmitool"


def test_configured_default_interface_wins_over_the_hardware_type(
    api_with: Callable[..., Api],
) -> None:
    api = api_with(default_boot_interface="pxe", default_storage_interface="cinder")
    node = api.node(driver="redfish")
    assert (node["boot_interface"], node["storage_interface"]) == ("pxe", "cinder")
    assert node["power_interface"] == "redfish"


@pytest.mark.parametrize(
    ("driver", "field", "value", "supported"),
    [
        ("ipmi", "power_interface", "redfish", "ipmitool"),
        ("ipmi", "management_interface", "redfish", "ipmitool, noop"),
        ("redfish", "power_interface", "ipmitool", "redfish"),
        ("redfish", "deploy_interface", "noop", "autodetect, direct, ansible, ramdisk"),
        ("manual-management", "power_interface", "ipmitool", "agent, fake"),
        ("manual-management", "bios_interface", "redfish", "no-bios"),
    ],
)
def test_an_interface_the_hardware_type_does_not_support_is_400(
    api: Api, driver: str, field: str, value: str, supported: str
) -> None:
    """As Ironic: on create, on a change of the interface and on a change of the driver."""
    message = f"{field} {value!r} is not supported by hardware type {driver}; supported: "
    resp = api.post("/v1/nodes", {"driver": driver, "name": "hw", field: value})
    assert resp.status_code == 400, resp.text
    assert message + supported in fault(resp)
    assert api.get("/v1/nodes/hw").status_code == 404
    node = api.node(driver=driver)
    url = f"/v1/nodes/{node['uuid']}"
    resp = api.patch(url, [{"op": "replace", "path": f"/{field}", "value": value}])
    assert resp.status_code == 400, resp.text
    assert message in fault(resp)
    other = api.node()  # fake-hardware
    moved = [
        {"op": "replace", "path": "/driver", "value": driver},
        {"op": "replace", "path": f"/{field}", "value": value},
    ]
    resp = api.patch(f"/v1/nodes/{other['uuid']}", moved)
    assert resp.status_code == 400, resp.text
    assert message in fault(resp)
    assert api.get(url).json()[field] == node[field]
    assert api.get(f"/v1/nodes/{other['uuid']}").json()["driver"] == "fake-hardware"


def test_fake_hardware_takes_any_implementation_as_ironic(api: Api) -> None:
    node = api.node(power_interface="ipmitool", management_interface="redfish")
    assert (node["power_interface"], node["management_interface"]) == ("ipmitool", "redfish")


def test_changing_the_driver_gives_the_new_hardware_types_defaults(api: Api) -> None:
    node = api.node()
    resp = api.patch(
        f"/v1/nodes/{node['uuid']}",
        [
            {"op": "replace", "path": "/driver", "value": "ipmi"},
            {"op": "replace", "path": "/boot_interface", "value": "pxe"},
        ],
    )
    assert resp.status_code == 200, resp.text
    assert _interfaces(resp.json()) == {**EXPECTED_DEFAULTS["ipmi"], "boot": "pxe"}


@pytest.mark.parametrize("op", ["remove", "null"])
def test_resetting_an_interface_gives_the_default(api: Api, op: str) -> None:
    node = api.node(driver="ipmi", boot_interface="pxe")
    patch = (
        {"op": "remove", "path": "/boot_interface"}
        if op == "remove"
        else {"op": "replace", "path": "/boot_interface", "value": None}
    )
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [patch])
    assert resp.status_code == 200, resp.text
    assert resp.json()["boot_interface"] == "ipxe"


# -- node conductor ----------------------------------------------------------------------


def test_node_conductor_is_this_services_host(api_with: Callable[..., Api]) -> None:
    api = api_with(host="metalwire-a")
    node = api.node()
    assert node["conductor"] == "metalwire-a"
    assert api.get(f"/v1/nodes/{node['uuid']}?fields=conductor").json()["conductor"] == (
        "metalwire-a"
    )
    assert api.get("/v1/nodes/detail").json()["nodes"][0]["conductor"] == "metalwire-a"


def test_conductor_filter_lists_the_nodes_this_host_serves(api_with: Callable[..., Api]) -> None:
    api = api_with(host="metalwire-a")
    node = api.node()
    assert [n["uuid"] for n in api.get("/v1/nodes?conductor=metalwire-a").json()["nodes"]] == [
        node["uuid"]
    ]
    assert api.get("/v1/nodes?conductor=elsewhere").json()["nodes"] == []


# -- updated_at on VIF attach and detach ---------------------------------------------------


def _backdate(config: Config, table: str, uuid: str) -> str:
    """Set a row's updated_at far back, so a change shows at any clock resolution."""
    db = Database(config.database_url())
    with db.engine.begin() as conn:
        conn.execute(
            text(f"UPDATE {table} SET updated_at = :old WHERE uuid = :uuid"),
            {"old": OLD, "uuid": uuid},
        )
    db.dispose()
    return OLD.isoformat()


@pytest.mark.parametrize("kind", ["port", "portgroup"])
def test_updated_at_changes_when_a_vif_is_attached_and_detached(
    api: Api, config: Config, kind: str
) -> None:
    node = api.node()
    portgroup = api.portgroup(node)
    api.port(node, "52:54:00:00:10:01", portgroup_uuid=portgroup["uuid"])
    standalone = api.port(node, "52:54:00:00:10:02")
    target = standalone if kind == "port" else portgroup
    url = f"/v1/{kind}s/{target['uuid']}"
    attach = {"id": VIF, f"{kind}_uuid": target["uuid"]}
    old = _backdate(config, f"{kind}s", target["uuid"])
    assert api.get(url).json()["updated_at"] == old
    assert api.post(f"/v1/nodes/{node['uuid']}/vifs", attach).status_code == 204
    assert api.get(url).json()["updated_at"] > old
    old = _backdate(config, f"{kind}s", target["uuid"])
    assert api.delete(f"/v1/nodes/{node['uuid']}/vifs/{VIF}").status_code == 204
    assert api.get(url).json()["updated_at"] > old


# -- sub-links ---------------------------------------------------------------------------


def test_node_states_link_appears_from_1_14(api: Api) -> None:
    node = api.node()
    assert "states" not in api.get(f"/v1/nodes/{node['uuid']}", version="1.13").json()
    shown = api.get(f"/v1/nodes/{node['uuid']}", version="1.14").json()
    assert shown["states"] == [
        {"href": f"http://testserver/v1/nodes/{node['uuid']}/states", "rel": "self"},
        {"href": f"http://testserver/nodes/{node['uuid']}/states", "rel": "bookmark"},
    ]
    assert "ports" in api.get(f"/v1/nodes/{node['uuid']}", version="1.13").json()


def test_node_has_no_sub_links_when_fields_are_chosen(api: Api) -> None:
    node = api.node()
    shown = api.get(f"/v1/nodes/{node['uuid']}?fields=uuid,name").json()
    assert set(shown) == {"uuid", "name", "links"}
    listed = api.get("/v1/nodes?fields=uuid").json()["nodes"][0]
    assert set(listed) == {"uuid", "links"}
    assert {"ports", "states", "portgroups"} <= set(api.get("/v1/nodes/detail").json()["nodes"][0])


def test_portgroup_has_no_ports_link_when_fields_are_chosen(api: Api) -> None:
    portgroup = api.portgroup(api.node())
    shown = api.get(f"/v1/portgroups/{portgroup['uuid']}?fields=uuid,mode").json()
    assert set(shown) == {"uuid", "mode", "links"}
    listed = api.get("/v1/portgroups?fields=uuid").json()["portgroups"][0]
    assert set(listed) == {"uuid", "links"}
    assert "ports" in api.get(f"/v1/portgroups/{portgroup['uuid']}").json()


# -- /v1 root ------------------------------------------------------------------------------


def test_v1_root_media_types_is_an_object_and_describedby_is_linked(api: Api) -> None:
    body = api.get("/v1/").json()
    assert body["media_types"] == {
        "base": "application/json",
        "type": "application/vnd.openstack.ironic.v1+json",
    }
    rels = {link["rel"]: link for link in body["links"]}
    assert rels["self"]["href"] == "http://testserver/v1/"
    assert rels["describedby"]["type"] == "text/html"
    assert rels["describedby"]["href"].startswith("https://")


# -- bookmark links ------------------------------------------------------------------------


def _bookmark(resource: dict[str, object]) -> str:
    links = resource["links"]
    assert isinstance(links, list)
    href = next(link["href"] for link in links if link["rel"] == "bookmark")
    assert isinstance(href, str) and "/v1/" not in href
    return href.removeprefix("http://testserver")


def test_bookmark_links_serve_the_same_document(api: Api) -> None:
    node = api.node(name="bookmarked")
    port = api.port(node, "52:54:00:00:10:03")
    portgroup = api.portgroup(node)
    for collection, resource in (("nodes", node), ("ports", port), ("portgroups", portgroup)):
        resp = api.get(_bookmark(resource))
        assert resp.status_code == 200, (collection, resp.text)
        assert resp.json() == api.get(f"/v1/{collection}/{resource['uuid']}").json()


def test_bookmark_links_of_sub_resources_resolve(api: Api) -> None:
    node = api.node()
    api.port(node, "52:54:00:00:10:04")
    shown = api.get(f"/v1/nodes/{node['uuid']}").json()
    for name in ("ports", "states", "portgroups"):
        href = next(link["href"] for link in shown[name] if link["rel"] == "bookmark")
        resp = api.get(href.removeprefix("http://testserver"))
        assert resp.status_code == 200, (name, resp.text)
    assert api.get("/nodes").json() == api.get("/v1/nodes").json()
