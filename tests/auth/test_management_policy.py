"""Who may read and set a node's boot device, change its boot mode and secure boot, and
list its BIOS settings and read and set its indicators.

Through a real ``metalwire serve`` with http_basic personas (``tests/auth/test_http_basic.py``):
``tenant`` is a member and reader of project-a, which owns node A; ``viewer`` a system reader;
``ops`` a system administrator. The rules are Ironic 39's: ``baremetal:node:get_boot_device``
and ``...:set_boot_device`` a system member or the owner's administrator;
``baremetal:node:set_boot_mode`` and ``...:set_secure_boot`` a system or project member;
``baremetal:node:bios:get`` and ``...:get_indicator_state`` a system or project reader;
``baremetal:node:set_indicator_state`` a system member or the owner's member.
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
    tmp_path = tmp_path_factory.mktemp("management-policy")
    with MetalwireServer(tmp_path / "data", env=_basic_env(tmp_path, PERSONAS_YAML)) as server:
        yield BasicPersonas(server)


@pytest.mark.parametrize(("user", "status"), [("ops", 200), ("tenant", 403), ("viewer", 403)])
def test_the_boot_device_is_for_system_members_and_owner_admins(
    personas: BasicPersonas, user: str, status: int
) -> None:
    base = f"/v1/nodes/{personas.node_a}/management/boot_device"
    for path in (base, f"{base}/supported"):
        resp = personas.call(user, "GET", path)
        assert resp.status_code == status, resp.text
    put = personas.call(user, "PUT", base, json={"boot_device": "pxe"})
    assert put.status_code == (204 if status == 200 else 403), put.text
    if status == 403:
        assert "baremetal:node:get_boot_device" in fault(resp)
        assert "baremetal:node:set_boot_device" in fault(put)


@pytest.mark.parametrize(("user", "status"), [("ops", 202), ("tenant", 202), ("viewer", 403)])
def test_a_member_changes_the_boot_mode_and_secure_boot_a_reader_may_not(
    personas: BasicPersonas, user: str, status: int
) -> None:
    for path, rule, target in (
        ("boot_mode", "baremetal:node:set_boot_mode", "uefi"),
        ("secure_boot", "baremetal:node:set_secure_boot", True),
    ):
        url = f"/v1/nodes/{personas.node_a}/states/{path}"
        resp = personas.call(user, "PUT", url, json={"target": target})
        assert resp.status_code == status, resp.text
        if status == 403:
            assert rule in fault(resp)


def test_another_projects_node_is_404(personas: BasicPersonas) -> None:
    node = personas.node_b
    for method, path, body in (
        ("GET", f"/v1/nodes/{node}/management/boot_device", None),
        ("PUT", f"/v1/nodes/{node}/states/boot_mode", {"target": "uefi"}),
    ):
        resp = personas.call("tenant", method, path, json=body)
        assert resp.status_code == 404
        assert node in fault(resp)


@pytest.mark.parametrize("user", ["ops", "viewer", "tenant"])
def test_whoever_reads_the_node_lists_its_bios_settings(personas: BasicPersonas, user: str) -> None:
    resp = personas.call(user, "GET", f"/v1/nodes/{personas.node_a}/bios")
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"bios": []}
    other = personas.call("tenant", "GET", f"/v1/nodes/{personas.node_b}/bios")
    assert other.status_code == 404


@pytest.mark.parametrize(("user", "status"), [("ops", 200), ("tenant", 200), ("viewer", 200)])
def test_a_reader_reads_the_indicators(personas: BasicPersonas, user: str, status: int) -> None:
    base = f"/v1/nodes/{personas.node_a}/management/indicators"
    for path in (base, f"{base}/led@system"):
        resp = personas.call(user, "GET", path)
        assert resp.status_code == status, resp.text


@pytest.mark.parametrize(("user", "status"), [("ops", 400), ("tenant", 400), ("viewer", 403)])
def test_a_member_may_ask_to_set_an_indicator_a_reader_may_not(
    personas: BasicPersonas, user: str, status: int
) -> None:
    # fake-hardware sets none: the refusal (400) comes after the policy let the member ask
    path = f"/v1/nodes/{personas.node_a}/management/indicators/led@system"
    resp = personas.call(user, "PUT", path, json={"state": "on"})
    assert resp.status_code == status, resp.text
    if status == 403:
        assert "baremetal:node:set_indicator_state" in fault(resp)
