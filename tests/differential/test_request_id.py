"""The request-id headers against upstream Ironic 39 and metalwire, below and at 1.107 (which
names X-OpenStack-Request-Id in Ironic's version list): the same headers, the same format."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.support.ironic import IronicServer
from tests.support.server import MetalwireServer

REQUEST_ID = re.compile(r"^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
HEADERS = ("x-openstack-request-id", "openstack-request-id")
SENT = "req-00000000-0000-4000-8000-000000000001"


def _request_ids(url: str, version: str, path: str) -> list[str]:
    headers = {"X-OpenStack-Ironic-API-Version": version, "X-OpenStack-Request-Id": SENT}
    with httpx.Client(base_url=url, timeout=30.0) as client:
        resp = client.get(path, headers=headers)
    return [resp.headers.get(name, "") for name in HEADERS]


@pytest.mark.parametrize("version", ["1.106", "1.107"])
@pytest.mark.parametrize("path", ["/v1/nodes", "/v1/nodes/nowhere", "/"])
def test_both_servers_send_both_request_id_headers(
    upstream_ironic: IronicServer,
    differential_metalwire: MetalwireServer,
    version: str,
    path: str,
) -> None:
    for url in (upstream_ironic.url, differential_metalwire.url):
        ids = _request_ids(url, version, path)
        assert all(REQUEST_ID.match(i) for i in ids), (url, ids)
        assert ids[0] == ids[1] and ids[0] != SENT, (url, ids)
