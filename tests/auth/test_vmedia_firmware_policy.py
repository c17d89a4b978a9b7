"""Who may list a node's firmware components and attach or detach its virtual media.

Through a real ``metalwire serve`` with http_basic personas (``tests/auth/test_http_basic.py``):
``tenant`` is a member and reader of project-a, which owns node A; ``viewer`` a system reader;
``ops`` a system administrator. Node B belongs to project-b. The rules are Ironic's:
``baremetal:node:firmware:get`` a system or project reader.
"""

from __future__ import annotations

from collections.abc import Iterator

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
