"""``POST /v1/events`` (1.54): the events Neutron's ironic notifier posts, through HTTP, as
Ironic 39 takes them: 204 without a body, a body its schema refuses 400 naming the member,
below 1.54 the handler's 404. Beyond Ironic: each event is logged naming the node that has
the port as a VIF, counted by name in the metrics, and put in that node's history; it
changes no attachment and waits for no node lock."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from metalwire.db.engine import Database
from tests.api.test_metrics import scrape, value
from tests.conftest import Api, fault

PORT_ID = "6f1a6a2c-54e4-4b68-9d8a-2b9b0e2d6c11"
NODE_UUID = "1be26c0b-03f2-4d2d-ae87-c02d7f33c123"
INSTANCE = "f7d6f0a3-7c2e-4b7e-9c1d-4f1f5c9e3a21"


def neutron_event(event: str = "network.bind_port", **changes: Any) -> dict[str, Any]:
    """An event as Neutron's notifier sends it (members with an empty value left out)."""
    sent = {
        "event": event,
        "port_id": PORT_ID,
        "mac_address": "52:54:00:e7:00:01",
        "status": "ACTIVE",
        "device_id": INSTANCE,
        "binding:host_id": NODE_UUID,
        "binding:vnic_type": "baremetal",
    }
    sent.update(changes)
    return {key: value for key, value in sent.items() if value is not ...}


def test_a_batch_of_each_neutron_event_is_received_with_204_and_no_body(api: Api) -> None:
    events = [
        neutron_event("network.bind_port"),
        neutron_event("network.unbind_port", status="DOWN"),
        neutron_event(
            "network.delete_port", status="DELETED", device_id=..., **{"binding:host_id": ...}
        ),
    ]
    resp = api.post("/v1/events", {"events": events}, version="1.54")
    assert resp.status_code == 204, resp.text
    assert resp.content == b""
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.54"
    assert api.post("/v1/events", {"events": events[:1]}).status_code == 204  # latest


def test_null_device_host_and_vnic_type_are_taken(api: Api) -> None:
    event = neutron_event(device_id=None, **{"binding:host_id": None, "binding:vnic_type": None})
    assert api.post("/v1/events", {"events": [event]}).status_code == 204


def test_below_1_54_the_handler_answers_404_with_the_version_it_needs(api: Api) -> None:
    resp = api.post("/v1/events", {"events": [neutron_event()]}, version="1.53")
    assert resp.status_code == 404, resp.text
    assert "it exists from 1.54" in fault(resp)
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.53"  # the handler's answer


def test_the_v1_root_links_events_from_1_54(api: Api) -> None:
    assert "events" not in api.get("/v1/", version="1.53").json()
    links = api.get("/v1/", version="1.54").json()["events"]
    assert [link["rel"] for link in links] == ["self", "bookmark"]
    assert links[0]["href"].endswith("/v1/events/")


def test_events_are_only_posted(api: Api) -> None:
    assert api.get("/v1/events").status_code == 405


BAD_BODIES = [
    pytest.param(None, "must be a JSON object", id="no body"),
    pytest.param([neutron_event()], "must be a JSON object", id="a list"),
    pytest.param({}, "Missing member events", id="no events"),
    pytest.param({"events": []}, "Invalid events []", id="empty list"),
    pytest.param({"events": neutron_event()}, "expected a list", id="events an object"),
    pytest.param(
        {"events": [neutron_event()], "more": 1}, "Unknown member(s) more", id="extra member"
    ),
    pytest.param({"events": ["network.bind_port"]}, "Invalid events/0", id="event a string"),
    pytest.param(
        {"events": [neutron_event(), neutron_event("network.update_port")]},
        "Unknown event 'network.update_port' in events/1/event",
        id="unknown event",
    ),
    pytest.param(
        {"events": [neutron_event(port_id="not-a-uuid")]},
        "events/0/port_id",
        id="port_id not a UUID",
    ),
    pytest.param({"events": [neutron_event(port_id=7)]}, "events/0/port_id", id="port_id a number"),
    pytest.param(
        {"events": [neutron_event(mac_address="52:54:00:e7:00")]},
        "events/0/mac_address",
        id="bad MAC",
    ),
    pytest.param(
        {"events": [neutron_event(device_id="instance-1")]},
        "events/0/device_id",
        id="device_id not a UUID",
    ),
    pytest.param(
        {"events": [neutron_event(**{"binding:host_id": "compute-1"})]},
        "events/0/binding:host_id",
        id="host_id not a UUID",
    ),
    pytest.param(
        {"events": [neutron_event(**{"binding:vnic_type": 1})]},
        "events/0/binding:vnic_type",
        id="vnic_type a number",
    ),
    pytest.param({"events": [neutron_event(status=None)]}, "events/0/status", id="status null"),
    pytest.param(
        {"events": [neutron_event(status=...)]},
        "Missing member(s) status in events/0",
        id="no status",
    ),
    pytest.param(
        {"events": [neutron_event(port_id=..., mac_address=...)]},
        "Missing member(s) port_id, mac_address in events/0",
        id="no port_id and MAC",
    ),
    pytest.param(
        {"events": [neutron_event(network_id=PORT_ID)]},
        "Unknown member(s) network_id in events/0",
        id="extra member of an event",
    ),
]


