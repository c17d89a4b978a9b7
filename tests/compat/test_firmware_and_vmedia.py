"""A node's firmware components (1.86) and virtual media (1.89) through the unmodified
``baremetal`` program and openstacksdk, against a real server: both were 404."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.compat.clients import Cli, unique
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def baremetal(compat_server: MetalwireServer, cli_env: dict[str, str]) -> Cli:
    return Cli("baremetal", compat_server.url, cli_env)


def test_node_firmware_list_shows_no_components(baremetal: Cli) -> None:
    node = unique("fw")
    baremetal.ok("node", "create", "--driver", "fake-hardware", "--name", node)
    assert baremetal.json("node", "firmware", "list", node) == []
    missing = baremetal.run("node", "firmware", "list", unique("nowhere"))
    assert missing.returncode != 0 and "could not be found" in missing.stderr, missing.describe()


def test_sdk_attaches_and_detaches_virtual_media(sdk: Any, http: httpx.Client) -> None:
    """The baremetal program has no virtual media commands; openstacksdk has."""
    node = sdk.create_node(
        driver="redfish", name=unique("vm"), driver_info={"redfish_address": "https://192.0.2.7"}
    )
    sdk.attach_vmedia_to_node(node, "cdrom", "http://images.example/boot.iso")
    devices = http.get(f"/v1/nodes/{node.id}/vmedia").json()
    assert {
        "media_types": ["CD"],
        "inserted": True,
        "image": "http://images.example/boot.iso",
    } in devices
    assert sdk.detach_vmedia_from_node(node, device_types=["cdrom"]) is None
    assert not any(d["inserted"] for d in http.get(f"/v1/nodes/{node.id}/vmedia").json())


def test_sdk_virtual_media_of_fake_hardware_is_refused_in_the_history(
    sdk: Any, http: httpx.Client
) -> None:
    node = sdk.create_node(driver="fake-hardware", name=unique("vmf"))
    sdk.attach_vmedia_to_node(node, "cdrom", "http://images.example/boot.iso")
    assert "does not support attach_virtual_media" in sdk.get_node(node.id).last_error
