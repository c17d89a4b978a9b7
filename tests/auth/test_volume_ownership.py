"""Who may see and move volume connectors and targets.

Through a real ``metalwire serve`` with http_basic personas: ``tenant`` is a member of
project-a, whose members may change the volume resources of its nodes; ``viewer`` a system
reader; ``ops`` a system administrator. A PATCH of ``node_uuid`` to a node of another owner,
or to a node that is not there, is the same 400 for everyone, and the row stays where it
was. A target's properties (its storage connection details) read as Ironic's redaction for a
project member; their secrets read ``******`` for everyone.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from tests.auth.test_http_basic import PERSONAS_YAML, BasicPersonas, _basic_env
from tests.conftest import fault
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

MISSING_NODE = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
_numbers = itertools.count(1)


@pytest.fixture(scope="module")
def personas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BasicPersonas]:
    tmp_path = tmp_path_factory.mktemp("volume-ownership")
    with MetalwireServer(tmp_path / "data", env=_basic_env(tmp_path, PERSONAS_YAML)) as server:
        found = BasicPersonas(server)
        for node in (found.node_a, found.node_b):
            _power_off(found, node)
        yield found


def _power_off(personas: BasicPersonas, node: str) -> None:
    """Volume resources change only on a powered-off node."""
    body = {"target": "power off"}
    resp = personas.call("ops", "PUT", f"/v1/nodes/{node}/states/power", json=body)
    assert resp.status_code == 202, resp.text


def _second_node_of_project_a(personas: BasicPersonas) -> str:
    body = {"driver": "fake-hardware", "owner": "project-a"}
    node = str(personas.call("ops", "POST", "/v1/nodes", json=body).json()["uuid"])
    _power_off(personas, node)
    return node


def _create(personas: BasicPersonas, collection: str, node: str) -> str:
    n = next(_numbers)
    body = (
        {"type": "iqn", "connector_id": f"iqn.2026-12.org.example:{n}"}
        if collection == "connectors"
        else {"volume_type": "iscsi", "volume_id": f"volume-{n}", "boot_index": n}
    )
    resp = personas.call(
        "ops", "POST", f"/v1/volume/{collection}", json={"node_uuid": node, **body}
    )
    assert resp.status_code == 201, resp.text
    return str(resp.json()["uuid"])


def _move(personas: BasicPersonas, user: str, collection: str, uuid: str, node: str) -> object:
    patch = [{"op": "replace", "path": "/node_uuid", "value": node}]
    return personas.call(user, "PATCH", f"/v1/volume/{collection}/{uuid}", json=patch)


def _node_of(personas: BasicPersonas, collection: str, uuid: str) -> str:
    resp = personas.call("ops", "GET", f"/v1/volume/{collection}/{uuid}")
    assert resp.status_code == 200, resp.text
    return str(resp.json()["node_uuid"])


@pytest.mark.parametrize("collection", ["connectors", "targets"])
@pytest.mark.parametrize("user", ["tenant", "ops"])
@pytest.mark.parametrize("destination", ["other owner", "missing"])
def test_a_volume_resource_does_not_move_to_a_node_of_another_owner(
    personas: BasicPersonas, collection: str, user: str, destination: str
) -> None:
    uuid = _create(personas, collection, personas.node_a)
    node = personas.node_b if destination == "other owner" else MISSING_NODE

    resp = _move(personas, user, collection, uuid, node)

    assert resp.status_code == 400, resp.text
    assert fault(resp) == (
        f"Unable to apply the requested node_uuid '{node}'. Requested value was invalid."
    )
    assert _node_of(personas, collection, uuid) == personas.node_a


@pytest.mark.parametrize("collection", ["connectors", "targets"])
def test_a_project_member_moves_a_volume_resource_between_its_projects_nodes(
    personas: BasicPersonas, collection: str
) -> None:
    uuid = _create(personas, collection, personas.node_a)
    other = _second_node_of_project_a(personas)

    resp = _move(personas, "tenant", collection, uuid, other)

    assert resp.status_code == 200, resp.text
    assert _node_of(personas, collection, uuid) == other


@pytest.mark.parametrize("collection", ["connectors", "targets"])
def test_a_volume_resource_does_not_move_to_a_powered_on_node(
    personas: BasicPersonas, collection: str
) -> None:
    uuid = _create(personas, collection, personas.node_a)
    other = _second_node_of_project_a(personas)
    resp = personas.call(
        "ops", "PUT", f"/v1/nodes/{other}/states/power", json={"target": "power on"}
    )
    assert resp.status_code == 202, resp.text

    resp = _move(personas, "tenant", collection, uuid, other)

    assert resp.status_code == 400, resp.text
    noun = f"volume {collection.removesuffix('s')}"
    assert fault(resp) == (
        f'The requested action "{noun} update" can not be performed on node "{other}" '
        'while it is in state "power on".'
    )
    assert _node_of(personas, collection, uuid) == personas.node_a


@pytest.mark.parametrize("collection", ["connectors", "targets"])
def test_the_volume_resources_of_a_node_hidden_from_the_requester_are_a_404(
    personas: BasicPersonas, collection: str
) -> None:
    _create(personas, collection, personas.node_b)
    node = personas.node_b

    hidden = personas.call("tenant", "GET", f"/v1/nodes/{node}/volume/{collection}")

    assert hidden.status_code == 404, hidden.text
    assert fault(hidden) == f"Node {node} could not be found."
    # a filter of the whole collection only narrows it, as Ironic's does
    filtered = personas.call("tenant", "GET", f"/v1/volume/{collection}?node={node}")
    assert filtered.status_code == 200, filtered.text
    assert filtered.json()[collection] == []
    own = personas.call("tenant", "GET", f"/v1/nodes/{personas.node_a}/volume/{collection}")
    assert own.status_code == 200, own.text


CHAP = {
    "auth_method": "CHAP",
    "auth_username": "chap-user",
    "auth_password": "chap-secret",
    "target_iqn": "iqn.2026-12.org.example:boot",
    "target_portal": "192.0.2.10:3260",
}
MASKED_CHAP = {**CHAP, "auth_password": "******"}
REDACTED = {
    "redacted_contents": "** Value redacted: Requires permission "
    "baremetal:volume:view_target_properties access. Permission denied. **"
}


def _chap_target(personas: BasicPersonas) -> tuple[str, dict[str, Any]]:
    """A target of node A with CHAP properties: (its UUID, the create's answer)."""
    n = next(_numbers)
    body = {"node_uuid": personas.node_a, "volume_type": "iscsi", "volume_id": f"chap-{n}"}
    body |= {"boot_index": n, "properties": CHAP}
    resp = personas.call("ops", "POST", "/v1/volume/targets", json=body)
    assert resp.status_code == 201, resp.text
    return str(resp.json()["uuid"]), resp.json()


def _stored_properties(personas: BasicPersonas, uuid: str) -> Any:
    db = sqlite3.connect(personas.server.data_dir / "metalwire.db", timeout=10)
    with contextlib.closing(db):
        row = db.execute("SELECT properties FROM volume_targets WHERE uuid = ?", (uuid,)).fetchone()
    return json.loads(row[0])


def _properties_seen(personas: BasicPersonas, user: str, uuid: str) -> list[Any]:
    """A target's properties as ``user`` reads them: shown, in the lists, with ``fields``."""
    node = personas.node_a
    shown = personas.call(user, "GET", f"/v1/volume/targets/{uuid}")
    listed = personas.call(user, "GET", "/v1/volume/targets?detail=true")
    of_node = personas.call(user, "GET", f"/v1/nodes/{node}/volume/targets?fields=uuid,properties")
    for resp in (shown, listed, of_node):
        assert resp.status_code == 200, resp.text
    in_lists = [
        next(t for t in resp.json()["targets"] if t["uuid"] == uuid) for resp in (listed, of_node)
    ]
    return [shown.json()["properties"], *(t["properties"] for t in in_lists)]


@pytest.mark.parametrize("user", ["ops", "viewer"])
def test_the_secrets_of_a_volume_targets_properties_read_masked(
    personas: BasicPersonas, user: str
) -> None:
    uuid, created = _chap_target(personas)

    assert created["properties"] == MASKED_CHAP
    assert _properties_seen(personas, user, uuid) == [MASKED_CHAP] * 3


@pytest.mark.parametrize("user", ["tenant", "worker"])
def test_a_project_member_reads_a_volume_targets_properties_redacted(
    personas: BasicPersonas, user: str
) -> None:
    uuid, _created = _chap_target(personas)

    assert _properties_seen(personas, user, uuid) == [REDACTED] * 3


def test_a_patch_sending_back_the_masked_properties_keeps_the_secret(
    personas: BasicPersonas,
) -> None:
    uuid, created = _chap_target(personas)
    shown = {**created["properties"], "target_portal": "192.0.2.11:3260"}
    patch = [{"op": "replace", "path": "/properties", "value": shown}]

    resp = personas.call("ops", "PATCH", f"/v1/volume/targets/{uuid}", json=patch)

    assert resp.status_code == 200, resp.text
    assert resp.json()["properties"] == {**MASKED_CHAP, "target_portal": "192.0.2.11:3260"}
    assert _stored_properties(personas, uuid) == {**CHAP, "target_portal": "192.0.2.11:3260"}
