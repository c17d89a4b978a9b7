"""The examples of states.md and history.md: node-5 taken through its provision states and
maintenance, and node-1's history of what the earlier examples did."""

from __future__ import annotations

from example_objects import NODE_5, PORT_5, VIF_DEPLOY
from example_recorder import Recorder


def record_states(r: Recorder) -> None:
    r.quiet(
        "POST",
        "/v1/ports",
        {"uuid": PORT_5, "node_uuid": NODE_5, "address": "52:54:00:50:00:01"},
        expect=201,
    )
    r.call("states-show", "GET", "/v1/nodes/node-5/states", expect=200)
    r.call(
        "states-manage",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "manage"},
        expect=202,
    )
    r.call(
        "states-provide",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "provide"},
        expect=202,
    )
    r.call(
        "states-wrong-state",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "provide"},
        expect=400,
    )
    r.quiet("POST", "/v1/nodes/node-5/vifs", {"id": VIF_DEPLOY}, expect=204)
    r.call(
        "states-verb-too-new",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "deploy"},
        expect=406,
        version="1.72",
    )
    r.call(
        "states-deploy",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "deploy"},
        expect=202,
    )
    r.call("states-show-active", "GET", "/v1/nodes/node-5/states", expect=200)
    r.call("node-delete-busy", "DELETE", "/v1/nodes/node-5", expect=409)
    r.call(
        "states-undeploy",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "undeploy"},
        expect=202,
    )
    r.call("states-vifs-after-undeploy", "GET", "/v1/nodes/node-5/vifs", expect=200)
    r.call(
        "states-unknown-target",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "adopt"},
        expect=400,
    )
    r.call(
        "maintenance-set",
        "PUT",
        "/v1/nodes/node-5/maintenance",
        {"reason": "replacing a DIMM"},
        expect=202,
    )
    r.call(
        "node-show-maintenance",
        "GET",
        "/v1/nodes/node-5?fields=uuid,maintenance,maintenance_reason",
        expect=200,
    )
    r.call("maintenance-unset", "DELETE", "/v1/nodes/node-5/maintenance", expect=202)


def record_history(r: Recorder) -> None:
    r.call("history-list", "GET", "/v1/nodes/node-1/history", expect=200)
    resp = r.call(
        "history-list-detail", "GET", "/v1/nodes/node-1/history?detail=true&limit=2", expect=200
    )
    first = resp.json()["history"][0]["uuid"]
    r.call("history-show", "GET", f"/v1/nodes/node-1/history/{first}", expect=200)
    r.call("history-below-1.78", "GET", "/v1/nodes/node-1/history", expect=404, version="1.77")
    r.call(
        "history-show-missing",
        "GET",
        "/v1/nodes/node-1/history/00000000-0000-4000-8000-000000000000",
        expect=404,
    )
