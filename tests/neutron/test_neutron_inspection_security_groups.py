"""``[neutron] inspection_network_security_groups`` against a real Neutron: the ports an
``agent`` inspection of a ``neutron`` node creates on its inspection network carry those
security groups, and a group Neutron does not have fails the inspection before any port is
created, as in Ironic."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.neutron.clients import Json, Metalwire, Neutron, link
from tests.neutron.interface_fixtures import (  # noqa: F401  (the shared module fixtures)
    fixture_api,
    fixture_neutron,
)
from tests.support.helpers import AGENT_RAMDISK, settled_node
from tests.support.server import MetalwireServer


@pytest.fixture(scope="module")
def security_group(neutron: Neutron) -> Iterator[Json]:
    response = neutron.http.post(
        "/security-groups", json={"security_group": {"name": "mw-inspection"}}
    )
    assert response.status_code == 201, response.text
    group: Json = response.json()["security_group"]
    yield group
    neutron.http.delete(f"/security-groups/{group['id']}")


@pytest.fixture(scope="module", name="server")
def fixture_server(
    neutron: Neutron,
    neutron_endpoint: str,
    security_group: Json,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[MetalwireServer]:
    env = {
        "METALWIRE_NEUTRON_URL": neutron_endpoint,
        "METALWIRE_NEUTRON_INSPECTION_NETWORK": "mw-tenant-p2",
        "METALWIRE_NEUTRON_INSPECTION_NETWORK_SECURITY_GROUPS": security_group["id"],
    }
    with MetalwireServer(tmp_path_factory.mktemp("inspection-sg"), env=env) as running:
        yield running


def _inspect(api: Metalwire, name: str) -> Json:
    response = api.http.put(f"/v1/nodes/{name}/states/provision", json={"target": "inspect"})
    assert response.status_code == 202, response.text
    return settled_node(lambda: api.get(f"/v1/nodes/{name}"))


def test_inspection_ports_carry_the_configured_security_groups_which_must_exist(
    api: Metalwire, neutron: Neutron, security_group: Json
) -> None:
    mac = "52:54:00:3d:00:01"
    node = api.node(
        "sg", inspect_interface="agent", boot_interface="pxe", driver_info=AGENT_RAMDISK
    )
    api.port(node, mac, link("Ethernet45/1"))
    api.provision("sg", "manage")

    shown = _inspect(api, "sg")

    assert (shown["provision_state"], shown["last_error"]) == ("inspect wait", None)
    [port] = neutron.ports_on("mw-tenant-p2", mac)
    assert port["security_groups"] == [security_group["id"]]
    aborted = api.http.put("/v1/nodes/sg/states/provision", json={"target": "abort"})
    assert aborted.status_code == 202, aborted.text
    assert neutron.ports_on("mw-tenant-p2", mac) == []

    deleted = neutron.http.delete(f"/security-groups/{security_group['id']}")
    assert deleted.status_code == 204, deleted.text

    shown = _inspect(api, "sg")

    assert shown["provision_state"] == "inspect failed"
    assert shown["last_error"] == (
        "Failed to inspect hardware. Reason: unable to start inspection: Adding node "
        f"{node['uuid']} to the inspection network mw-tenant-p2 failed: Neutron has no "
        f"security group {security_group['id']} (from [neutron] "
        "inspection_network_security_groups). Everything already done was undone."
    )
    assert neutron.ports_on("mw-tenant-p2", mac) == []
