"""What the unmodified clients make of the routing error body (no such path, version).

Ironic answers routing and version-negotiation errors with ``{"code", "title",
"description"}`` inside ``error_message``: ironicclient shows the description, openstacksdk
the reason phrase (it reads only ``faultstring`` or ``message``), as they do against Ironic.
"""

from __future__ import annotations

from typing import Any

import pytest
from ironicclient import client as ironic_client
from ironicclient.common.apiclient import exceptions as ironic_exceptions
from openstack import exceptions

from tests.conftest import ABOVE_LATEST, LATEST
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


def ironic(server: MetalwireServer, version: str) -> Any:
    return ironic_client.get_client(
        "1", auth_type="none", endpoint=server.url, os_ironic_api_version=version
    )


def test_ironicclient_shows_the_description_of_an_unknown_path(
    compat_server: MetalwireServer,
) -> None:
    with pytest.raises(ironic_exceptions.NotFound) as caught:
        ironic(compat_server, "1.78").http_client.json_request("GET", "/v1/nowhere")
    assert str(caught.value).startswith("The resource could not be found. (HTTP 404)")


def test_ironicclient_shows_why_a_resource_is_not_there_at_an_old_version(
    compat_server: MetalwireServer,
) -> None:
    with pytest.raises(ironic_exceptions.NotFound) as caught:
        ironic(compat_server, "1.27").node.vif_list("any-node")
    assert "could not be found at API version 1.27; it exists from 1.28" in str(caught.value)


def test_ironicclient_negotiates_from_the_406_of_an_unserved_version(
    compat_server: MetalwireServer,
) -> None:
    with pytest.raises(ironic_exceptions.UnsupportedVersion) as caught:
        ironic(compat_server, ABOVE_LATEST).node.list()
    assert f"Supported version range is 1.1 to {LATEST}" in " ".join(str(caught.value).split())


def test_openstacksdk_raises_not_found_for_an_unknown_path(sdk: Any) -> None:
    resp = sdk.get("/nowhere", microversion="1.78")
    with pytest.raises(exceptions.NotFoundException) as caught:
        exceptions.raise_from_response(resp)
    assert caught.value.status_code == 404
    assert caught.value.details == "Not Found"


def test_openstacksdk_raises_406_for_an_unserved_version(sdk: Any) -> None:
    resp = sdk.get("/nodes", microversion=ABOVE_LATEST)
    assert resp.headers["X-OpenStack-Ironic-API-Maximum-Version"] == LATEST
    with pytest.raises(exceptions.HttpException) as caught:
        exceptions.raise_from_response(resp)
    assert caught.value.status_code == 406
    assert caught.value.details == "Not Acceptable"