@pytest.mark.parametrize(("body", "named"), BAD_BODIES)
def test_a_body_ironic_s_schema_refuses_is_400_naming_the_member(
    api: Api, body: Any, named: str
) -> None:
    resp = api.post("/v1/events", body)
    assert resp.status_code == 400, resp.text
    assert named in fault(resp)


def test_ironic_s_other_spellings_of_a_uuid_and_a_mac_are_taken(api: Api) -> None:
    event = neutron_event(port_id=PORT_ID.upper().replace("-", ""), mac_address="52-54-00-E7-00-01")
    assert api.post("/v1/events", {"events": [event]}).status_code == 204


LOGGER = "metalwire.conductor.network_events"


def _node_with_vif(api: Api, name: str) -> dict[str, Any]:
    node = api.node(name=name)
    api.port(node, "52:54:00:e7:00:01")
    attached = api.post(f"/v1/nodes/{name}/vifs", {"id": PORT_ID})
    assert attached.status_code == 204, attached.text
    return node


def _post(api: Api, *events: dict[str, Any]) -> None:
    resp = api.post("/v1/events", {"events": list(events)}, version="1.54")
    assert resp.status_code == 204, resp.text


def test_an_event_is_logged_naming_the_node_that_has_the_port_as_a_vif(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    node = _node_with_vif(api, "ev-logged")
    other = "0b8e3e0e-5d3c-4c55-8f8e-5e8d1f3c4a10"
    with caplog.at_level(logging.INFO, logger=LOGGER):
        _post(
            api, neutron_event("network.unbind_port", status="DOWN"), neutron_event(port_id=other)
        )
    lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert lines == [
        f"Network event network.unbind_port for Neutron port {PORT_ID} (MAC 52:54:00:e7:00:01, "
        f"status DOWN): a VIF of node {node['uuid']} (ev-logged)",
        f"Network event network.bind_port for Neutron port {other} (MAC 52:54:00:e7:00:01, "
        "status ACTIVE): attached to no node",
    ]


def test_each_event_is_counted_by_its_name(api: Api) -> None:
    before = scrape(api.client)
    _post(api, neutron_event("network.delete_port", status="DELETED"), neutron_event())
    _post(api, neutron_event("network.delete_port", status="DELETED"))
    after = scrape(api.client)

    def counted(event: str) -> float:
        name = "metalwire_network_events_total"
        return value(after, name, event=event) - value(before, name, event=event)

    assert counted("network.delete_port") == 2
    assert counted("network.bind_port") == 1
    assert counted("network.unbind_port") == 0


def test_an_event_about_a_vif_goes_in_its_node_s_history_and_changes_nothing(api: Api) -> None:
    _node_with_vif(api, "ev-history")
    _post(api, neutron_event("network.delete_port", status="DELETED", device_id=...))

    entry = api.get("/v1/nodes/ev-history/history?detail=true").json()["history"][-1]
    assert entry["event_type"] == "network"
    assert entry["severity"] == "INFO"
    assert entry["event"] == (
        f"network.delete_port for Neutron port {PORT_ID} (MAC 52:54:00:e7:00:01, status DELETED)"
    )
    assert api.vifs("ev-history") == [PORT_ID]  # the drift audit repairs, not an event


def test_an_event_is_taken_while_another_process_holds_the_node(api: Api) -> None:
    _node_with_vif(api, "ev-busy")
    db: Database = api.client.app.state.services.db  # type: ignore[attr-defined]
    with db.writing() as work:
        node = work.nodes.get("ev-busy")
        lease = {"reservation": "other-process", "lock_expires_at": time.time() + 600}
        work.nodes.update(node.id, lease)
    assert api.get("/v1/nodes/ev-busy").json()["reservation"] == "other-process"

    began = time.monotonic()
    _post(api, neutron_event("network.unbind_port", status="DOWN"))
    assert time.monotonic() - began < 5  # [conductor] node_lock_wait is not waited
    events = [e["event"] for e in api.get("/v1/nodes/ev-busy/history").json()["history"]]
    assert events[-1].startswith("network.unbind_port for Neutron port")
