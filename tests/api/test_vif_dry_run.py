"""The dry-run attach through HTTP: ``POST /v1/nodes/{node}/vifs`` + ``X-Metalwire-Dry-Run``.

Each refusal reason the selection knows is shown on a node built for it, and every test
checks that nothing was written: no attachment, no history entry.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from metalwire.config import Config
from metalwire.db.engine import Database
from tests.conftest import Api, fault

DRY = {"X-Metalwire-Dry-Run": "true"}


def dry_run(api: Api, node: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    resp = api.client.post(f"/v1/nodes/{node}/vifs", json=body, headers={**api.headers(), **DRY})
    assert resp.status_code == status, resp.text
    return dict(resp.json())


def history(api: Api, node: str) -> list[dict[str, Any]]:
    resp = api.get(f"/v1/nodes/{node}/history?detail=true")
    assert resp.status_code == 200, resp.text
    return list(resp.json()["history"])


def refusals(answer: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    """uuid -> (reason code, busy VIF) of every refused target."""
    return {r["uuid"]: (r["reason"], r["vif"]) for r in answer["refused"]}


def ports_internal_info(api: Api, node: str) -> list[Any]:
    ports = api.get(f"/v1/nodes/{node}/ports/detail").json()["ports"]
    groups = api.get(f"/v1/nodes/{node}/portgroups/detail").json()["portgroups"]
    return [p["internal_info"] for p in [*ports, *groups]]


def test_dry_run_names_the_portgroup_and_why_no_other_target(api: Api) -> None:
    node = api.node(name="dry-bond")
    loose = api.port(node, "52:54:00:60:00:01")
    bond = api.portgroup(node, name="dry-bond0", address="52:54:00:60:00:10")
    members = [
        api.port(node, f"52:54:00:60:00:1{n}", portgroup_uuid=bond["uuid"], pxe_enabled=False)
        for n in (1, 2)
    ]
    empty = api.portgroup(node, name="dry-empty")
    before = history(api, "dry-bond")

    answer = dry_run(api, "dry-bond", {"id": "dry-vif"})

    assert answer["dry_run"] is True
    assert (answer["node_uuid"], answer["vif_id"]) == (node["uuid"], "dry-vif")
    assert answer["network_interface"] == "flat"
    assert answer["chooses_target"] is True
    assert answer["error"] is None
    assert answer["target"]["type"] == "portgroup"
    assert answer["target"]["uuid"] == bond["uuid"]
    assert answer["target"]["ports"] == [m["uuid"] for m in members]
    assert refusals(answer) == {
        loose["uuid"]: ("ranked_lower", None),
        members[0]["uuid"]: ("portgroup_member", None),
        members[1]["uuid"]: ("portgroup_member", None),
        empty["uuid"]: ("no_members", None),
    }
    by_uuid = {r["uuid"]: r for r in answer["refused"]}
    assert "portgroups come before ports" in by_uuid[loose["uuid"]]["message"]
    assert by_uuid[members[0]["uuid"]]["portgroup_uuid"] == bond["uuid"]
    # Nothing was written.
    assert api.vifs("dry-bond") == []
    assert history(api, "dry-bond") == before

    # The real attach goes where the dry run said.
    assert api.post("/v1/nodes/dry-bond/vifs", {"id": "dry-vif"}).status_code == 204
    shown = api.get(f"/v1/portgroups/{bond['uuid']}").json()
    assert shown["internal_info"]["tenant_vif_port_id"] == "dry-vif"


def test_dry_run_names_the_vif_that_keeps_each_target_busy(api: Api) -> None:
    node = api.node(name="dry-busy")
    port = api.port(node, "52:54:00:61:00:01")
    bond = api.portgroup(node, name="dry-busy0")
    member = api.port(node, "52:54:00:61:00:11", portgroup_uuid=bond["uuid"])
    assert (
        api.post(
            "/v1/nodes/dry-busy/vifs", {"id": "on-port", "port_uuid": port["uuid"]}
        ).status_code
        == 204
    )
    assert api.post("/v1/nodes/dry-busy/vifs", {"id": "on-bond"}).status_code == 204
    before = (
        history(api, "dry-busy"),
        sorted(api.vifs("dry-busy")),
        ports_internal_info(api, "dry-busy"),
    )

    answer = dry_run(api, "dry-busy", {"id": "third"})

    assert answer["target"] is None
    assert refusals(answer) == {
        port["uuid"]: ("busy", "on-port"),
        bond["uuid"]: ("busy", "on-bond"),
        member["uuid"]: ("portgroup_busy", "on-bond"),
    }
    # The error is word for word the one the attach answers.
    real = api.post("/v1/nodes/dry-busy/vifs", {"id": "third"})
    assert real.status_code == 400
    assert answer["error"] == {
        "code": 400,
        "type": "NoFreePhysicalPort",
        "message": fault(real),
    }
    after = (
        history(api, "dry-busy"),
        sorted(api.vifs("dry-busy")),
        ports_internal_info(api, "dry-busy"),
    )
    assert after[1:] == before[1:]
    assert len(after[0]) == len(before[0]) + 1  # the real attach's failure only


def test_dry_run_names_a_port_the_interface_cannot_use(api: Api) -> None:
    node = api.node(name="dry-smartnic")
    odd = api.port(node, "52:54:00:62:00:01", is_smartnic=True)
    good = api.port(node, "52:54:00:62:00:02")
    answer = dry_run(api, "dry-smartnic", {"id": "sn"})
    assert answer["target"]["uuid"] == good["uuid"]
    assert refusals(answer) == {odd["uuid"]: ("unusable", None)}
    assert "is_smartnic" in answer["refused"][0]["message"]


def test_dry_run_of_a_requested_target(api: Api) -> None:
    node = api.node(name="dry-ask")
    first = api.port(node, "52:54:00:63:00:01")
    second = api.port(node, "52:54:00:63:00:02", pxe_enabled=False)
    answer = dry_run(api, "dry-ask", {"id": "ask", "port_uuid": second["uuid"]})
    assert answer["target"]["uuid"] == second["uuid"]
    assert refusals(answer) == {first["uuid"]: ("not_requested", None)}

    assert (
        api.post(
            "/v1/nodes/dry-ask/vifs", {"id": "holder", "port_uuid": second["uuid"]}
        ).status_code
        == 204
    )
    refused = dry_run(api, "dry-ask", {"id": "ask", "port_uuid": second["uuid"]})
    assert refused["target"] is None
    assert refused["error"]["type"] == "Invalid"
    assert f"Unable to attach VIF ask to port {second['uuid']}" in refused["error"]["message"]
    assert refusals(refused)[second["uuid"]] == ("busy", "holder")


def test_dry_run_answers_as_the_attach_before_it_chooses(api: Api) -> None:
    node = api.node(name="dry-errors")
    api.port(node, "52:54:00:64:00:01")
    assert api.post("/v1/nodes/dry-errors/vifs", {"id": "taken"}).status_code == 204
    again = dry_run(api, "dry-errors", {"id": "taken"}, status=409)
    assert "already attached" in fault_of(again)
    missing = dry_run(api, "no-such-node", {"id": "x"}, status=404)
    assert "no-such-node" in fault_of(missing)
    bad = dry_run(api, "dry-errors", {"id": "has space"}, status=400)
    assert "Invalid VIF id" in fault_of(bad)


def fault_of(body: dict[str, Any]) -> str:
    return str(json.loads(body["error_message"])["faultstring"])


@pytest.mark.parametrize("value", ["yes", "1", ""])
def test_a_dry_run_header_not_true_or_false_is_400_naming_it(api: Api, value: str) -> None:
    node = api.node(name=f"dry-header-{len(value)}")
    api.port(node, f"52:54:00:65:00:0{len(value)}")
    resp = api.client.post(
        f"/v1/nodes/{node['name']}/vifs",
        json={"id": "h"},
        headers={**api.headers(), "X-Metalwire-Dry-Run": value},
    )
    assert resp.status_code == 400
    assert "X-Metalwire-Dry-Run" in fault(resp)
    assert api.vifs(node["name"]) == []


def test_dry_run_false_is_the_ordinary_attach(api: Api) -> None:
    node = api.node(name="dry-false")
    api.port(node, "52:54:00:66:00:01")
    resp = api.client.post(
        "/v1/nodes/dry-false/vifs",
        json={"id": "real"},
        headers={**api.headers(), "X-Metalwire-Dry-Run": "false"},
    )
    assert resp.status_code == 204
    assert api.vifs("dry-false") == ["real"]


def test_dry_run_takes_no_node_lock(api: Api, config: Config) -> None:
    """A node locked by another process still gets an answer at once: a dry run only reads."""
    node = api.node(name="dry-locked")
    port = api.port(node, "52:54:00:67:00:01")
    db = Database(config.database_url())
    try:
        with db.writing() as work:
            node_id = work.nodes.find(node["uuid"]).id  # type: ignore[union-attr]
            assert work.node_locks.try_acquire(node_id, "elsewhere:1:x", time.time(), 600)
        # An operation that wanted the lock would wait node_lock_wait seconds, then 409.
        answer = dry_run(api, "dry-locked", {"id": "while-locked"})
        assert answer["target"]["uuid"] == port["uuid"]
        with db.reading() as work:
            assert work.nodes.find(node_id).reservation == "elsewhere:1:x"  # type: ignore[union-attr]
    finally:
        with db.writing() as work:
            work.node_locks.release(node_id, "elsewhere:1:x")
        db.dispose()
    assert api.vifs("dry-locked") == []


def test_dry_run_on_a_noop_node_says_no_target_is_chosen(api: Api) -> None:
    api.port(api.node(name="dry-noop", network_interface="noop"), "52:54:00:68:00:01")
    answer = dry_run(api, "dry-noop", {"id": "n"})
    assert answer["chooses_target"] is False
    assert (answer["target"], answer["error"], answer["refused"]) == (None, None, [])
