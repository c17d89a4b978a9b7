"""Every route of the application, in the order the router tries them: the busiest first.

The VIF endpoints, the busiest of all, are answered in front of the router
(:class:`~metalwire.api.routes.vifs.VifEndpoints`); their declarations are
:data:`~metalwire.api.routes.vifs.DOORS`.
"""

from __future__ import annotations

from starlette.routing import BaseRoute

from metalwire.api import openapi
from metalwire.api.routes import (
    allocations,
    audit,
    bios,
    boot_mode,
    chassis,
    conductors,
    console,
    deploy_templates,
    drivers,
    events,
    firmware,
    history,
    inspection,
    inventory,
    management,
    nodes,
    portgroups,
    ports,
    power,
    root,
    runbooks,
    shards,
    states,
    traits,
    validate,
    vmedia,
    volume,
)
from metalwire.api.routes import lookup as node_lookup
from metalwire.api.ui import pages as ui_pages


def api_routes() -> list[BaseRoute]:
    """The routes to add, flat, to the application's router."""
    out: list[BaseRoute] = []
    for module in (
        nodes,
        ports,
        portgroups,
        states,
        power,
        boot_mode,
        console,
        validate,
        management,
        volume,
        chassis,
        deploy_templates,
        runbooks,
        allocations,
        history,
        inventory,
        firmware,
        bios,
        vmedia,
        traits,
        shards,
        drivers,
        conductors,
        events,
        inspection,
        root,
        audit,
        openapi,
    ):
        out.extend(module.router.routes)
    out.extend(allocations.node_router.routes)  # /v1/nodes/{node}/allocation
    out.extend(node_lookup.router.routes)  # what the topology page lists
    out.extend(ui_pages.routes)  # the topology page, last: the least busy
    return out
