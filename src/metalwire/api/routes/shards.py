"""``/v1/shards`` (from API version 1.82): the shards nodes are in, and how many each has."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api.route_docs import doc
from metalwire.api.routes import authz
from metalwire.api.routes.common import call
from metalwire.db import nodes as node_db

router = APIRouter(prefix="/v1/shards")


@router.get(
    "",
    openapi_extra=doc(
        "listShards",
        "The nodes' shards with their node counts, largest first.",
        "shard",
        ok="The shards.",
        returns=bodies.SHARDS,
        errors=(403, 404, 406),
        since=mv.NODE_SHARD,
    ),
)
def list_shards(request: Request) -> dict[str, Any]:
    c = call(request)
    c.require(mv.NODE_SHARD, by_handler=True)
    authz.policy(c).authorize("baremetal:shards:get", authz.identity(c))
    with c.services.db.read() as session:
        counts = node_db.shard_counts(session)
    # As Ironic: nodes without a shard are counted under the name "None".
    return {"shards": [{"name": str(shard), "count": count} for shard, count in counts]}
