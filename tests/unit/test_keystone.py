"""Keystone tokens and catalog, against a loopback fake Keystone and a loopback fake Neutron.

Both fakes are real HTTP servers (http.server), so the httpx.Auth flow is exercised as it
runs in production: the 401, the new token and the resent request all cross a socket.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from metalwire.config import NeutronOptions
from metalwire.errors import NetworkError
from metalwire.networking.neutron_client import NeutronClient
from tests.support.fake_http import FakeHttp, Received

PORT_ID = "6a8ec5ab-1d82-49fb-8468-d8cc5a45dae3"
PORT = {"port": {"id": PORT_ID, "network_id": "net", "mac_address": "fa:16:3e:00:00:01"}}


@dataclass
class Cloud:
    """A fake Keystone issuing tok-1, tok-2, ... and a fake Neutron accepting ``valid`` ones."""

    keystone: FakeHttp
    neutron: FakeHttp
    valid: set[str] = field(default_factory=set)
    catalog: list[Any] = field(default_factory=list)

    def token_requests(self) -> list[Received]:
        return [r for r in self.keystone.requests if r.path == "/identity/v3/auth/tokens"]

    def neutron_tokens(self) -> list[str | None]:
        return [r.headers.get("x-auth-token") for r in self.neutron.requests]


@pytest.fixture
def cloud() -> Iterator[Cloud]:
    numbers = itertools.count(1)
    state: dict[str, Cloud] = {}

    def keystone(request: Received) -> tuple[int, dict[str, str], dict[str, Any]]:
        token = f"tok-{next(numbers)}"
        state["cloud"].valid.add(token)
        body = {"token": {"expires_at": "2999-01-01T00:00:00.000000Z"}}
        body["token"]["catalog"] = state["cloud"].catalog
        return 201, {"X-Subject-Token": token}, body

    def neutron(request: Received) -> tuple[int, dict[str, str], dict[str, Any]]:
        if request.headers.get("x-auth-token") not in state["cloud"].valid:
            return 401, {}, {"error": {"message": "The request you have made requires auth."}}
        return 200, {}, PORT

    with FakeHttp(keystone) as ks, FakeHttp(neutron) as nt:
        state["cloud"] = Cloud(ks, nt)
        state["cloud"].catalog = [network_service(("public", "RegionOne", nt.url))]
        yield state["cloud"]


def network_service(*endpoints: tuple[str, str, str], kind: str = "network") -> dict[str, Any]:
    return {
        "type": kind,
        "name": "neutron",
        "endpoints": [
            {"interface": i, "region_id": r, "region": r, "url": u} for i, r, u in endpoints
        ],
    }


def client(cloud: Cloud, **options: Any) -> NeutronClient:
    opts = NeutronOptions(
        auth_type="password",
        auth_url=cloud.keystone.url + "/identity",
        username="ironic",
        password="pw-secret",
        project_name="service",
        status_code_retries=0,
        request_timeout=5.0,
    )
    for key, value in options.items():
        setattr(opts, key, value)
    return NeutronClient(opts)


def test_a_401_fetches_a_new_token_exactly_once_and_resends(cloud: Cloud) -> None:
    neutron = client(cloud, endpoint_override=cloud.neutron.url)
    assert neutron.get_port(PORT_ID).id == PORT_ID
    cloud.valid.discard("tok-1")  # Keystone revoked it, or it expired early
    assert neutron.get_port(PORT_ID).id == PORT_ID
    assert neutron.get_port(PORT_ID).id == PORT_ID
    neutron.close()
    assert len(cloud.token_requests()) == 2
    assert cloud.neutron_tokens() == ["tok-1", "tok-1", "tok-2", "tok-2"]
    body = cloud.token_requests()[0].body
    assert body["auth"]["identity"]["methods"] == ["password"]
    assert body["auth"]["scope"]["project"] == {"name": "service", "domain": {"name": "Default"}}


def test_a_second_401_is_not_answered_with_a_third_token(cloud: Cloud) -> None:
    neutron = client(cloud, endpoint_override=cloud.neutron.url)
    cloud.valid.clear()
    cloud.keystone.answer = lambda r: (201, {"X-Subject-Token": "tok-refused"}, {"token": {}})
    with pytest.raises(NetworkError) as caught:
        neutron.get_port(PORT_ID)
    neutron.close()
    assert caught.value.code == 502
    assert "HTTP 401" in str(caught.value)
    assert len(cloud.token_requests()) == 2
    assert len(cloud.neutron.requests) == 2


def test_the_endpoint_comes_from_the_catalog_by_interface_and_region(cloud: Cloud) -> None:
    cloud.catalog = [
        network_service(("public", "RegionOne", "http://127.0.0.1:9/wrong"), kind="compute"),
        network_service(
            ("internal", "RegionOne", "http://127.0.0.1:9/wrong-region"),
            ("public", "RegionTwo", "http://127.0.0.1:9/not-preferred"),
            ("internal", "RegionTwo", cloud.neutron.url + "/networking"),
        ),
    ]
    neutron = client(cloud, region_name="RegionTwo", valid_interfaces=["internal", "public"])
    assert neutron.get_port(PORT_ID).id == PORT_ID
    neutron.close()
    assert [r.path for r in cloud.neutron.requests] == [f"/networking/v2.0/ports/{PORT_ID}"]


def test_a_catalog_without_neutron_names_what_was_looked_for(cloud: Cloud) -> None:
    cloud.catalog = [network_service(("admin", "RegionOne", cloud.neutron.url))]
    neutron = client(cloud, valid_interfaces=["public"])
    with pytest.raises(NetworkError) as caught:
        neutron.get_port(PORT_ID, "read VIF port")
    neutron.close()
    assert caught.value.code == 502
    assert str(caught.value) == (
        f"Neutron GET /v2.0/ports/{PORT_ID} (read VIF port) failed: the Keystone catalog has "
        "no Neutron endpoint with service type 'network', interface public ([neutron] "
        "endpoint_override is empty; endpoints of that service: admin@RegionOne)."
    )


def test_an_application_credential_authenticates_without_a_scope(cloud: Cloud) -> None:
    neutron = client(
        cloud,
        auth_type="v3applicationcredential",
        application_credential_id="ac-id",
        application_credential_secret="ac-secret",
    )
    assert neutron.get_port(PORT_ID).id == PORT_ID
    neutron.close()
    body = cloud.token_requests()[0].body
    assert body == {
        "auth": {
            "identity": {
                "methods": ["application_credential"],
                "application_credential": {"id": "ac-id", "secret": "ac-secret"},
            }
        }
    }


def test_a_refused_credential_is_never_shown(cloud: Cloud) -> None:
    cloud.keystone.answer = lambda r: (
        401,
        {},
        {"error": {"message": "Invalid application credential ac-secret for pw-secret"}},
    )
    neutron = client(
        cloud,
        auth_type="v3applicationcredential",
        application_credential_id="ac-id",
        application_credential_secret="ac-secret",
    )
    with pytest.raises(NetworkError) as caught:
        neutron.get_port(PORT_ID)
    neutron.close()
    message = str(caught.value)
    assert "Keystone v3applicationcredential authentication" in message
    assert "ac-secret" not in message and "pw-secret" not in message
    assert "Invalid application credential ****** for ******" in message


def test_a_token_with_auth_url_is_exchanged_for_a_project_token(cloud: Cloud) -> None:
    neutron = client(cloud, auth_type="v3token", token="user-token", password="")
    assert neutron.get_port(PORT_ID).id == PORT_ID
    neutron.close()
    identity = cloud.token_requests()[0].body["auth"]["identity"]
    assert identity == {"methods": ["token"], "token": {"id": "user-token"}}
    assert cloud.neutron_tokens() == ["tok-1"]


def test_a_token_without_auth_url_is_sent_as_it_is(cloud: Cloud) -> None:
    cloud.valid.add("static")
    neutron = client(
        cloud, auth_type="token", token="static", auth_url="", endpoint_override=cloud.neutron.url
    )
    assert neutron.get_port(PORT_ID).id == PORT_ID
    neutron.close()
    assert cloud.token_requests() == []
    assert cloud.neutron_tokens() == ["static"]
