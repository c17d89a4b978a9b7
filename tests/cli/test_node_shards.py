"""``metalwire node create|set --shard``, ``node unset --shard`` and ``node list --shard|
--sharded`` (API 1.82), against a real server."""

from __future__ import annotations

import json

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import unique


def _listed(cli: Run, *filters: str) -> set[str]:
    result = cli("node", "list", *filters, "--limit", "0", "-f", "json")
    assert result.code == 0, result.stderr
    return {row["Name"] for row in json.loads(result.stdout)}


def test_shards_set_created_listed_and_unset(cli: Run, mw: Client) -> None:
    shard_a, shard_b = unique("shard"), unique("shard")
    in_a, in_b, in_none = unique("sharded"), unique("sharded"), unique("unsharded")
    created = cli(
        "node", "create", "--driver", "fake-hardware", "--name", in_a, "--shard", shard_a,
        "-f", "value", "-c", "shard",
    )  # fmt: skip
    assert (created.code, created.stdout) == (0, f"{shard_a}\n"), created.stderr
    mw.create_node("fake-hardware", name=in_b)
    mw.create_node("fake-hardware", name=in_none)
    assert cli("node", "set", in_b, "--shard", shard_b).code == 0
    assert mw.get_node(in_b)["shard"] == shard_b

    assert _listed(cli, "--shard", shard_a) == {in_a}
    assert _listed(cli, "--shard", f"{shard_a},{shard_b}") == {in_a, in_b}
    unsharded = _listed(cli, "--sharded", "false")
    assert in_none in unsharded and not {in_a, in_b} & unsharded
    assert {in_a, in_b} <= _listed(cli, "--sharded", "true")

    assert cli("node", "unset", in_b, "--shard").code == 0
    assert mw.get_node(in_b)["shard"] is None
    assert _listed(cli, "--shard", f"{shard_a},{shard_b}") == {in_a}

    both = cli("node", "list", "--shard", shard_a, "--sharded", "true")
    assert both.code == 2 and "not allowed with argument" in both.stderr, both.stderr
