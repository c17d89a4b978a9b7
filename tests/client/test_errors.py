"""Errors carry the server's status, faultstring and request id; connection failures."""

from __future__ import annotations

import re

import httpx
import pytest

from metalwire.client import (
    APIConnectionError,
    BadRequest,
    Client,
    Conflict,
    HTTPError,
    NodeLocked,
    NotFound,
    RetryEvent,
    RetryPolicy,
    VifAlreadyAttached,
)
from tests.client.util import unique
from tests.support.server import MetalwireServer, free_port

REQUEST_ID = re.compile(r"^req-[0-9a-f-]{36}$")


def test_not_found_carries_faultstring_and_request_id(mw: Client, server: MetalwireServer) -> None:
    ghost = unique("ghost")
    with pytest.raises(NotFound) as caught:
        mw.get_node(ghost)
    error = caught.value
    assert error.status_code == 404
    assert error.faultstring == f"Node {ghost} could not be found."
    assert REQUEST_ID.match(error.request_id or "")
    assert error.method == "GET"
    assert error.url == f"{server.url}/v1/nodes/{ghost}"
    assert str(error) == f"{error.faultstring} (HTTP 404) (Request-ID: {error.request_id})"
    assert mw.last_request_id == error.request_id


def test_each_failure_has_its_own_request_id(mw: Client) -> None:
    ids = set()
    for _ in range(3):
        with pytest.raises(NotFound) as caught:
            mw.get_port("11111111-2222-3333-4444-555555555555")
        ids.add(caught.value.request_id)
    assert len(ids) == 3


def test_bad_request_and_plain_conflict(mw: Client) -> None:
    with pytest.raises(BadRequest) as bad:
        mw.create_node("no-such-driver")
    assert "no-such-driver" in bad.value.faultstring
    assert REQUEST_ID.match(bad.value.request_id or "")

    name = unique("dup")
    mw.create_node("fake-hardware", name=name)
    with pytest.raises(Conflict) as dup:
        mw.create_node("fake-hardware", name=name)
    assert type(dup.value) is Conflict  # neither NodeLocked nor VifAlreadyAttached
    assert not isinstance(dup.value, NodeLocked | VifAlreadyAttached)
    assert isinstance(dup.value, HTTPError)


def test_connection_refused_is_a_connection_error_retried_per_policy() -> None:
    events: list[RetryEvent] = []
    slept: list[float] = []
    url = f"http://127.0.0.1:{free_port()}"
    policy = RetryPolicy(max_retries=2, backoff_base=0.1, on_retry=events.append)
    with (
        Client(url, retry=policy, sleep=slept.append) as client,
        pytest.raises(APIConnectionError) as caught,
    ):
        client.list_nodes()
    assert caught.value.sent is False
    assert caught.value.url == f"{url}/"
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert [e.reason for e in events] == ["connect", "connect"]
    assert [e.retry for e in events] == [1, 2]
    assert slept == [e.delay for e in events]
    assert 0.05 <= slept[0] <= 0.1 and 0.1 <= slept[1] <= 0.2


def test_credentials_in_the_url_are_sent_but_never_shown(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[httpx.Request] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    policy = RetryPolicy(max_retries=1, backoff_base=0.01)
    url = "http://admin:cl1ent-s3cret@127.0.0.1:6385"
    caplog.set_level("DEBUG")
    with (
        Client(url, retry=policy, transport=httpx.MockTransport(refuse)) as client,
        pytest.raises(APIConnectionError) as caught,
    ):
        client.list_nodes()
    assert str(caught.value).startswith("Cannot reach http://127.0.0.1:6385/")
    assert "s3cret" not in str(caught.value) + caught.value.url + caplog.text
    assert (
        seen[0].headers["Authorization"] == httpx.BasicAuth("admin", "cl1ent-s3cret")._auth_header
    )


def test_connection_retries_can_be_switched_off() -> None:
    events: list[RetryEvent] = []
    policy = RetryPolicy(connect_errors=False, on_retry=events.append)
    with (
        Client(f"http://127.0.0.1:{free_port()}", retry=policy) as client,
        pytest.raises(APIConnectionError),
    ):
        client.negotiate()
    assert events == []


def test_a_server_that_comes_up_during_retries_is_reached(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    port = free_port()
    events: list[RetryEvent] = []
    later = MetalwireServer(tmp_path_factory.mktemp("late"), port=port)

    def start_on_first_retry(seconds: float) -> None:
        if later.process is None:
            later.start()

    policy = RetryPolicy(max_retries=1, on_retry=events.append)
    try:
        with Client(later.url, retry=policy, sleep=start_on_first_retry) as client:
            assert client.list_nodes() == []
    finally:
        later.stop()
    assert [e.reason for e in events] == ["connect"]


def test_every_client_exception_is_exported_and_every_export_exists() -> None:
    """``from metalwire.client import *`` works, and gives each error of the tree."""
    import metalwire.client
    from metalwire.client import exceptions

    missing = [name for name in metalwire.client.__all__ if not hasattr(metalwire.client, name)]
    assert missing == []
    errors = {
        name
        for name, value in vars(exceptions).items()
        if isinstance(value, type) and issubclass(value, exceptions.MetalwireClientError)
    }
    assert errors - set(metalwire.client.__all__) == set()
    namespace: dict[str, object] = {}
    exec("from metalwire.client import *", namespace)
    assert namespace["DryRunNotSupported"] is exceptions.DryRunNotSupported
