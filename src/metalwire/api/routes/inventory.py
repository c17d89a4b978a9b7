"""``/v1/nodes/{node}/inventory``: the hardware inventory an inspection stored (from API
version 1.81).

metalwire's inspections read no hardware (the ``fake`` inspect interface's, and the
``redfish`` ones', finish at once; an ``agent`` one ends before any ramdisk reports): no
node has an inventory, and each answers 404 as Ironic does for a node without one.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from metalwire.api import microversion as mv
from metalwire.api.route_docs import doc
from metalwire.api.routes import authz
from metalwire.api.routes.common import call
from metalwire.db import nodes as node_db
from metalwire.errors import NodeInventoryNotFound

router = APIRouter(prefix="/v1/nodes/{ident}/inventory")


@router.get(
    "",
    openapi_extra=doc(
        "getNodeInventory",
        "The hardware inventory a node's inspection stored; none is stored by metalwire, "
        "so the answer is 404.",
        "nodes",
        ok="The inventory and the plugin data.",
        since=mv.NODE_INVENTORY,
    ),
)
def get_inventory(request: Request, ident: str) -> dict[str, Any]:
    c = call(request)
    c.require(mv.NODE_INVENTORY)
    with c.services.db.read() as session:
        node = node_db.get(session, ident)
        authz.node(c, "baremetal:node:inventory:get", node, ident)
    raise NodeInventoryNotFound(node.uuid)
