"""The examples of versions.md and errors.md: version negotiation and the error bodies."""

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
