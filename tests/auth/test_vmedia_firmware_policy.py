"""Who may list a node's firmware components, and attach, detach and list its virtual media.

Through a real ``metalwire serve`` with http_basic personas (``tests/auth/test_http_basic.py``):
``tenant`` is a member and reader of project-a, which owns node A; ``viewer`` a system reader;
``ops`` a system administrator. Node B belongs to project-b. The rules are Ironic's:
``baremetal:node:firmware:get`` and ``baremetal:node:vmedia:get`` a system or project reader,
``baremetal:node:vmedia:attach`` and ``...:detach`` a system or project member.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.auth.test_http_basic import PERSONAS_YAML, BasicPersonas, _basic_env
from tests.conftest import fault
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def personas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BasicPersonas]:
    tmp_path = tmp_path_factory.mktemp("vmedia-firmware-policy")
    with MetalwireServer(tmp_path / "data", env=_basic_env(tmp_path, PERSONAS_YAML)) as server:
        yield BasicPersonas(server)


@pytest.mark.parametrize("user", ["ops", "viewer", "tenant"])
def test_whoever_sees_the_node_lists_its_firmware(personas: BasicPersonas, user: str) -> None:
    resp = personas.call(user, "GET", f"/v1/nodes/{personas.node_a}/firmware")
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"firmware": []}


def test_another_projects_node_is_404(personas: BasicPersonas) -> None:
    resp = personas.call("tenant", "GET", f"/v1/nodes/{personas.node_b}/firmware")
    assert resp.status_code == 404
    assert personas.node_b in fault(resp)


VMEDIA = {"device_type": "cdrom", "image_url": "http://images.example/boot.iso"}


@pytest.mark.parametrize(("user", "status"), [("ops", 204), ("tenant", 204), ("viewer", 403)])
def test_a_member_attaches_and_detaches_virtual_media_a_reader_may_not(
    personas: BasicPersonas, user: str, status: int
) -> None:
    path = f"/v1/nodes/{personas.node_a}/vmedia"
    attached = personas.call(user, "POST", path, json=VMEDIA)
    assert attached.status_code == status, attached.text
    detached = personas.call(user, "DELETE", path)
    assert detached.status_code == status, detached.text
    if status == 403:
        assert "baremetal:node:vmedia:attach" in fault(attached)
        assert "baremetal:node:vmedia:detach" in fault(detached)


@pytest.mark.parametrize("user", ["ops", "viewer", "tenant"])
def test_a_reader_asks_for_virtual_media(personas: BasicPersonas, user: str) -> None:
    # fake-hardware has none: the refusal (400) comes after the policy let the reader ask
    resp = personas.call(user, "GET", f"/v1/nodes/{personas.node_a}/vmedia")
    assert resp.status_code == 400, resp.text
    assert "get_virtual_media" in fault(resp)


@pytest.mark.parametrize(("method", "json"), [("POST", VMEDIA), ("DELETE", None), ("GET", None)])
def test_virtual_media_of_another_projects_node_is_404(
    personas: BasicPersonas, method: str, json: Any
) -> None:
    resp = personas.call("tenant", method, f"/v1/nodes/{personas.node_b}/vmedia", json=json)
    assert resp.status_code == 404
    assert personas.node_b in fault(resp)
