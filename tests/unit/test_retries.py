"""The one retry loop of Neutron and Keystone calls: what is retried, how often, how long."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from metalwire.config import NeutronOptions
from metalwire.networking.retries import RetryPolicy, send_with_retries

REQUEST = httpx.Request("GET", "http://neutron.test/v2.0/ports")


def answers(*outcomes: int | type[httpx.TransportError]) -> Callable[[], httpx.Response]:
    """A send() giving each outcome in turn: a status, or raising a transport error."""
    pending = list(outcomes)

    def send() -> httpx.Response:
        outcome = pending.pop(0)
        if isinstance(outcome, int):
            return httpx.Response(outcome, request=REQUEST)
        raise outcome("failed", request=REQUEST)

    send.pending = pending  # type: ignore[attr-defined]
    return send


def run(
    send: Callable[[], httpx.Response], policy: RetryPolicy, idempotent: bool = True
) -> tuple[httpx.Response, list[float]]:
    pauses: list[float] = []
    response = send_with_retries(
        send,
        call="Neutron GET /v2.0/ports (test)",
        idempotent=idempotent,
        policy=policy,
        explain=lambda failure: "why",
        sleep=pauses.append,
    )
    return response, pauses


def test_a_503_is_retried_status_code_retries_times_with_a_doubling_pause() -> None:
    response, pauses = run(answers(503, 503, 503), RetryPolicy(status_code_retries=2))
    assert response.status_code == 503
    assert pauses == [0.2, 0.4]


def test_the_configured_delay_replaces_the_backoff() -> None:
    policy = RetryPolicy(status_code_retries=3, status_code_retry_delay=0.05)
    response, pauses = run(answers(503, 503, 200), policy)
    assert response.status_code == 200
    assert pauses == [0.05, 0.05]


def test_the_backoff_stops_growing_at_two_seconds() -> None:
    response, pauses = run(answers(*[503] * 6, 200), RetryPolicy(status_code_retries=6))
    assert response.status_code == 200
    assert pauses == [0.2, 0.4, 0.8, 1.6, 2.0, 2.0]


def test_only_retriable_status_codes_are_retried() -> None:
    policy = RetryPolicy(status_code_retries=2, retriable_status_codes={409, 503})
    assert run(answers(409, 200), policy)[0].status_code == 200
    response, pauses = run(answers(500, 200), policy)
    assert response.status_code == 500 and pauses == []


def test_a_post_is_retried_only_when_its_connection_was_never_opened() -> None:
    policy = RetryPolicy(status_code_retries=2, connect_retries=2)
    assert run(answers(httpx.ConnectError, 201), policy, idempotent=False)[0].status_code == 201
    assert run(answers(503, 201), policy, idempotent=False)[0].status_code == 503
    with pytest.raises(httpx.ReadTimeout):
        run(answers(httpx.ReadTimeout, 201), policy, idempotent=False)


def test_connection_failures_have_their_own_budget_and_then_raise() -> None:
    policy = RetryPolicy(status_code_retries=5, connect_retries=1, connect_retry_delay=0.0)
    send = answers(httpx.ConnectError, httpx.ReadTimeout, 200)
    with pytest.raises(httpx.ReadTimeout):
        run(send, policy)
    assert send.pending == [200]  # type: ignore[attr-defined]


def test_policy_from_options_falls_back_to_the_status_code_settings() -> None:
    opts = NeutronOptions(status_code_retries=4, status_code_retry_delay=1.5)
    assert RetryPolicy.from_options(opts) == RetryPolicy(
        status_code_retries=4,
        status_code_retry_delay=1.5,
        connect_retries=4,
        connect_retry_delay=1.5,
        retriable_status_codes=frozenset({503}),
    )
    opts.connect_retries, opts.connect_retry_delay = 0, 0.1
    policy = RetryPolicy.from_options(opts)
    assert (policy.connect_retries, policy.connect_retry_delay) == (0, 0.1)
