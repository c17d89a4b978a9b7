"""The steps a provision state change gives to run have rules of their own, as Ironic's.

Through a real ``metalwire serve`` with http_basic personas and a policy file keeping
``baremetal:node:set_provision_state:service_steps`` and ``:clean_steps`` to system
administrators: ``tenant``, a member of the project owning node A, may change its provision
state but not give it steps.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import yaml

from tests.auth.test_http_basic import PERSONAS_YAML, BasicPersonas, _basic_env
from tests.conftest import fault
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.server

SYSTEM_ADMIN_ONLY = "role:admin and system_scope:all"
STEPS = [{"interface": "deploy", "step": "hold"}]


@pytest.fixture(scope="module")
def personas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BasicPersonas]:
    tmp_path = tmp_path_factory.mktemp("provision-steps")
    policy_file = tmp_path / "policy.yaml"
    rules = {
        f"baremetal:node:set_provision_state:{steps}": SYSTEM_ADMIN_ONLY
        for steps in ("clean_steps", "service_steps")
    }
    policy_file.write_text(yaml.safe_dump(rules))
    env = {
        **_basic_env(tmp_path, PERSONAS_YAML),
        "METALWIRE_OSLO_POLICY_POLICY_FILE": str(policy_file),
    }
    with MetalwireServer(tmp_path / "data", env=env) as server:
        yield BasicPersonas(server)


@pytest.mark.parametrize(
    ("target", "steps"), [("service", "service_steps"), ("clean", "clean_steps")]
)
def test_a_project_member_may_not_give_steps_the_policy_keeps_from_it(
    personas: BasicPersonas, target: str, steps: str
) -> None:
    body = {"target": target, steps: STEPS}
    path = f"/v1/nodes/{personas.node_a}/states/provision"

    resp = personas.call("tenant", "PUT", path, json=body)

    assert resp.status_code == 403, resp.text
    assert fault(resp) == (
        f"Access was denied to the following resource: baremetal:node:set_provision_state:{steps}"
    )
    node = personas.call("ops", "GET", f"/v1/nodes/{personas.node_a}").json()
    assert node["provision_state"] == "enroll"


def test_a_provision_state_change_without_steps_needs_only_its_own_rule(
    personas: BasicPersonas,
) -> None:
    path = f"/v1/nodes/{personas.node_b}/states/provision"
    resp = personas.call("ops", "PUT", path, json={"target": "manage"})
    assert resp.status_code == 202, resp.text
    own = f"/v1/nodes/{personas.node_a}/states/provision"
    resp = personas.call("tenant", "PUT", own, json={"target": "manage"})
    assert resp.status_code == 202, resp.text
