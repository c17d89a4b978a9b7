"""The comparison rules of the differential tier, on answers written out by hand."""

from __future__ import annotations

import json
from typing import Any

from tests.differential.allowed import Allowed, explain
from tests.differential.shapes import Answer, Difference, differences, shape_of

NODE = "1be26c0e-0000-4000-8000-000000000001"


def answer(status: int, body: Any, labels: dict[str, str] | None = None) -> Answer:
    return Answer(status, json.dumps(body), shape_of(body, labels or {}))


def test_texts_become_types_and_known_uuids_their_labels() -> None:
    body = {"uuid": NODE, "name": "a", "extra": {"n": 1, "ok": True}, "owner": None}
    assert shape_of(body, {NODE: "n1"}) == {
        "uuid": "<n1>",
        "name": "str",
        "extra": {"n": "number=1", "ok": "bool=True"},
        "owner": "null",
    }


def test_provision_states_are_compared_by_value() -> None:
    ironic = {"provision_state": "manageable", "target_provision_state": None, "name": "a"}
    metalwire = {"provision_state": "available", "target_provision_state": None, "name": "b"}
    found = differences("after undeploy", answer(200, ironic), answer(200, metalwire))
    assert [str(d) for d in found] == [
        "after undeploy: body.provision_state: ironic provision_state=manageable, "
        "metalwire provision_state=available"
    ]
    assert differences("same", answer(200, ironic), answer(200, dict(ironic))) == []


def test_a_conductor_s_liveness_is_compared_by_type_only() -> None:
    """Whether a conductor is alive depends on the timing of its heartbeat."""
    found = differences("show", answer(200, {"alive": False}), answer(200, {"alive": True}))
    assert found == []


def test_an_error_message_is_compared_by_the_shape_of_its_json() -> None:
    fault = {"faultcode": "Client", "faultstring": "x", "debuginfo": None}
    routing = {"code": 404, "title": "Not Found", "description": "x"}
    found = differences(
        "show",
        answer(404, {"error_message": json.dumps(fault)}),
        answer(404, {"error_message": json.dumps(routing)}),
    )
    assert [d.where for d in found] == [
        f"show: body.error_message.<json>.{key}"
        for key in ("code", "debuginfo", "description", "faultcode", "faultstring", "title")
    ]


def test_a_status_difference_hides_the_bodies() -> None:
    found = differences("create", answer(406, {"a": 1}), answer(400, {"b": 1}))
    assert [d.where for d in found] == ["create: status"]
    assert "ironic 406" in found[0].detail and "metalwire 400" in found[0].detail


def test_missing_keys_list_lengths_and_other_objects_are_found() -> None:
    other = "1be26c0e-0000-4000-8000-000000000002"
    labels = {NODE: "n1", other: "n2"}
    ironic = answer(200, {"nodes": [{"uuid": NODE, "shard": None}]}, labels)
    metalwire = answer(200, {"nodes": [{"uuid": other}, {"uuid": NODE}]}, labels)
    assert [str(d) for d in differences("list", ironic, metalwire)] == [
        "list: body.nodes: ironic has 1 items, metalwire 2",
        "list: body.nodes.0.shard: only in ironic",
        "list: body.nodes.0.uuid: ironic <n1>, metalwire <n2>",
    ]


def test_undeclared_and_no_longer_seen_differences_are_both_reported() -> None:
    declared = (
        Allowed(("s",), "show: body.volume", "not served"),
        Allowed(("s",), "list: status", "fixed since"),
        Allowed(("s",), "show: body.volume", "only at 1.78", ("1.78",)),
        Allowed(("other",), "show: body.chassis", "another scenario"),
    )
    found = [Difference("show: body.volume", "only in ironic")]
    found.append(Difference("show: body.chassis", "only in ironic"))
    unexplained, stale = explain("s", "1.115", found, declared)
    assert [d.where for d in unexplained] == ["show: body.chassis"]
    assert [a.reason for a in stale] == ["fixed since"]
