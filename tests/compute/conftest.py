from __future__ import annotations

from collections.abc import Iterator

import pytest

from metalwire.client import Client, RetryPolicy
from tests.support.server import MetalwireServer


@pytest.fixture
def mw(server: MetalwireServer) -> Iterator[Client]:
    with Client(server.url, retry=RetryPolicy(max_retries=2, backoff_base=0.01)) as c:
        yield c
