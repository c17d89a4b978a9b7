"""The examples of versions.md, errors.md and events.md: version negotiation, the error
bodies, and an event as Neutron posts it."""

from __future__ import annotations

from example_recorder import Recorder

from metalwire.api_versions import MAX_MINOR


def record_versions(r: Recorder) -> None:
    r.call("versions-root", "GET", "/", expect=200, version=None)
    r.call("versions-v1", "GET", "/v1/", expect=200, version="latest")
    r.call("versions-v1-default", "GET", "/v1/", expect=200, version=None)
    r.call(
        "versions-generic-header",
        "GET",
        "/v1/",
        expect=200,
        version=None,
        headers={"OpenStack-API-Version": "baremetal 1.28"},
    )
    r.call("versions-unsupported", "GET", "/v1/nodes", expect=406, version=f"1.{MAX_MINOR + 1}")
    r.call("versions-malformed", "GET", "/v1/nodes", expect=406, version="1.x")


def record_errors(r: Recorder) -> None:
    r.call("error-method-not-allowed", "PUT", "/v1/nodes", {"driver": "x"}, expect=405)
    r.call("error-unknown-path", "GET", "/v1/widgets", expect=404)
    r.call("error-malformed-json", "POST", "/v1/nodes", raw='{"driver": ', expect=400)
    r.call("error-bad-limit", "GET", "/v1/nodes?limit=ten", expect=400)
    r.call("error-bad-sort-key", "GET", "/v1/nodes?sort_key=driver_info", expect=400)
    r.call("error-detail-too-old", "GET", "/v1/nodes?detail=true", expect=400, version="1.42")


def record_events(r: Recorder) -> None:
    deleted = {
        "event": "network.delete_port",
        "port_id": "6f1a6a2c-54e4-4b68-9d8a-2b9b0e2d6c11",
        "mac_address": "52:54:00:e7:00:01",
        "status": "DELETED",
        "device_id": "f7d6f0a3-7c2e-4b7e-9c1d-4f1f5c9e3a21",
        "binding:host_id": "1be26c0b-03f2-4d2d-ae87-c02d7f33c123",
        "binding:vnic_type": "baremetal",
    }
    r.call("events-post", "POST", "/v1/events", {"events": [deleted]}, expect=204, version="1.54")
    bad = {"events": [{**deleted, "port_id": "not-a-uuid"}]}
    r.call("events-bad-port-id", "POST", "/v1/events", bad, expect=400, version="1.54")
