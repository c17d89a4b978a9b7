"""Retries on a locked node (counted), and never on a VIF that is already attached."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest

from metalwire.client import (
    Client,
    NodeLocked,
    RetryEvent,
    RetryPolicy,
    ServiceUnavailable,
    VifAlreadyAttached,
)
from tests.client.util import hold_node_lock, mac, unique, vif_namer
from tests.support.server import MetalwireServer

v = vif_namer()


@pytest.fixture(scope="module")
def impatient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MetalwireServer]:
    """A real server that answers 409 NodeLocked after waiting 0.2 s for a node lock."""
    env = {"METALWIRE_CONDUCTOR_NODE_LOCK_WAIT": "0.2"}
    with MetalwireServer(tmp_path_factory.mktemp("impatient"), env=env) as running:
        yield running


def _node_with_port(client: Client) -> str:
    node = client.create_node("fake-hardware", name=unique("locked"))
    client.create_port(node.uuid, mac())
    return node.uuid


def test_node_locked_is_retried_until_the_lock_is_free(impatient: MetalwireServer) -> None:
    events: list[RetryEvent] = []
    policy = RetryPolicy(max_retries=20, backoff_base=0.1, backoff_max=0.3, on_retry=events.append)
    with Client(impatient.url, retry=policy) as client:
        node = _node_with_port(client)
        hold_node_lock(impatient.data_dir, node, seconds=1.0, holder="other-conductor:1:x")
        client.vif_attach(node, v("vif-after-lock"))
        assert client.vif_list(node) == [v("vif-after-lock")]
    assert events, "the locked node should have been retried"
    assert {e.reason for e in events} == {"node_locked"}
    assert all(isinstance(e.error, NodeLocked) for e in events)
    assert [e.retry for e in events] == list(range(1, len(events) + 1))
    assert "other-conductor:1:x" in str(events[0].error)


def test_node_locked_surfaces_when_retries_run_out(impatient: MetalwireServer) -> None:
    events: list[RetryEvent] = []
    policy = RetryPolicy(max_retries=2, backoff_base=0.01, on_retry=events.append)
    with Client(impatient.url, retry=policy) as client:
        node = _node_with_port(client)
        hold_node_lock(impatient.data_dir, node, seconds=30.0, holder="stuck:2:y")
        with pytest.raises(NodeLocked) as caught:
            client.set_maintenance(node, reason="x")
        hold_node_lock(impatient.data_dir, node, seconds=-1.0, holder="stuck:2:y")
    assert len(events) == 2
    assert caught.value.status_code == 409
    assert "is locked by host stuck:2:y" in caught.value.faultstring
    assert caught.value.request_id


def test_node_locked_retries_can_be_switched_off(impatient: MetalwireServer) -> None:
    events: list[RetryEvent] = []
    policy = RetryPolicy(node_locked=False, on_retry=events.append)
    with Client(impatient.url, retry=policy) as client:
        node = _node_with_port(client)
        hold_node_lock(impatient.data_dir, node, seconds=30.0, holder="stuck:3:z")
        with pytest.raises(NodeLocked):
            client.vif_detach(node, "anything")
        hold_node_lock(impatient.data_dir, node, seconds=-1.0, holder="stuck:3:z")
    assert events == []


def test_already_attached_is_never_retried(impatient: MetalwireServer) -> None:
    events: list[RetryEvent] = []
    policy = RetryPolicy(max_retries=10, backoff_base=0.01, on_retry=events.append)
    with Client(impatient.url, retry=policy) as client:
        node = _node_with_port(client)
        client.vif_attach(node, v("vif-once"))
        with pytest.raises(VifAlreadyAttached):
            client.vif_attach(node, v("vif-once"))
        other = _node_with_port(client)
        with pytest.raises(VifAlreadyAttached) as elsewhere:
            client.vif_attach(other, v("vif-once"))
    assert events == []
    assert node in elsewhere.value.faultstring


def test_concurrent_attaches_serialise_on_the_lock(impatient: MetalwireServer) -> None:
    """Many clients attaching to one node: each VIF lands exactly once."""
    with Client(impatient.url) as setup:
        node = setup.create_node("fake-hardware", name=unique("busy"))
        for _ in range(6):
            setup.create_port(node.uuid, mac())
    errors: list[BaseException] = []
    policy = RetryPolicy(max_retries=30, backoff_base=0.05, backoff_max=0.2)

    def attach(n: int) -> None:
        try:
            with Client(impatient.url, retry=policy) as client:
                client.vif_attach(node.uuid, v(f"vif-{n}"))
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=attach, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    with Client(impatient.url) as check:
        assert sorted(check.vif_list(node)) == [v(f"vif-{n}") for n in range(6)]


def test_503_is_retried_and_retry_after_honoured() -> None:
    """The 503 rule, on a transport that answers 503 twice (no metalwire path gives one)."""
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if request.url.path == "/":
            body = {"versions": [{"id": "v1", "min_version": "1.1", "version": "1.78"}]}
            return httpx.Response(200, json=body)
        if request.url.path == "/v1/":
            return httpx.Response(200, json={}, headers={"X-OpenStack-Ironic-API-Version": "1.78"})
        if len([c for c in calls if c == "/v1/nodes"]) <= 2:
            fault = '{"faultstring": "Neutron is down", "faultcode": "Server"}'
            return httpx.Response(
                503, json={"error_message": fault}, headers={"Retry-After": "0.25"}
            )
        return httpx.Response(200, json={"nodes": []})

    events: list[RetryEvent] = []
    slept: list[float] = []
    policy = RetryPolicy(max_retries=2, on_retry=events.append)
    transport = httpx.MockTransport(handler)
    with Client("http://stub", retry=policy, transport=transport, sleep=slept.append) as client:
        assert client.list_nodes() == []
    assert [e.reason for e in events] == ["unavailable", "unavailable"]
    assert slept == [0.25, 0.25]

    calls.clear()
    no_503_retries = RetryPolicy(unavailable=False)
    with (
        Client("http://stub", retry=no_503_retries, transport=transport) as c,
        pytest.raises(ServiceUnavailable) as caught,
    ):
        c.list_nodes()
    assert caught.value.faultstring == "Neutron is down"
