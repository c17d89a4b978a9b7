"""One CRUD contract for nodes, ports and portgroups, run by tests/api/test_crud.py.

Each resource says how to make a valid body; the harness checks what every Ironic resource
does the same way: create (201, Location), show, list, patch, delete, and the 404/409s.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Makes a valid create body, given a function that makes the node a port or portgroup needs.
BodyMaker = Callable[[Callable[[], str], int], dict[str, Any]]


@dataclass(frozen=True)
class Resource:
    collection: str  # "nodes", "ports", "portgroups"
    make_body: BodyMaker

    @property
    def key(self) -> str:
        return self.collection


def _node_body(_node: Callable[[], str], i: int) -> dict[str, Any]:
    return {"driver": "fake-hardware", "name": f"crud-node-{i}"}


def _port_body(node: Callable[[], str], i: int) -> dict[str, Any]:
    return {"node_uuid": node(), "address": f"52:54:00:c0:00:{i:02x}"}


def _portgroup_body(node: Callable[[], str], i: int) -> dict[str, Any]:
    return {"node_uuid": node(), "name": f"crud-bond-{i}"}


RESOURCES = [
    Resource("nodes", _node_body),
    Resource("ports", _port_body),
    Resource("portgroups", _portgroup_body),
]


def a_uuid() -> str:
    return str(uuid.uuid4())
