"""The list filters of the ``metalwire`` program that narrow by a field other commands set:
``port list --physical-network``, ``node list --instance-uuid`` and ``--chassis-uuid``."""

from __future__ import annotations

import json
import uuid

from metalwire.client import Client, patch
from tests.cli.conftest import Run
from tests.client.util import mac, unique


def _column(cli: Run, column: str, *argv: str) -> set[str]:
    result = cli(*argv, "--limit", "0", "-f", "json")
    assert result.code == 0, result.stderr
    return {row[column] for row in json.loads(result.stdout)}


def test_port_list_by_physical_network(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("physnets"))
    network = unique("fabric")
    on_it = mw.create_port(node.uuid, mac(), physical_network=network)
    mw.create_port(node.uuid, mac(), physical_network=unique("fabric"))
    mw.create_port(node.uuid, mac())

    assert _column(cli, "UUID", "port", "list", "--physical-network", network) == {on_it.uuid}
    assert _column(cli, "UUID", "port", "list", "--physical-network", unique("none")) == set()
    empty = cli("port", "list", "--physical-network", "")
    assert empty.code == 2 and "must not be empty" in empty.stderr


def test_node_list_by_instance_and_by_chassis(cli: Run, mw: Client) -> None:
    instance = str(uuid.uuid4())
    with_instance = mw.create_node("fake-hardware", name=unique("instance"))
    mw.update_node(with_instance.uuid, [patch.add("instance_uuid", instance)])
    chassis = mw.create_chassis(description=unique("rack"))
    in_chassis = mw.create_node("fake-hardware", name=unique("racked"), chassis_uuid=chassis.uuid)
    mw.create_node("fake-hardware", name=unique("elsewhere"))

    assert _column(cli, "Name", "node", "list", "--instance-uuid", instance) == {with_instance.name}
    assert _column(cli, "Name", "node", "list", "--chassis-uuid", chassis.uuid) == {in_chassis.name}
    missing = cli("node", "list", "--chassis-uuid", str(uuid.uuid4()))
    assert missing.code == 1 and "could not be found" in missing.stderr, missing.stderr
