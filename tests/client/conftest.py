from __future__ import annotations

from collections.abc import Iterator

import pytest

from metalwire.client import Client, RetryPolicy
from tests.support.server import MetalwireServer

FAST_RETRIES = RetryPolicy(max_retries=3, backoff_base=0.01, backoff_max=0.05)


@pytest.fixture
def mw(server: MetalwireServer) -> Iterator[Client]:
    """A client of the session's real server, negotiating the newest version."""
    with Client(server.url, retry=FAST_RETRIES) as c:
        yield c
