"""Provision verbs whose steps go on after their request was answered: what becomes of the
node when a step fails unexpectedly or the operation loses its lease, and how the verbs are
counted. The conductor runs on the test's database (SQLite, PostgreSQL, MariaDB) without
HTTP; the neutron interface's hooks are replaced, so no Neutron is needed."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from metalwire.conductor import stuck_states
from metalwire.conductor.locks import NodeLocks
from metalwire.conductor.provision_states import ProvisionOptions
from metalwire.conductor.rpcapi import LocalConductorAPI
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import Node
from metalwire.db.node_locks import NodeLockRows
from metalwire.db.work import Work
from metalwire.errors import DatabaseFailure, TransactionConflict
from metalwire.networking.loader import NetworkInterfaces
from metalwire.networking.neutron import NeutronNetwork
from metalwire.networking.task import Task
from tests.conductor.conftest import NewNode, history_of
from tests.support.helpers import settled_node

CONTEXT = RequestContext()


def _available(conductor: Conductor, new_node: NewNode, name: str, interface: str) -> Node:
    node = new_node(name, interface=interface)
    with conductor.db.writing() as work:
        work.nodes.update(node.id, {"provision_state": "available"})
    return node


def _stored(conductor: Conductor, node: Node) -> Node:
    with conductor.db.reading() as work:
        found = work.nodes.find(node.id)
    assert found is not None
    return found


@pytest.fixture
def deploy_step(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Callable[[Task], None]]]:
    """The neutron interface with no Neutron: its deploy hooks do nothing, except the first
    (``add_provisioning_network``), which runs what the test puts in the list."""
    step: list[Callable[[Task], None]] = [lambda _task: None]
    monkeypatch.setattr(NeutronNetwork, "validate", lambda _self, _task: None)
    monkeypatch.setattr(NeutronNetwork, "add_provisioning_network", lambda _s, t: step[0](t))
    monkeypatch.setattr(NeutronNetwork, "remove_provisioning_network", lambda _s, _t: None)
    monkeypatch.setattr(NeutronNetwork, "configure_tenant_networks", lambda _s, _t: None)
    yield step


def test_an_unexpected_error_after_acceptance_fails_the_node_with_its_cause(
    conductor: Conductor,
    new_node: NewNode,
    deploy_step: list[Callable[[Task], None]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    node = _available(conductor, new_node, "n1", "neutron")

    def broken_answer(_task: Task) -> None:
        raise KeyError("binding:profile")

    deploy_step[0] = broken_answer
    api = LocalConductorAPI(conductor)
    with caplog.at_level(logging.ERROR):
        api.do_provisioning_action(CONTEXT, node.uuid, "active")  # accepted: returns
        assert api.wait_for_background(10) == []
    stored = _stored(conductor, node)
    assert stored.provision_state == "deploy failed"
    assert stored.target_provision_state == "active"  # a failure state keeps its target
    assert stored.last_error == "unexpected error: KeyError: 'binding:profile'"
    assert stored.reservation is None
    assert "active failed: unexpected error: KeyError: 'binding:profile'" in history_of(
        conductor, node
    )
    assert "active failed unexpectedly" in caplog.text  # with its traceback, for the bug


def test_through_the_api_the_deploy_answers_202_and_the_node_shows_the_failure(
    client: TestClient, deploy_step: list[Callable[[Task], None]]
) -> None:
    headers = {"X-OpenStack-Ironic-API-Version": "1.115"}
    body = {"driver": "fake-hardware", "name": "n2", "network_interface": "neutron"}
    node = client.post("/v1/nodes", json=body, headers=headers).json()["uuid"]
    for verb in ("manage", "provide"):
        put = {"target": verb}
        moved = client.put(f"/v1/nodes/{node}/states/provision", json=put, headers=headers)
        assert moved.status_code == 202, moved.text
        settled_node(lambda: client.get(f"/v1/nodes/{node}", headers=headers).json())

    def broken_answer(_task: Task) -> None:
        raise KeyError("binding:profile")

    deploy_step[0] = broken_answer
    deploy = {"target": "active"}
    accepted = client.put(f"/v1/nodes/{node}/states/provision", json=deploy, headers=headers)
    assert accepted.status_code == 202, accepted.text
    shown = settled_node(lambda: client.get(f"/v1/nodes/{node}", headers=headers).json())
    assert shown["provision_state"] == "deploy failed"
    assert shown["last_error"] == "unexpected error: KeyError: 'binding:profile'"
    # The failure is shown first and the lease released by a commit of its own, as Ironic
    # writes the state before it releases the reservation.
    deadline = time.monotonic() + 10
    while shown["reservation"] is not None and time.monotonic() < deadline:
        time.sleep(0.05)
        shown = client.get(f"/v1/nodes/{node}", headers=headers).json()
    assert shown["reservation"] is None


def test_an_unexpected_error_on_a_one_transaction_node_leaves_it_as_it_was(
    conductor: Conductor, new_node: NewNode, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = _available(conductor, new_node, "n1", "noop")

    def broken(_self: object, _task: Task) -> None:
        raise KeyError("oops")

    interface = type(conductor.network_interface(node))
    monkeypatch.setattr(interface, "configure_tenant_networks", broken)
    with pytest.raises(KeyError):
        LocalConductorAPI(conductor).do_provisioning_action(CONTEXT, node.uuid, "active")
    stored = _stored(conductor, node)
    assert (stored.provision_state, stored.target_provision_state) == ("available", None)


def test_an_operation_whose_lease_was_taken_stores_nothing_more(
    conductor: Conductor,
    new_node: NewNode,
    deploy_step: list[Callable[[Task], None]],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The lease cannot be renewed (a database that refuses the renewals), runs out, and
    another process's provision check fails the node: the operation, when its step returns,
    must not overwrite that with ``active``."""
    node = _available(conductor, new_node, "n1", "neutron")
    in_step, go_on = threading.Event(), threading.Event()

    def held(_task: Task) -> None:
        in_step.set()
        assert go_on.wait(30)

    def refuse(*_args: object) -> None:
        raise DatabaseFailure("renewal refused")

    deploy_step[0] = held
    monkeypatch.setattr(NodeLockRows, "renew", refuse)
    api = LocalConductorAPI(conductor)
    api.do_provisioning_action(CONTEXT, node.uuid, "active")
    assert in_step.wait(10)
    time.sleep(conductor.locks.lease_seconds + 0.5)  # the lease ran out

    other_locks = NodeLocks(conductor.db, "other-host:2:beef", lease=2.0, wait=0.5)
    other = Conductor(
        db=conductor.db,
        config=conductor.config,
        interfaces=NetworkInterfaces(conductor.config),
        locks=other_locks,
    )
    try:
        assert stuck_states.fail_stuck_nodes(other, CONTEXT) == [node.uuid]
    finally:
        other_locks.release_all()
    failed = _stored(conductor, node)
    assert failed.provision_state == "deploy failed"

    with caplog.at_level(logging.ERROR, logger="metalwire.conductor.background"):
        go_on.set()
        assert api.wait_for_background(10) == []
    stored = _stored(conductor, node)
    assert stored.provision_state == "deploy failed"
    assert stored.last_error == failed.last_error
    assert stored.reservation is None
    assert not any(event.startswith("active done") for event in history_of(conductor, node))
    assert f"Node {node.label} was taken from this operation" in caplog.text


