"""Deletes racing deletes and patches of one port or portgroup: the loser gets 404, never 500."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.conftest import Api

RACES = 6


def _race(*calls: Callable[[], Any]) -> list[int]:
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], Any]) -> int:
        barrier.wait()
        return int(call().status_code)

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


@pytest.mark.parametrize("kind", ["ports", "portgroups"])
def test_two_deletes_of_one_object_give_204_and_404(api: Api, kind: str) -> None:
    node = api.node()
    for i in range(RACES):
        made = (
            api.port(node, f"52:54:00:de:00:{i:02x}")
            if kind == "ports"
            else api.portgroup(node, name=f"bond-{i}")
        )
        url = f"/v1/{kind}/{made['uuid']}"
        statuses = _race(lambda u=url: api.delete(u), lambda u=url: api.delete(u))
        assert sorted(statuses) == [204, 404]
        assert api.get(url).status_code == 404


def test_a_delete_racing_a_patch_never_answers_500(api: Api) -> None:
    node = api.node()
    patch = [{"op": "add", "path": "/extra/k", "value": "v"}]
    for i in range(RACES):
        for url in (
            f"/v1/ports/{api.port(node, f'52:54:00:df:00:{i:02x}')['uuid']}",
            f"/v1/portgroups/{api.portgroup(node, name=f'race-{i}')['uuid']}",
        ):
            deleted, patched = _race(lambda u=url: api.delete(u), lambda u=url: api.patch(u, patch))
            assert deleted == 204
            assert patched in (200, 404)
            assert api.get(url).status_code == 404
