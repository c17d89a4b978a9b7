"""The parts of Ironic's API metalwire does not serve: a 404 that names what was asked for,
at every method and version, where any other unknown path gets the generic one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import Api

CASES = [
    ("GET", "/v1/nodes/{node}/vendor_passthru/methods", "A node's vendor passthru"),
    ("POST", "/v1/nodes/{node}/vendor_passthru?method=first_method", "A node's vendor passthru"),
    ("PUT", "/v1/nodes/{node}/vendor_passthru?method=x", "A node's vendor passthru"),
    ("DELETE", "/v1/nodes/{node}/vendor_passthru?method=x", "A node's vendor passthru"),
    ("GET", "/v1/drivers/fake-hardware/vendor_passthru/methods", "A driver's vendor passthru"),
    ("POST", "/v1/drivers/fake-hardware/vendor_passthru?method=x", "A driver's vendor passthru"),
    ("GET", "/v1/lookup?addresses=52:54:00:00:00:01", "The ramdisk agent's lookup"),
    ("POST", "/v1/heartbeat/{node}", "The ramdisk agent's lookup and heartbeat"),
    ("GET", "/v1/inspection_rules", "Inspection rules (API 1.96)"),
    ("POST", "/v1/inspection_rules", "Inspection rules (API 1.96)"),
    ("GET", "/v1/inspection_rules/rule-1", "Inspection rules (API 1.96)"),
]


def _description(resp: Any) -> str:
    """What a 404 of the router says (Ironic's router's error shape)."""
    return str(json.loads(resp.json()["error_message"])["description"])


# Routing, before any database is read: one database is enough.
sqlite_only = pytest.mark.parametrize("database", ["sqlite"])


@sqlite_only
@pytest.mark.parametrize("version", ["1.1", "1.78", None])
@pytest.mark.parametrize(("method", "path", "named"), CASES)
def test_a_part_of_ironics_api_not_served_is_named_in_its_404(
    api: Api, method: str, path: str, named: str, version: str | None
) -> None:
    node = api.node()
    url = path.format(node=node["uuid"])
    resp = api.client.request(method, url, headers=api.headers(version), json={})
    assert resp.status_code == 404, resp.text
    message = _description(resp)
    assert message.startswith(named) and "not served by metalwire" in message, message


@sqlite_only
def test_other_unknown_paths_keep_the_generic_404(api: Api) -> None:
    node = api.node()
    for url in (
        "/v1/no_such_thing",
        f"/v1/nodes/{node['uuid']}/no_such_thing",
        "/v1/drivers/fake-hardware/no_such_thing",
        "/v1/lookups",
        f"/v1/nodes/{node['uuid']}/vendor_passthruX",
    ):
        resp = api.get(url)
        assert resp.status_code == 404, (url, resp.text)
        assert _description(resp) == "The resource could not be found.", url
