"""One retry loop for every HTTP call to Neutron and Keystone, configured as keystoneauth is.

A call is tried again, after a pause, when it cannot have been acted on or may safely be
repeated:

* after a connection failure or timeout, up to ``connect_retries`` times (``[neutron]
  connect_retries``, or ``status_code_retries`` when unset): any call whose connection
  could not be opened (nothing was sent), and an idempotent call after any transport error;
* after an answer whose status is one of ``retriable_status_codes`` (503 unless configured),
  up to ``status_code_retries`` times, for an idempotent call only.

The pause is the configured delay, or 0.2 s doubling with each retry to at most 2 s. Every
retry is logged with the reason given by the caller (who masks the secrets in it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass

import httpx

from metalwire.config import NeutronOptions

LOG = logging.getLogger(__name__)

BACKOFF_FIRST = 0.2
BACKOFF_MAX = 2.0


@dataclass(frozen=True)
class RetryPolicy:
    status_code_retries: int = 0
    status_code_retry_delay: float | None = None
    connect_retries: int = 0
    connect_retry_delay: float | None = None
    retriable_status_codes: Collection[int] = (503,)

    @classmethod
    def from_options(cls, options: NeutronOptions) -> RetryPolicy:
        status_retries = options.status_code_retries
        status_delay = options.status_code_retry_delay
        return cls(
            status_code_retries=status_retries,
            status_code_retry_delay=status_delay,
            connect_retries=(
                status_retries if options.connect_retries is None else options.connect_retries
            ),
            connect_retry_delay=(
                status_delay if options.connect_retry_delay is None else options.connect_retry_delay
            ),
            retriable_status_codes=frozenset(options.retriable_status_codes),
        )


def pause_before(attempt: int, delay: float | None) -> float:
    """Seconds to wait before retry number ``attempt`` (1 for the first)."""
    if delay is not None:
        return delay
    return min(BACKOFF_MAX, BACKOFF_FIRST * 2.0 ** (attempt - 1))


def send_with_retries(
    send: Callable[[], httpx.Response],
    *,
    call: str,
    idempotent: bool,
    policy: RetryPolicy,
    explain: Callable[[httpx.TransportError | httpx.Response], str],
    sleep: Callable[[float], None] = time.sleep,
) -> httpx.Response:
    """The answer of ``send()``, tried again as the module docstring says.

    Raises the last :class:`httpx.TransportError` when the connection retries are used up;
    returns the last answer, whatever its status, when the status retries are.
    """
    connect_attempts = status_attempts = 0
    while True:
        try:
            response = send()
        except httpx.TransportError as exc:
            nothing_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
            if not (idempotent or nothing_sent) or connect_attempts >= policy.connect_retries:
                raise
            connect_attempts += 1
            delay = pause_before(connect_attempts, policy.connect_retry_delay)
            _log_retry(call, explain(exc), connect_attempts, delay)
            sleep(delay)
            continue
        if (
            idempotent
            and response.status_code in policy.retriable_status_codes
            and status_attempts < policy.status_code_retries
        ):
            status_attempts += 1
            delay = pause_before(status_attempts, policy.status_code_retry_delay)
            _log_retry(call, explain(response), status_attempts, delay)
            sleep(delay)
            continue
        return response


def _log_retry(call: str, why: str, attempt: int, delay: float) -> None:
    LOG.warning("%s: %s; retry %d in %.1f s", call, why, attempt, delay)
