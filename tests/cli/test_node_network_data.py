"""``metalwire node create|set --network-data`` and ``node unset --network-data``: a node's
static network configuration (its config drive's network_data.json) as the baremetal program
takes it: JSON text, a .json or .yaml file, or standard input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from metalwire.client import Client
from tests.cli.conftest import Run, clean_env
from tests.client.util import unique
from tests.support.server import MetalwireServer

NETWORK_DATA = {
    "links": [{"id": "eth0", "type": "phy", "ethernet_mac_address": "52:54:00:ee:00:01"}],
    "networks": [
        {
            "id": "provisioning",
            "type": "ipv4",
            "link": "eth0",
            "ip_address": "192.0.2.10",
            "netmask": "255.255.255.0",
            "network_id": "provisioning",
        }
    ],
    "services": [{"type": "dns", "address": "192.0.2.53"}],
}
# The same document as YAML, its MAC address unquoted.
NETWORK_DATA_YAML = """\
links:
  - {id: eth0, type: phy, ethernet_mac_address: 52:54:00:ee:00:01}
networks:
  - id: provisioning
    type: ipv4
    link: eth0
    ip_address: 192.0.2.10
    netmask: 255.255.255.0
    network_id: provisioning
services:
  - {type: dns, address: 192.0.2.53}
"""


def test_network_data_from_json_a_yaml_file_and_stdin_and_unset(
    cli: Run, mw: Client, server: MetalwireServer, tmp_path: Path
) -> None:
    name = unique("netdata")
    created = cli(
        "node", "create", "--driver", "fake-hardware", "--name", name,
        "--network-data", json.dumps(NETWORK_DATA), "-f", "json",
    )  # fmt: skip
    assert created.code == 0, created.stderr
    assert json.loads(created.stdout)["network_data"] == NETWORK_DATA

    assert cli("node", "unset", name, "--network-data").code == 0
    assert mw.get_node(name)["network_data"] == {}

    document = tmp_path / "network.yaml"
    document.write_text(NETWORK_DATA_YAML, encoding="utf-8")
    done = cli("node", "set", name, "--network-data", str(document))
    assert (done.code, done.stderr) == (0, ""), done.stderr
    assert mw.get_node(name)["network_data"] == NETWORK_DATA

    assert cli("node", "unset", name, "--network-data").code == 0
    piped = subprocess.run(
        [sys.executable, "-m", "metalwire.cli.main", "node", "set", name, "--network-data", "-"],
        input=json.dumps(NETWORK_DATA),
        env=clean_env(METALWIRE_URL=server.url),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert piped.returncode == 0, piped.stderr
    assert mw.get_node(name)["network_data"] == NETWORK_DATA


def test_network_data_that_is_not_a_document_is_refused_before_anything_is_sent(
    cli: Run, mw: Client, tmp_path: Path
) -> None:
    name = unique("netdata")
    mw.create_node("fake-hardware", name=name)
    not_json = cli("node", "set", name, "--network-data", "{links: []")
    assert not_json.code == 2
    assert "argument --network-data: expected JSON, the name of a .json or .yaml file" in (
        not_json.stderr
    )
    text_file = tmp_path / "network.txt"
    text_file.write_text("{}", encoding="utf-8")
    other = cli("node", "set", name, "--network-data", str(text_file))
    assert other.code == 2 and "it must be .json or .yaml" in other.stderr, other.stderr
    broken = tmp_path / "network.yaml"
    broken.write_text("links: [", encoding="utf-8")
    unparsed = cli("node", "set", name, "--network-data", str(broken))
    assert unparsed.code == 2 and "is invalid" in unparsed.stderr, unparsed.stderr

    # A document the server refuses: its message, the node unchanged.
    refused = cli("node", "set", name, "--network-data", '{"links": "eth0"}', "--owner", "ops")
    assert refused.code == 1 and "HTTP 400" in refused.stderr, refused.stderr
    node = mw.get_node(name)
    assert (node["network_data"], node["owner"]) == ({}, None)
