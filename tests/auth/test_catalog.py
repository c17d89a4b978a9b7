"""Clients that find metalwire through the Keystone catalog, as they find Ironic.

A real ``metalwire serve`` with auth_strategy keystone is registered as service type
``baremetal``; the unmodified ``openstack baremetal`` with password auth, openstacksdk, and
the Nova ironic driver's path (a keystoneauth session of the service user) reach it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from metalwire import compute
from metalwire.client import Client
from metalwire.client.exceptions import NotFound
from tests.auth.conftest import PASSWORD, Cloud
from tests.compat.clients import installed_program
from tests.compat.conftest import SDK_INTERNAL_WARNINGS
from tests.conftest import LATEST
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server
OWNER_MEMBER = ("owner-member", "owner-project")


@pytest.fixture(scope="module")
def catalog_server(tmp_path_factory: pytest.TempPathFactory, cloud: Cloud) -> Iterator[str]:
    # Nova deployments let the service role act on every node.
    env = {**cloud.env(), "METALWIRE_RBAC_SERVICE_ROLE_ELEVATED_ACCESS": "true"}
    with MetalwireServer(tmp_path_factory.mktemp("catalog"), env=env) as server:
        cloud.keystone.register_service("baremetal", "metalwire", server.url)
        yield server.url


def _owned_node(url: str, cloud: Cloud, persona_tokens: dict[str, str]) -> str:
    resp = httpx.post(
        f"{url}/v1/nodes",
        json={"driver": "fake-hardware", "owner": cloud.projects["owner-project"]},
        headers=_admin(persona_tokens),
        timeout=30,
    )
    assert resp.status_code == 201, resp.text
    return str(resp.json()["uuid"])


def _admin(persona_tokens: dict[str, str]) -> dict[str, str]:
    return {
        "X-Auth-Token": persona_tokens["system_admin"],
        "X-OpenStack-Ironic-API-Version": LATEST,
    }


def _password_auth(cloud: Cloud, user: str, project: str) -> dict[str, Any]:
    return {
        "auth_url": cloud.keystone.url,
        "username": user,
        "password": PASSWORD,
        "project_name": project,
        "user_domain_name": "Default",
        "project_domain_name": "Default",
    }


def test_openstack_baremetal_node_list_with_password_auth_finds_metalwire_in_the_catalog(
    catalog_server: str, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    node = _owned_node(catalog_server, cloud, persona_tokens)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env = {
        **clean,
        **{f"OS_{k.upper()}": v for k, v in _password_auth(cloud, *OWNER_MEMBER).items()},
        "OS_IDENTITY_API_VERSION": "3",
        "OS_INTERFACE": "public",
    }
    done = subprocess.run(
        [installed_program("openstack"), "baremetal", "node", "list", "-f", "value", "-c", "UUID"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert node in done.stdout.split()


@pytest.mark.filterwarnings(SDK_INTERNAL_WARNINGS[0])
@pytest.mark.filterwarnings(SDK_INTERNAL_WARNINGS[1])
@pytest.mark.filterwarnings(SDK_INTERNAL_WARNINGS[2])
def test_openstacksdk_finds_metalwire_in_the_catalog(
    catalog_server: str, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    import openstack

    node = _owned_node(catalog_server, cloud, persona_tokens)
    conn = openstack.connect(
        auth=_password_auth(cloud, "lessee-member", "lessee-project"),
        auth_type="password",
        interface="public",
        region_name="RegionOne",
    )
    try:
        # The lessee-project leases nothing: filtered, not refused.
        assert node not in {n.id for n in conn.baremetal.nodes()}
    finally:
        conn.close()
    conn = openstack.connect(
        auth=_password_auth(cloud, "owner-reader", "owner-project"),
        auth_type="password",
        interface="public",
        region_name="RegionOne",
    )
    try:
        assert node in {n.id for n in conn.baremetal.nodes()}
        assert conn.baremetal.get_node(node).owner == cloud.projects["owner-project"]
    finally:
        conn.close()


def test_nova_plugs_vifs_as_the_service_user_through_a_keystone_session(
    catalog_server: str, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    node = _owned_node(catalog_server, cloud, persona_tokens)
    admin = _admin(persona_tokens)
    port = httpx.post(
        f"{catalog_server}/v1/ports",
        json={"node_uuid": node, "address": "52:54:00:aa:bb:01"},
        headers=admin,
        timeout=30,
    )
    assert port.status_code == 201, port.text
    plugin = v3.Password(**_password_auth(cloud, "nova", "service"))
    session = ks_session.Session(auth=plugin)
    with compute.client_from_session(session) as client:
        assert compute.plug_vifs(client, node, [{"id": "nova-vif-1"}]) == ["nova-vif-1"]
        assert client.vif_list(node) == ["nova-vif-1"]
        assert compute.unplug_vifs(client, node, ["nova-vif-1"]) == ["nova-vif-1"]


def test_a_service_user_without_elevated_access_cannot_reach_other_projects_nodes(
    tmp_path: Path, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    with MetalwireServer(tmp_path, env=cloud.env()) as server:
        node = _owned_node(server.url, cloud, persona_tokens)
        session = ks_session.Session(auth=v3.Password(**_password_auth(cloud, "nova", "service")))
        # The node is not the service project's: invisible, as if it did not exist.
        with Client(server.url, session=session) as client, pytest.raises(NotFound):
            compute.plug_vifs(client, node, ["nova-vif-2"])


# What Nova's ironic driver asks of a node (its field list), and the calls its plug and
# unplug make through openstacksdk on a connection built on the service user's session.
NOVA_NODE_FIELDS = (
    *("uuid", "power_state", "target_power_state", "provision_state"),
    *("target_provision_state", "last_error", "maintenance", "properties"),
    *("instance_uuid", "traits", "resource_class"),
)


@pytest.mark.filterwarnings(SDK_INTERNAL_WARNINGS[0])
@pytest.mark.filterwarnings(SDK_INTERNAL_WARNINGS[1])
@pytest.mark.filterwarnings(SDK_INTERNAL_WARNINGS[2])
def test_openstacksdk_on_the_service_users_session_plugs_vifs_as_novas_driver_does(
    catalog_server: str, cloud: Cloud, persona_tokens: dict[str, str]
) -> None:
    import openstack
    from openstack import exceptions as sdk_exc

    node = _owned_node(catalog_server, cloud, persona_tokens)
    port = httpx.post(
        f"{catalog_server}/v1/ports",
        json={"node_uuid": node, "address": "52:54:00:aa:bb:02"},
        headers=_admin(persona_tokens),
        timeout=30,
    )
    assert port.status_code == 201, port.text
    session = ks_session.Session(auth=v3.Password(**_password_auth(cloud, "nova", "service")))
    conn = openstack.connection.Connection(session=session, region_name="RegionOne")
    try:
        found = conn.baremetal.get_node(node, fields=list(NOVA_NODE_FIELDS))
        assert found.id == node
        assert found.provision_state == "enroll"
        conn.baremetal.attach_vif_to_node(node, "nova-vif-3", retry_on_conflict=False)
        # Nova reads a conflict on a second plug as "already attached": nothing to do.
        with pytest.raises(sdk_exc.ConflictException):
            conn.baremetal.attach_vif_to_node(node, "nova-vif-3", retry_on_conflict=False)
        assert conn.baremetal.list_node_vifs(node) == ["nova-vif-3"]
        conn.baremetal.detach_vif_from_node(node, "nova-vif-3")
        assert conn.baremetal.list_node_vifs(node) == []
        # A VIF that is not attached: openstacksdk answers False, which Nova ignores.
        assert conn.baremetal.detach_vif_from_node(node, "nova-vif-3") is False
    finally:
        conn.close()
