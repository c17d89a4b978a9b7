"""The Neutron client against a scripted transport: auth, retries, errors and their codes."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from metalwire.config import NeutronOptions
from metalwire.errors import Invalid, NetworkError
from metalwire.networking.neutron_client import QUERY_LIMIT, NeutronClient

Handler = Callable[[httpx.Request], httpx.Response]
PORT_ID = "6a8ec5ab-1d82-49fb-8468-d8cc5a45dae3"


def port_body(**fields: Any) -> dict[str, Any]:
    return {
        "port": {
            "id": PORT_ID,
            "network_id": "net",
            "mac_address": "fa:16:3e:00:00:01",
            "status": "DOWN",
            "binding:host_id": "",
            "binding:vif_type": "unbound",
            **fields,
        }
    }


def neutron_error(status: int, kind: str, message: str) -> httpx.Response:
    return httpx.Response(
        status, json={"NeutronError": {"type": kind, "message": message, "detail": ""}}
    )


class Scripted:
    """Answers requests from a list of handlers, one per request, and records them."""

    def __init__(self, *answers: Handler | httpx.Response) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        return answer if isinstance(answer, httpx.Response) else answer(request)


def refused(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("[Errno 111] Connection refused", request=request)


def timed_out(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadTimeout("timed out", request=request)


@pytest.fixture
def make() -> Iterator[Callable[..., NeutronClient]]:
    clients: list[NeutronClient] = []

    def build(script: Scripted, **options: Any) -> NeutronClient:
        opts = NeutronOptions(
            endpoint_override="http://neutron.test:9696/",
            status_code_retries=2,
            request_timeout=1.0,
        )
        for key, value in options.items():
            setattr(opts, key, value)
        client = NeutronClient(opts, transport=httpx.MockTransport(script))
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.close()


def test_noauth_sends_roles_and_never_a_project(make: Callable[..., NeutronClient]) -> None:
    script = Scripted(httpx.Response(200, json=port_body()))
    port = make(script, noauth_roles="admin,service").get_port(PORT_ID)
    assert port.mac_address == "fa:16:3e:00:00:01"
    request = script.requests[0]
    assert str(request.url) == f"http://neutron.test:9696/v2.0/ports/{PORT_ID}"
    assert request.headers["X-Roles"] == "admin,service"
    assert "X-Project-Id" not in request.headers
    assert "X-Auth-Token" not in request.headers


def test_token_strategy_sends_the_static_token(make: Callable[..., NeutronClient]) -> None:
    script = Scripted(httpx.Response(200, json=port_body()))
    make(script, auth_type="token", token="s3cret").get_port(PORT_ID)
    assert script.requests[0].headers["X-Auth-Token"] == "s3cret"
    assert "X-Roles" not in script.requests[0].headers


def test_keystone_token_is_cached_and_renewed_after_401(
    make: Callable[..., NeutronClient],
) -> None:
    def token(value: str) -> httpx.Response:
        return httpx.Response(201, headers={"X-Subject-Token": value}, json={"token": {}})

    script = Scripted(
        token("t1"),
        httpx.Response(200, json=port_body()),
        httpx.Response(200, json=port_body()),
        httpx.Response(401, json={"error": {"message": "expired"}}),
        token("t2"),
        httpx.Response(200, json=port_body()),
    )
    client = make(
        script,
        auth_type="password",
        auth_url="http://keystone.test/identity",
        username="ironic",
        password="pw",
        project_name="service",
    )
    for _ in range(3):
        client.get_port(PORT_ID)
    auth = [r for r in script.requests if r.url.path.endswith("/auth/tokens")]
    assert [str(r.url) for r in auth] == ["http://keystone.test/identity/v3/auth/tokens"] * 2
    body = json.loads(auth[0].content)
    assert body["auth"]["identity"]["password"]["user"]["name"] == "ironic"
    assert body["auth"]["scope"]["project"]["name"] == "service"
    tokens = [r.headers.get("X-Auth-Token") for r in script.requests if "/ports/" in r.url.path]
    assert tokens == ["t1", "t1", "t1", "t2"]


def test_keystone_refusal_is_a_502_naming_keystone(make: Callable[..., NeutronClient]) -> None:
    script = Scripted(httpx.Response(401, json={"error": {"message": "bad password"}}))
    client = make(script, auth_type="password", auth_url="http://keystone.test/v3")
    with pytest.raises(NetworkError) as caught:
        client.get_port(PORT_ID)
    assert caught.value.code == 502
    assert "Keystone password authentication" in str(caught.value)
    assert "bad password" in str(caught.value)


def test_neutron_error_is_a_502_naming_the_call(make: Callable[..., NeutronClient]) -> None:
    script = Scripted(neutron_error(409, "MacAddressInUse", "MAC 52:54:00:00:00:01 in use"))
    with pytest.raises(NetworkError) as caught:
        make(script).update_port(PORT_ID, {"mac_address": "52:54:00:00:00:01"}, "set MAC")
    assert caught.value.code == 502
    assert str(caught.value) == (
        f"Neutron PUT /v2.0/ports/{PORT_ID} (set MAC) failed: "
        "HTTP 409 MacAddressInUse: MAC 52:54:00:00:00:01 in use"
    )
    assert len(script.requests) == 1  # a 4xx is never retried


def test_neutron_error_keeps_only_its_type_and_a_bounded_message(
    make: Callable[..., NeutronClient],
) -> None:
    error = {"type": "PortInUse", "message": "x" * 2000, "detail": "X-Auth-Token: leaked"}
    script = Scripted(httpx.Response(409, json={"NeutronError": error}))
    with pytest.raises(NetworkError) as caught:
        make(script).update_port(PORT_ID, {}, "set MAC")
    message = str(caught.value)
    assert "HTTP 409 PortInUse: " + "x" * 511 + "…" in message
    assert "x" * 512 not in message and "leaked" not in message


def test_an_answer_that_is_no_neutron_error_is_described_not_quoted(
    make: Callable[..., NeutronClient],
) -> None:
    page = "<html><pre>X-Auth-Token: tok-123 Authorization: Basic abc</pre></html>"
    script = Scripted(httpx.Response(500, text=page, headers={"Content-Type": "text/html"}))
    with pytest.raises(NetworkError) as caught:
        make(script, auth_type="token", token="tok-123").get_port(PORT_ID)
    assert str(caught.value) == (
        f"Neutron GET /v2.0/ports/{PORT_ID} (read port) failed: HTTP 500 Internal Server Error "
        f"(not a Neutron error answer: {len(page)} bytes of text/html)"
    )


def test_a_neutron_message_quoting_the_token_shows_it_masked(
    make: Callable[..., NeutronClient],
) -> None:
    script = Scripted(neutron_error(400, "BadRequest", "bad header X-Auth-Token: tok-123"))
    with pytest.raises(NetworkError) as caught:
        make(script, auth_type="token", token="tok-123").get_port(PORT_ID)
    assert str(caught.value).endswith("HTTP 400 BadRequest: bad header X-Auth-Token: ******")


def test_credentials_in_the_url_are_sent_as_basic_auth_and_never_shown(
    make: Callable[..., NeutronClient],
) -> None:
    script = Scripted(refused, httpx.Response(200, json=port_body()))
    client = make(
        script, endpoint_override="http://u:s3cret@neutron.test:9696", status_code_retries=0
    )
    with pytest.raises(NetworkError) as caught:
        client.get_port(PORT_ID)
    assert "Neutron at http://neutron.test:9696/v2.0 is unreachable" in str(caught.value)
    assert "s3cret" not in str(caught.value)
    client.get_port(PORT_ID)
    for request in script.requests:
        assert request.url == httpx.URL(f"http://neutron.test:9696/v2.0/ports/{PORT_ID}")
        assert request.headers["Authorization"] == httpx.BasicAuth("u", "s3cret")._auth_header


def test_credentials_in_the_keystone_url_are_never_shown(
    make: Callable[..., NeutronClient],
) -> None:
    script = Scripted(httpx.Response(401, json={"error": {"message": "no user k:pw"}}))
    client = make(script, auth_type="password", auth_url="http://k:pw@keystone.test", password="pw")
    with pytest.raises(NetworkError) as caught:
        client.get_port(PORT_ID)
    assert "(POST http://keystone.test/v3/auth/tokens): HTTP 401 no user k:******" in str(
        caught.value
    )
    assert script.requests[0].url == httpx.URL("http://keystone.test/v3/auth/tokens")


def test_unreachable_is_a_503_after_the_retries(make: Callable[..., NeutronClient]) -> None:
    script = Scripted(refused, refused, refused)
    with pytest.raises(NetworkError) as caught:
        make(script).get_port(PORT_ID, "read VIF port")
    assert caught.value.code == 503
    assert str(caught.value) == (
        f"Neutron GET /v2.0/ports/{PORT_ID} (read VIF port) failed: Neutron at "
        "http://neutron.test:9696/v2.0 is unreachable: [Errno 111] Connection refused."
    )
    assert len(script.requests) == 3


def test_timeout_is_a_503_saying_so(make: Callable[..., NeutronClient]) -> None:
    script = Scripted(timed_out)
    with pytest.raises(NetworkError) as caught:
        make(script, status_code_retries=0).get_port(PORT_ID)
    assert caught.value.code == 503
    assert "no answer within 1 s (ReadTimeout)" in str(caught.value)


def test_idempotent_calls_are_retried_on_503_and_connection_errors(
    make: Callable[..., NeutronClient],
) -> None:
    script = Scripted(
        neutron_error(503, "ServiceUnavailable", "busy"),
        timed_out,
        httpx.Response(200, json=port_body(mac_address="52:54:00:00:00:01")),
    )
    port = make(script).update_port(PORT_ID, {"mac_address": "52:54:00:00:00:01"}, "set MAC")
    assert port.mac_address == "52:54:00:00:00:01"
    assert [r.method for r in script.requests] == ["PUT"] * 3


def test_post_is_retried_only_when_nothing_was_sent(make: Callable[..., NeutronClient]) -> None:
    script = Scripted(refused, httpx.Response(201, json=port_body()))
    assert make(script).create_port({"network_id": "net"}, "create").id == PORT_ID

    script = Scripted(neutron_error(503, "ServiceUnavailable", "busy"))
    with pytest.raises(NetworkError) as caught:
        make(script).create_port({"network_id": "net"}, "create")
    assert caught.value.code == 503 and len(script.requests) == 1

    script = Scripted(timed_out)
    with pytest.raises(NetworkError):
        make(script).create_port({"network_id": "net"}, "create")
    assert len(script.requests) == 1


def test_missing_port(make: Callable[..., NeutronClient]) -> None:
    gone = neutron_error(404, "PortNotFound", f"Port {PORT_ID} could not be found.")
    client = make(Scripted(gone, gone, gone, gone))
    assert client.find_port(PORT_ID) is None
    assert client.update_port_if_exists(PORT_ID, {"binding:host_id": ""}, "unbind") is None
    assert client.delete_port(PORT_ID, "delete") is False
    with pytest.raises(NetworkError) as caught:
        client.get_port(PORT_ID, "read VIF port")
    assert caught.value.code == 502
    assert "HTTP 404 PortNotFound" in str(caught.value)


def test_wait_fails_fast_on_binding_failed(make: Callable[..., NeutronClient]) -> None:
    failed = port_body(**{"binding:vif_type": "binding_failed", "binding:host_id": "node"})
    script = Scripted(httpx.Response(200, json=failed))
    with pytest.raises(NetworkError) as caught:
        make(script, status_wait_timeout=30.0).wait_for_port_status(PORT_ID)
    assert caught.value.code == 502
    assert "binding:vif_type is binding_failed" in str(caught.value)
    assert len(script.requests) == 1


def test_wait_is_bounded(make: Callable[..., NeutronClient]) -> None:
    down = httpx.Response(200, json=port_body(**{"binding:vif_type": "other"}))
    active = httpx.Response(200, json=port_body(status="ACTIVE"))
    assert make(Scripted(down, active)).wait_for_port_status(PORT_ID).status == "ACTIVE"

    script = Scripted(*[httpx.Response(200, json=port_body()) for _ in range(50)])
    with pytest.raises(NetworkError) as caught:
        make(script).wait_for_port_status(PORT_ID, timeout=0.3)
    assert caught.value.code == 502
    assert "did not become ACTIVE within 0.3 s" in str(caught.value)


def test_find_network_by_uuid_then_name(make: Callable[..., NeutronClient]) -> None:
    net = {"id": PORT_ID, "name": "prov", "provider:physical_network": "physnet1"}
    script = Scripted(
        neutron_error(404, "NetworkNotFound", "nope"), httpx.Response(200, json={"networks": [net]})
    )
    found = make(script).find_network(PORT_ID, "find the provisioning network")
    assert found.name == "prov" and found.physnets == {"physnet1"}
    assert script.requests[1].url.params["name"] == PORT_ID

    with pytest.raises(NetworkError, match="no Neutron network has the name or UUID 'x'"):
        make(Scripted(httpx.Response(200, json={"networks": []}))).find_network("x", "find")
    two = httpx.Response(200, json={"networks": [net, {**net, "id": "other"}]})
    with pytest.raises(NetworkError, match="2 Neutron networks are named 'prov'"):
        make(Scripted(two)).find_network("prov", "find")


def test_list_ports_repeats_filters(make: Callable[..., NeutronClient]) -> None:
    script = Scripted(httpx.Response(200, json={"ports": [port_body()["port"]]}))
    ports = make(script).list_ports("find", network_id="net", mac_address=["a", "b"])
    assert [p.id for p in ports] == [PORT_ID]
    assert script.requests[0].url.params.multi_items() == [
        ("network_id", "net"),
        ("mac_address", "a"),
        ("mac_address", "b"),
    ]


def test_list_ports_matching_keeps_every_query_string_short(
    make: Callable[..., NeutronClient],
) -> None:
    ids = [str(uuid.UUID(int=n)) for n in range(200)]

    def answer(request: httpx.Request) -> httpx.Response:
        asked = request.url.params.get_list("id")
        return httpx.Response(200, json={"ports": [{"id": i} for i in asked]})

    script = Scripted(*[answer] * 10)
    ports = make(script).list_ports_matching("find", "id", ids, fields=["mac_address"])
    assert [p.id for p in ports] == ids
    assert len(script.requests) == 3  # 75 UUIDs fit 3,000 bytes
    for request in script.requests:
        assert len(request.url.query) <= QUERY_LIMIT
        assert request.url.params.get_list("fields") == ["id", "mac_address"]


def test_configuration_is_checked() -> None:
    with pytest.raises(Invalid, match="no Neutron endpoint is configured"):
        NeutronClient(NeutronOptions())
    with pytest.raises(Invalid, match="auth_type 'magic' is not one of none, password"):
        NeutronClient(NeutronOptions(endpoint_override="http://n", auth_type="magic"))
