"""A ``/detail`` list asked for some fields, through the unmodified openstacksdk (which sends
``nodes(details=True, fields=...)`` as ``GET /v1/nodes/detail?fields=...``) and plain HTTP
against a real server: Ironic 39 refuses it (400); metalwire answered 200."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from openstack import exceptions

from tests.compat.clients import random_mac, unique

pytestmark = pytest.mark.compat


def test_openstacksdk_detailed_nodes_with_fields_is_refused(sdk: Any) -> None:
    sdk.create_node(driver="fake-hardware", name=unique("detail"))

    with pytest.raises(exceptions.BadRequestException) as refused:
        list(sdk.nodes(details=True, fields=["name"]))

    assert "fields query parameter is not taken by a /detail list" in str(refused.value)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/nodes/detail",
        "/v1/ports/detail",
        "/v1/portgroups/detail",
        "/v1/nodes/{node}/ports/detail",
        "/v1/nodes/{node}/portgroups/detail",
    ],
)
def test_every_detail_list_refuses_fields(sdk: Any, http: httpx.Client, path: str) -> None:
    node = sdk.create_node(driver="fake-hardware", name=unique("detail"))
    sdk.create_port(node_id=node.id, address=random_mac())

    refused = http.get(path.format(node=node.id), params={"fields": "uuid"})
    detailed = http.get(path.format(node=node.id))

    assert refused.status_code == 400, refused.text
    assert "fields query parameter" in refused.json()["error_message"]
    assert detailed.status_code == 200, detailed.text