def test_a_verb_run_again_after_a_conflict_at_its_commit_is_counted_once(
    conductor: Conductor, new_node: NewNode, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = _available(conductor, new_node, "n1", "noop")
    labels = {"verb": "manage", "network_interface": "noop", "state": "manageable"}
    before = REGISTRY.get_sample_value("metalwire_provision_operations_total", labels) or 0.0
    commit = Work.before_commit
    refused: list[str] = []

    def refuse_once(work: Work) -> None:
        if not refused:  # as a Galera certification failure or a serialization failure
            refused.append("conflict")
            raise TransactionConflict("could not serialize access")
        commit(work)

    monkeypatch.setattr(Work, "before_commit", refuse_once)
    LocalConductorAPI(conductor).do_provisioning_action(CONTEXT, node.uuid, "manage")
    assert refused == ["conflict"]
    assert _stored(conductor, node).provision_state == "manageable"
    after = REGISTRY.get_sample_value("metalwire_provision_operations_total", labels)
    assert after == before + 1


def test_a_clean_step_the_node_does_not_offer_fails_a_leased_cleaning_before_its_network(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a node whose cleaning goes on after the answer (neutron), the refusal comes after
    the 202 too: the node lands in clean failed and no cleaning network was set up; a step
    the node offers runs through the cleaning network."""
    hooks: list[str] = []
    monkeypatch.setattr(NeutronNetwork, "validate", lambda _self, _task: None)
    for hook in ("add_cleaning_network", "remove_cleaning_network"):
        monkeypatch.setattr(NeutronNetwork, hook, lambda _s, _t, hook=hook: hooks.append(hook))
    headers = {"X-OpenStack-Ironic-API-Version": "1.115"}
    body = {"driver": "fake-hardware", "name": "n3", "network_interface": "neutron"}
    node = client.post("/v1/nodes", json=body, headers=headers).json()["uuid"]

    def clean(steps: list[dict[str, str]]) -> dict[str, object]:
        for put in ({"target": "manage"}, {"target": "clean", "clean_steps": steps}):
            moved = client.put(f"/v1/nodes/{node}/states/provision", json=put, headers=headers)
            assert moved.status_code == 202, moved.text
            shown = settled_node(lambda: client.get(f"/v1/nodes/{node}", headers=headers).json())
        return dict(shown)

    shown = clean([{"interface": "deploy", "step": "no_such_step"}])

    assert shown["provision_state"] == "clean failed"
    assert str(shown["last_error"]).startswith(f"Cannot clean node {node}: node does not support")
    assert hooks == []
    assert clean([{"interface": "vendor", "step": "log_passthrough"}])["last_error"] is None
    assert hooks == ["add_cleaning_network", "remove_cleaning_network"]


def _until(conductor: Conductor, node: Node, state: str) -> Node:
    """The node once it is in ``state`` with its lease given back (10 s at most)."""
    deadline = time.monotonic() + 10
    stored = _stored(conductor, node)
    while (stored.provision_state, stored.reservation) != (state, None):
        if time.monotonic() > deadline:
            break
        time.sleep(0.02)
        stored = _stored(conductor, node)
    return stored


def test_a_leased_node_pauses_holds_and_is_unheld_in_the_background(
    conductor: Conductor, new_node: NewNode, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a node held by a lease (neutron, its hooks replaced), the verb is answered once
    accepted; the wait step's pause and the hold hold no lease, and unhold runs the rest."""
    node = new_node("n1", interface="neutron")
    for hook in ("validate", "add_cleaning_network", "remove_cleaning_network"):
        monkeypatch.setattr(NeutronNetwork, hook, lambda _self, _task: None)
    steps = (
        {"interface": "deploy", "step": "wait", "args": {"seconds": 2}},
        {"interface": "deploy", "step": "hold"},
        {"interface": "power", "step": "power_off"},
    )
    api = LocalConductorAPI(conductor)
    began = time.monotonic()
    api.do_provisioning_action(CONTEXT, node.uuid, "clean", ProvisionOptions(steps=steps))
    assert time.monotonic() - began < 2  # answered before the pause ran out
    paused = _until(conductor, node, "clean wait")  # no lease while paused
    assert (paused.provision_state, paused.reservation) == ("clean wait", None)

    held = _until(conductor, node, "clean hold")
    assert (held.reservation, held.attrs["clean_step"]) == (None, steps[1])

    api.do_provisioning_action(CONTEXT, node.uuid, "unhold")
    done = _until(conductor, node, "manageable")
    assert (done.power_state, done.reservation) == ("power off", None)
    assert api.wait_for_background(10) == []
