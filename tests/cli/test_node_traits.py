"""``metalwire node trait list|add|remove`` against a real server."""

from __future__ import annotations

import json

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import unique


def _traits(cli: Run, node: str) -> list[str]:
    result = cli("node", "trait", "list", node, "-f", "json")
    assert result.code == 0, result.stderr
    return [row["Trait"] for row in json.loads(result.stdout)]


def test_traits_added_listed_and_removed(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("traits")).name
    assert node is not None
    assert _traits(cli, node) == []

    added = cli("node", "trait", "add", node, "CUSTOM_GOLD", "HW_CPU_X86_AVX2", "CUSTOM_GOLD")
    assert added.code == 0, added.stderr
    assert _traits(cli, node) == ["CUSTOM_GOLD", "HW_CPU_X86_AVX2"]
    assert mw.node_traits(node) == ["CUSTOM_GOLD", "HW_CPU_X86_AVX2"]

    some_bad = cli("node", "trait", "add", node, "lower-case", "CUSTOM_SILVER")
    assert some_bad.code == 1
    assert f"Failed to add trait lower-case to node {node}: " in some_bad.stderr
    assert "HTTP 400" in some_bad.stderr, some_bad.stderr
    assert _traits(cli, node) == ["CUSTOM_GOLD", "CUSTOM_SILVER", "HW_CPU_X86_AVX2"]

    removed = cli("node", "trait", "remove", node, "CUSTOM_GOLD", "CUSTOM_NEVER")
    assert removed.code == 1
    assert f"Failed to remove trait CUSTOM_NEVER from node {node}: " in removed.stderr
    assert _traits(cli, node) == ["CUSTOM_SILVER", "HW_CPU_X86_AVX2"]

    neither = cli("node", "trait", "remove", node)
    assert neither.code == 2 and "--all" in neither.stderr, neither.stderr
    both = cli("node", "trait", "remove", node, "CUSTOM_SILVER", "--all")
    assert both.code == 2 and "--all" in both.stderr, both.stderr
    assert cli("node", "trait", "remove", node, "--all").code == 0
    assert _traits(cli, node) == []

    missing = cli("node", "trait", "list", unique("no-such-node"))
    assert missing.code == 1 and "could not be found" in missing.stderr, missing.stderr
