"""Microversion negotiation against a real server."""

from __future__ import annotations

import pytest

from metalwire.api_versions import MAX_MINOR
from metalwire.client import (
    APIVersion,
    Client,
    FeatureNotSupported,
    NotAcceptable,
    VersionNegotiationError,
)
from tests.client.util import mac, unique, vif_namer
from tests.conftest import ABOVE_LATEST, LATEST
from tests.support.server import MetalwireServer

v = vif_namer()


def test_negotiates_the_highest_common_version(server: MetalwireServer) -> None:
    with Client(server.url) as client:
        assert client.api_version == APIVersion(1, MAX_MINOR)
        assert client.server_versions == (APIVersion(1, 1), APIVersion(1, MAX_MINOR))
        node = client.create_node("fake-hardware", name=unique("neg"))
        assert "lessee" in node  # a 1.65 field: the request used the negotiated version


def test_latest_means_negotiate(server: MetalwireServer) -> None:
    with Client(server.url, api_version="latest") as client:
        assert str(client.api_version) == LATEST


def test_pinned_version_is_sent_on_every_request(server: MetalwireServer) -> None:
    with Client(server.url, api_version="1.50") as client:
        assert client.negotiate() == APIVersion(1, 50)
        node = client.create_node("fake-hardware", name=unique("pin"))
        assert "owner" in node  # 1.50
        assert "lessee" not in node  # 1.65 is hidden at 1.50
        assert "lessee" not in client.get_node(node.uuid)
        with pytest.raises(NotAcceptable) as caught:
            client.create_node("fake-hardware", lessee="someone")
        assert "requires API version 1.65" in caught.value.faultstring


def test_pin_above_the_server_maximum_is_a_clear_error(server: MetalwireServer) -> None:
    with (
        Client(server.url, api_version=ABOVE_LATEST) as client,
        pytest.raises(VersionNegotiationError) as caught,
    ):
        client.list_nodes()
    message = str(caught.value)
    assert ABOVE_LATEST in message
    assert f"1.1 to {LATEST}" in message


def test_pin_below_the_server_minimum_is_a_clear_error(server: MetalwireServer) -> None:
    with (
        Client(server.url, api_version="1.0") as client,
        pytest.raises(VersionNegotiationError, match=rf"1\.0 .*1\.1 to 1\.{MAX_MINOR}"),
    ):
        client.negotiate()


def test_malformed_pin_is_refused_at_construction(server: MetalwireServer) -> None:
    with pytest.raises(ValueError, match="Invalid API version"):
        Client(server.url, api_version="one")


def test_calls_newer_than_the_pin_fail_before_any_request(server: MetalwireServer) -> None:
    with Client(server.url) as latest:
        node = latest.create_node("fake-hardware", name=unique("old"))
        port = latest.create_port(node.uuid, mac())
    with Client(server.url, api_version="1.20") as old:
        needed = r"API version 1\.28 or later is needed for VIFs"
        with pytest.raises(FeatureNotSupported, match=needed):
            old.vif_list(node.uuid)
        with pytest.raises(FeatureNotSupported, match=r"1\.23"):
            old.list_portgroups()
    with Client(server.url, api_version="1.40") as before_67:
        with pytest.raises(FeatureNotSupported, match=r"1\.67"):
            before_67.vif_attach(node.uuid, v("vif-x"), port_uuid=port.uuid)
        before_67.vif_attach(node.uuid, v("vif-x"))
        assert before_67.vif_list(node.uuid) == [v("vif-x")]
