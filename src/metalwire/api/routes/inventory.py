"""``/v1/nodes/{node}/inventory``: what a node's last ``agent`` inspection stored (from API
version 1.81), as Ironic's: ``{"inventory": ..., "plugin_data": ...}``.

The ``fake`` and ``redfish`` inspections read no hardware and store nothing; a node no
``agent`` inspection finished answers 404 as Ironic does for a node without an inventory.
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
        "The hardware inventory the node's last agent inspection stored, and the plugin "
        "data; 404 when none did.",
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
    with c.services.db.reading() as work:
        stored = work.inspection_data.of_node(node.id)
    if stored is None:
        raise NodeInventoryNotFound(node.uuid)
    return {"inventory": stored.inventory, "plugin_data": stored.plugin_data}
