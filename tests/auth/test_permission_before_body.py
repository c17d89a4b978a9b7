"""A change the requester may not make is refused before its body is read.

Through a real ``metalwire serve`` (http_basic with personas, ``[api] body_timeout`` 5 s): the
request head announces a body that never comes. A requester who may not see the object gets
its 404, one who may see but not change it its 403, at once, not after the body deadline;
a requester who may change it is still waited for, and served once the body arrives.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator

import pytest

from tests.api.test_hostile_clients import raw_exchange, status_and_fault
from tests.auth.test_http_basic import PERSONAS_YAML, BasicPersonas, _basic_env
from tests.conftest import LATEST
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

BODY_TIMEOUT = 5.0


@pytest.fixture(scope="module")
def personas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BasicPersonas]:
    tmp_path = tmp_path_factory.mktemp("before-body")
    env = {**_basic_env(tmp_path, PERSONAS_YAML), "METALWIRE_API_BODY_TIMEOUT": str(BODY_TIMEOUT)}
    with MetalwireServer(tmp_path / "data", env=env) as server:
        yield BasicPersonas(server)


def _credentials(user: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{user}-pw".encode()).decode()


def _answer_to_head_only(server: MetalwireServer, user: str, path: str) -> tuple[int, str, float]:
    """PATCH ``path`` announcing a 200-byte body and sending none: (status, fault, seconds)."""
    head = (
        f"PATCH {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: {_credentials(user)}\r\nX-OpenStack-Ironic-API-Version: {LATEST}\r\n"
        "Content-Length: 200\r\n\r\n"
    ).encode()
    began = time.monotonic()
    answer = raw_exchange(server.port, head, timeout=BODY_TIMEOUT + 5)
    status, fault = status_and_fault(answer)
    return status, fault, time.monotonic() - began


def _targets(personas: BasicPersonas) -> dict[str, str]:
    ops = "ops"
    port_b = personas.call(
        ops,
        "POST",
        "/v1/ports",
        json={"node_uuid": personas.node_b, "address": "52:54:00:00:0b:01"},
    ).json()["uuid"]
    group_b = personas.call(ops, "POST", "/v1/portgroups", json={"node_uuid": personas.node_b})
    assert group_b.status_code == 201, group_b.text
    port_a = personas.call(ops, "GET", f"/v1/nodes/{personas.node_a}/ports").json()["ports"][0]
    return {
        "node_b": personas.node_b,
        "port_b": port_b,
        "group_b": group_b.json()["uuid"],
        "port_a": port_a["uuid"],
    }


@pytest.fixture(scope="module")
def targets(personas: BasicPersonas) -> dict[str, str]:
    return _targets(personas)


@pytest.mark.parametrize(
    ("user", "path", "status", "fault"),
    [
        ("tenant", "/v1/nodes/{node_b}", 404, "Node {node_b} could not be found."),
        ("tenant", "/v1/ports/{port_b}", 404, "Port {port_b} could not be found."),
        ("tenant", "/v1/portgroups/{group_b}", 404, "Portgroup {group_b} could not be found."),
        (
            "viewer",
            "/v1/ports/{port_a}",
            403,
            "Access was denied to the following resource: baremetal:port:update",
        ),
        (
            "viewer",
            "/v1/portgroups/{group_b}",
            403,
            "Access was denied to the following resource: baremetal:portgroup:update",
        ),
    ],
    ids=[
        "another project's node",
        "another project's port",
        "another project's portgroup",
        "a reader's port patch",
        "a reader's portgroup patch",
    ],
)
def test_a_refused_patch_is_answered_before_its_body_arrives(
    personas: BasicPersonas,
    targets: dict[str, str],
    user: str,
    path: str,
    status: int,
    fault: str,
) -> None:
    answer = _answer_to_head_only(personas.server, user, path.format(**targets))
    assert answer[:2] == (status, fault.format(**targets))
    assert answer[2] < BODY_TIMEOUT / 2, f"answered after {answer[2]:.1f} s"


def test_a_permitted_patch_still_waits_for_its_body(
    personas: BasicPersonas, targets: dict[str, str]
) -> None:
    status, fault, seconds = _answer_to_head_only(
        personas.server, "ops", f"/v1/ports/{targets['port_a']}"
    )
    assert status == 408 and "body_timeout" in fault
    assert seconds >= BODY_TIMEOUT * 0.8
    patch = [{"op": "add", "path": "/extra/checked", "value": "yes"}]
    done = personas.call("ops", "PATCH", f"/v1/ports/{targets['port_a']}", json=patch)
    assert done.status_code == 200 and done.json()["extra"]["checked"] == "yes"
