"""Who may see, create, change and delete chassis: Ironic's system-scoped rules.

Through a real ``metalwire serve`` with http_basic personas (``tests/auth/test_http_basic.py``):
``tenant`` is a member and reader of project-a, ``viewer`` a system reader, ``ops`` a system
administrator. ``baremetal:chassis:get`` is a system reader's, ``...:update`` a system
member's, ``...:create`` and ``...:delete`` a system administrator's; a project-scoped user has
none of them.
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
    tmp_path = tmp_path_factory.mktemp("chassis-policy")
    with MetalwireServer(tmp_path / "data", env=_basic_env(tmp_path, PERSONAS_YAML)) as server:
        yield BasicPersonas(server)


@pytest.fixture
def chassis(personas: BasicPersonas) -> str:
    resp = personas.call("ops", "POST", "/v1/chassis", json={"description": "rack"})
    assert resp.status_code == 201, resp.text
    return str(resp.json()["uuid"])


def test_a_system_reader_sees_chassis_a_project_user_does_not(
    personas: BasicPersonas, chassis: str
) -> None:
    for path in ("/v1/chassis", "/v1/chassis/detail", f"/v1/chassis/{chassis}"):
        assert personas.call("viewer", "GET", path).status_code == 200
        refused = personas.call("tenant", "GET", path)
        assert refused.status_code == 403, refused.text
        assert "baremetal:chassis:get" in fault(refused)


def test_only_a_system_admin_creates_and_deletes(personas: BasicPersonas, chassis: str) -> None:
    for user in ("viewer", "tenant"):
        resp = personas.call(user, "POST", "/v1/chassis", json={})
        assert resp.status_code == 403 and "baremetal:chassis:create" in fault(resp)
        resp = personas.call(user, "DELETE", f"/v1/chassis/{chassis}")
        assert resp.status_code == 403 and "baremetal:chassis:delete" in fault(resp)
    assert personas.call("ops", "DELETE", f"/v1/chassis/{chassis}").status_code == 204


def test_a_system_member_changes_a_chassis(personas: BasicPersonas, chassis: str) -> None:
    patch = [{"op": "replace", "path": "/description", "value": "rack 9"}]
    for user in ("viewer", "tenant"):
        resp = personas.call(user, "PATCH", f"/v1/chassis/{chassis}", json=patch)
        assert resp.status_code == 403 and "baremetal:chassis:update" in fault(resp)
    resp = personas.call("ops", "PATCH", f"/v1/chassis/{chassis}", json=patch)
    assert resp.status_code == 200 and resp.json()["description"] == "rack 9"


def test_a_refused_requester_learns_nothing_of_which_chassis_exist(
    personas: BasicPersonas,
) -> None:
    """As Ironic, the rule is decided before the chassis is looked up: 403 whether the
    chassis exists or not."""
    missing = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    patch = [{"op": "add", "path": "/extra/a", "value": 1}]
    for method, json in (("GET", None), ("PATCH", patch), ("DELETE", None)):
        resp = personas.call("tenant", method, f"/v1/chassis/{missing}", json=json)
        assert resp.status_code == 403, (method, resp.text)
