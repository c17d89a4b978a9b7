"""A deploy killed (SIGKILL) half-way: the node it left in ``deploying`` is failed to ``deploy
failed`` by the restarted service's provision check once the dead process's lease runs out,
with no client touching the node.

The node uses the ``neutron`` interface, whose deploy commits each step: Neutron (the suite's
HangingNeutron) does not answer the deploy's first change of the node's VIF, and the process
is killed there.
"""

from __future__ import annotations

import pytest

from tests.integration.neutron_deploys import NODE, Setup, call, settled

pytestmark = pytest.mark.server


def test_a_deploy_killed_half_way_ends_in_deploy_failed(deploys: Setup) -> None:
    server = deploys.server()
    deploys.available_node_with_a_vif(server)
    deploys.deploy_held_by_neutron(server)
    assert call(server, "GET", NODE).json()["provision_state"] == "deploying"

    server.kill()
    shown = settled(deploys.server())  # within the lease (3 s) and the checks' interval

    assert (shown["provision_state"], shown["target_provision_state"]) == (
        "deploy failed",
        "active",
    )
    assert "'deploying' was cut short" in shown["last_error"]
    history = call(deploys.servers[-1], "GET", f"{NODE}/history").json()["history"]
    assert history[-1]["severity"] == "ERROR"
    assert history[-1]["event"] == shown["last_error"]
