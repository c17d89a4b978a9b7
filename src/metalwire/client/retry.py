"""When the client retries a request, and how long it waits before each retry."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryEvent:
    """Passed to :attr:`RetryPolicy.on_retry` before the client sleeps and retries."""

    retry: int  # 1 for the first retry
    delay: float  # seconds the client sleeps before it
    method: str
    url: str
    reason: str  # "connect", "unavailable" or "node_locked"
    error: Exception


@dataclass(frozen=True)
class RetryPolicy:
    """Which failures are retried, how often, and the backoff between attempts.

    Only failures where the server cannot have acted on the request are retried: a
    connection that could not be opened (nothing was sent), a 503, and a 409
    :class:`~metalwire.client.exceptions.NodeLocked` (the lock was not taken, nothing was
    done). Each can be switched off. A 409 "already attached" is never retried.

    The wait before retry ``n`` is ``min(backoff_max, backoff_base * 2 ** (n - 1))``; with
    ``jitter`` a random part of it, between half and all, is used so that clients that failed
    together do not retry together. A 503's ``Retry-After`` header, when present, is honoured
    up to ``backoff_max``.
    """

    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_max: float = 10.0
    jitter: bool = True
    connect_errors: bool = True
    unavailable: bool = True
    node_locked: bool = True
    on_retry: Callable[[RetryEvent], None] | None = None

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be 0 or more.")
        if self.backoff_base < 0 or self.backoff_max < 0:
            raise ValueError("backoff_base and backoff_max must be 0 or more.")

    def allows(self, reason: str) -> bool:
        """Whether this policy retries failures of kind ``reason``."""
        return {
            "connect": self.connect_errors,
            "unavailable": self.unavailable,
            "node_locked": self.node_locked,
        }.get(reason, False)


NO_RETRIES = RetryPolicy(max_retries=0)


def backoff_delay(
    retry: int, policy: RetryPolicy, rand: Callable[[], float] = random.random
) -> float:
    """Seconds to wait before retry number ``retry`` (1-based) under ``policy``.

    ``rand`` returns a float in [0, 1); it is used only with jitter.
    Raises ValueError when ``retry`` is below 1.
    """
    if retry < 1:
        raise ValueError("retry numbers start at 1.")
    ceiling = min(policy.backoff_max, policy.backoff_base * 2.0 ** min(retry - 1, 62))
    if not policy.jitter:
        return ceiling
    return ceiling / 2 + rand() * ceiling / 2


def retry_after(value: str | None, policy: RetryPolicy) -> float | None:
    """The wait a ``Retry-After: <seconds>`` header asks for, capped at ``backoff_max``.

    None when absent or not a number of seconds (HTTP dates are ignored).
    """
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    if seconds < 0:
        return None
    return min(seconds, policy.backoff_max)
