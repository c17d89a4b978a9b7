"""The Neutron client's metrics: each call timed by operation, each failure counted by why."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from prometheus_client import REGISTRY

from metalwire.config import NeutronOptions
from metalwire.errors import NetworkError
from metalwire.networking.neutron_client import NeutronClient
from tests.unit.test_neutron_client import PORT_ID, Scripted, neutron_error, port_body, refused

OPERATION = "PUT /ports/{id}"


@pytest.fixture
def make() -> Iterator[Callable[[Scripted], NeutronClient]]:
    clients: list[NeutronClient] = []

    def build(script: Scripted) -> NeutronClient:
        options = NeutronOptions(
            endpoint_override="http://neutron.test:9696/", status_code_retries=2
        )
        clients.append(NeutronClient(options, transport=httpx.MockTransport(script)))
        return clients[-1]

    yield build
    for client in clients:
        client.close()


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_a_call_is_timed_under_its_operation_not_its_ids(
    make: Callable[[Scripted], NeutronClient],
) -> None:
    before = sample("metalwire_neutron_request_duration_seconds_count", operation=OPERATION)
    make(Scripted(httpx.Response(200, json=port_body()))).update_port(PORT_ID, {}, "test")
    after = sample("metalwire_neutron_request_duration_seconds_count", operation=OPERATION)
    assert after - before == 1


@pytest.mark.parametrize(
    ("answers", "reason"),
    [
        ([neutron_error(409, "MacAddressInUse", "taken")], "409"),
        ([refused, refused, refused], "unreachable"),
        ([httpx.Response(200, text="not json")], "bad_body"),
    ],
    ids=["status", "unreachable", "bad_body"],
)
def test_a_failed_call_is_counted_with_why(
    make: Callable[[Scripted], NeutronClient], answers: list[object], reason: str
) -> None:
    name = "metalwire_neutron_request_errors_total"
    before = sample(name, operation=OPERATION, reason=reason)
    with pytest.raises(NetworkError):
        make(Scripted(*answers)).update_port(PORT_ID, {}, "test")  # type: ignore[arg-type]
    assert sample(name, operation=OPERATION, reason=reason) - before == 1
