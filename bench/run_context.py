"""What every phase of bench/run.py works with: the options, the negotiated API version,
the nodes made for the run, the summary being filled, and a pool of connections."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from run_http import Api

NOOP_SKIP = "skipped (noop records nothing)"

T = TypeVar("T")


def log(msg: str) -> None:
    print(f"[run {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


@dataclass
class Node:
    uuid: str
    name: str
    network_interface: str
    ports: list[str] = field(default_factory=list)


@dataclass
class Bench:
    args: argparse.Namespace
    api_version: str = ""
    nodes: list[Node] = field(default_factory=list)
    burst_node: Node | None = None
    created: bool = False
    mac_prefix: tuple[int, int] = (0, 0)
    summary: dict[str, Any] = field(default_factory=dict)

    def api(self) -> Api:
        return Api(self.args.url, self.api_version, self.args.timeout, self.args.token)

    def pool_map(self, fn: Callable[[Api, T], Any], items: Sequence[T], workers: int) -> None:
        """Run fn(api, item) over items with a few workers, each with its own connection."""
        local = threading.local()
        apis: list[Api] = []
        lock = threading.Lock()

        def run(item: T) -> Any:
            api = getattr(local, "api", None)
            if api is None:
                api = self.api()
                local.api = api
                with lock:
                    apis.append(api)
            return fn(api, item)

        try:
            with ThreadPoolExecutor(max_workers=max(1, min(workers, len(items)))) as pool:
                list(pool.map(run, items))
        finally:
            for api in apis:
                api.close()

    @property
    def all_nodes(self) -> list[Node]:
        return self.nodes + ([self.burst_node] if self.burst_node else [])

    def noop(self, nodes: Iterable[Node]) -> bool:
        return all(n.network_interface == "noop" for n in nodes)
