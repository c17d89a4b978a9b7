"""Pure rules of the client: backoff, version choice, error classes, patch paths (no server)."""

from __future__ import annotations

import json

import httpx
import pytest

from metalwire.client import (
    APIVersion,
    BadRequest,
    Conflict,
    Forbidden,
    HTTPError,
    NodeLocked,
    NotAcceptable,
    NotFound,
    RetryPolicy,
    ServerError,
    ServiceUnavailable,
    Unauthorized,
    VersionNegotiationError,
    VifAlreadyAttached,
    patch,
)
from metalwire.client.exceptions import error_class, parse_fault
from metalwire.client.retry import backoff_delay, retry_after
from metalwire.client.versions import LATEST_VERSION, choose_version

V = APIVersion.parse


def test_backoff_doubles_up_to_the_cap_without_jitter() -> None:
    policy = RetryPolicy(backoff_base=0.5, backoff_max=3.0, jitter=False)
    assert [backoff_delay(n, policy) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert backoff_delay(10_000, policy) == 3.0


def test_jitter_stays_between_half_and_all_of_the_delay() -> None:
    policy = RetryPolicy(backoff_base=1.0, backoff_max=100.0)
    assert backoff_delay(3, policy, rand=lambda: 0.0) == 2.0
    assert backoff_delay(3, policy, rand=lambda: 0.999) == pytest.approx(3.998)
    delays = {backoff_delay(2, policy) for _ in range(50)}
    assert len(delays) > 1 and all(1.0 <= d <= 2.0 for d in delays)


def test_bad_retry_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        backoff_delay(0, RetryPolicy())
    with pytest.raises(ValueError):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError):
        RetryPolicy(backoff_base=-0.1)


def test_retry_after_header() -> None:
    policy = RetryPolicy(backoff_max=5.0)
    assert retry_after("2", policy) == 2.0
    assert retry_after("120", policy) == 5.0
    assert retry_after(None, policy) is None
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", policy) is None
    assert retry_after("-1", policy) is None


def test_which_failures_a_policy_retries() -> None:
    policy = RetryPolicy(unavailable=False)
    assert policy.allows("connect") and policy.allows("node_locked")
    assert not policy.allows("unavailable")
    assert not policy.allows("already_attached")


def test_versions_parse_and_order_numerically() -> None:
    assert V("1.9") < V("1.10") < V("1.78") < V("2.0")
    assert str(V(" 1.78 ")) == "1.78"
    for bad in ("1", "1.x", "latest", "", "1.2.3"):
        with pytest.raises(ValueError):
            V(bad)


def test_choose_version() -> None:
    assert choose_version(V("1.1"), V("1.78")) == V("1.78")
    assert choose_version(V("1.1"), V("1.120")) == LATEST_VERSION  # the client's newest
    assert choose_version(V("1.1"), V("1.40")) == V("1.40")  # an older server
    assert choose_version(V("1.1"), V("1.78"), pinned=V("1.31")) == V("1.31")
    assert choose_version(V("1.1"), V("1.90"), pinned=V("1.85")) == V("1.85")
    with pytest.raises(VersionNegotiationError, match=r"1\.80 was requested.*1\.1 to 1\.78"):
        choose_version(V("1.1"), V("1.78"), pinned=V("1.80"))
    with pytest.raises(VersionNegotiationError, match="No API version in common"):
        choose_version(V("1.120"), V("1.130"))


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        (400, "No free port", BadRequest),
        (404, "Node x could not be found.", NotFound),
        (406, "Version 1.99 was requested", NotAcceptable),
        (409, "Node n1 is locked by host c1, please retry after the current operation", NodeLocked),
        (409, "Unable to attach VIF v: it is already attached to node n1.", VifAlreadyAttached),
        (409, "Unable to attach VIF v, it is already attached to port p", VifAlreadyAttached),
        (409, "A port with MAC address 52:54:00:00:00:01 already exists.", Conflict),
        (500, "boom", ServerError),
        (502, "bad gateway", ServerError),
        (503, "Neutron is unreachable", ServiceUnavailable),
        (401, "Invalid HTTP basic credentials.", Unauthorized),
        (403, "Access was denied to the following resource: baremetal:node:get", Forbidden),
        (405, "Method Not Allowed", HTTPError),
    ],
)
def test_error_class_by_status_and_message(
    status: int, message: str, expected: type[HTTPError]
) -> None:
    assert error_class(status, message) is expected


def _response(status: int, **kw: object) -> httpx.Response:
    return httpx.Response(status, request=httpx.Request("GET", "http://x/v1/nodes"), **kw)  # type: ignore[arg-type]


def test_parse_fault_reads_every_error_body_shape() -> None:
    inner = json.dumps({"faultcode": "Client", "faultstring": "Nope.", "debuginfo": "tb"})
    assert parse_fault(_response(400, json={"error_message": inner})) == ("Nope.", "tb")
    assert parse_fault(_response(400, json={"error_message": {"faultstring": "Dict."}})) == (
        "Dict.",
        None,
    )
    assert parse_fault(_response(400, json={"error_message": "plain text"})) == (
        "plain text",
        None,
    )
    assert parse_fault(_response(502, text="<html>Bad Gateway</html>")) == (
        "<html>Bad Gateway</html>",
        None,
    )
    assert parse_fault(_response(504)) == ("Gateway Timeout", None)


def test_parse_fault_reads_the_routing_error_body() -> None:
    inner = json.dumps({"code": 404, "title": "Not Found", "description": "No such path."})
    assert parse_fault(_response(404, json={"error_message": inner})) == ("No such path.", None)


def test_patch_helpers() -> None:
    assert patch.add("name", "n") == {"op": "add", "path": "/name", "value": "n"}
    assert patch.replace("/extra/a", 1) == {"op": "replace", "path": "/extra/a", "value": 1}
    assert patch.remove("properties/cpus") == {"op": "remove", "path": "/properties/cpus"}
    assert patch.set_fields({"a": 1, "b/c": 2}) == [patch.add("/a", 1), patch.add("/b/c", 2)]
    assert patch.unset_fields(["a"]) == [patch.remove("/a")]
    assert patch.pointer("extra", "a/b", "c~d") == "/extra/a~1b/c~0d"
    with pytest.raises(ValueError):
        patch.pointer()
