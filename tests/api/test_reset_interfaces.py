"""``PATCH /v1/nodes/{node}?reset_interfaces=true`` (1.45), as Ironic 39 takes it: with a new
driver every interface the patch does not set takes the new driver's default, the network
interface too; without it a driver change keeps the network interface."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api, fault

NEW_DRIVER = [{"op": "replace", "path": "/driver", "value": "manual-management"}]


def _node(api: Api) -> dict[str, Any]:
    return api.node(network_interface="noop", storage_interface="fake", vendor_interface="fake")


def test_a_new_driver_with_reset_interfaces_gives_every_interface_its_default(api: Api) -> None:
    node = _node(api)
    resp = api.patch(f"/v1/nodes/{node['uuid']}?reset_interfaces=true", NEW_DRIVER)
    assert resp.status_code == 200, resp.text
    changed = resp.json()
    assert changed["network_interface"] == "flat"  # [DEFAULT] default_network_interface
    assert (changed["vendor_interface"], changed["power_interface"]) == ("no-vendor", "agent")


def test_an_interface_the_patch_sets_is_kept(api: Api) -> None:
    node = _node(api)
    patch = [*NEW_DRIVER, {"op": "replace", "path": "/network_interface", "value": "neutron"}]
    resp = api.patch(f"/v1/nodes/{node['uuid']}?reset_interfaces=1", patch)
    assert resp.status_code == 200, resp.text
    assert resp.json()["network_interface"] == "neutron"


def test_a_new_driver_without_reset_interfaces_keeps_the_network_interface(api: Api) -> None:
    node = _node(api)
    for query in ("", "?reset_interfaces=false"):
        resp = api.patch(f"/v1/nodes/{node['uuid']}{query}", NEW_DRIVER)
        assert resp.status_code == 200, resp.text
        assert resp.json()["network_interface"] == "noop"
        assert resp.json()["vendor_interface"] == "no-vendor"
        back = [{"op": "replace", "path": "/driver", "value": "fake-hardware"}]
        assert api.patch(f"/v1/nodes/{node['uuid']}", back).status_code == 200


def test_reset_interfaces_is_refused_without_a_driver_before_its_version_and_unless_boolean(
    api: Api,
) -> None:
    node = _node(api)
    url = f"/v1/nodes/{node['uuid']}"
    extra = [{"op": "add", "path": "/extra/a", "value": 1}]
    alone = api.patch(f"{url}?reset_interfaces=true", extra)
    assert alone.status_code == 400
    assert "only be used when changing the node's driver" in fault(alone)
    early = api.patch(f"{url}?reset_interfaces=true", NEW_DRIVER, version="1.44")
    assert early.status_code == 406
    assert fault(early) == (
        "Request not acceptable. The reset_interfaces query parameter requires API version "
        "1.45 or later; the request used 1.44."
    )
    odd = api.patch(f"{url}?reset_interfaces=maybe", NEW_DRIVER)
    assert odd.status_code == 400 and "reset_interfaces" in fault(odd)
    assert api.get(url).json()["driver"] == "fake-hardware"
