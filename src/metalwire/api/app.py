"""Builds the ASGI application: routes, error handlers and middleware, in front of the services
(built by :mod:`metalwire.services` unless given)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio.to_thread
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from metalwire.api import errors, openapi
from metalwire.api.auth.middleware import AuthMiddleware
from metalwire.api.auth.policy import Policy
from metalwire.api.auth.startup import build_strategy
from metalwire.api.bookmarks import BookmarkPaths
from metalwire.api.metrics import MetricsEndpoint, RequestMetrics, RouteRecorder
from metalwire.api.middleware import ApiMiddleware
from metalwire.api.routes import (
    audit,
    history,
    nodes,
    portgroups,
    ports,
    root,
    shards,
    states,
    traits,
)
from metalwire.api.routes import lookup as node_lookup
from metalwire.api.routes.vifs import VifEndpoints
from metalwire.api.ui import pages as ui_pages
from metalwire.conductor.audit_runner import STOP_WAIT
from metalwire.conductor.locks import NodeLocks
from metalwire.config import Config
from metalwire.errors import MetalwireError
from metalwire.services import Services, build_services


def create_app(config: Config, services: Services | None = None) -> FastAPI:
    """The application; builds in-process services unless given others (e.g. a remote RPC)."""
    locks: NodeLocks | None = None
    strategy = build_strategy(config)  # before the services: a bad auth setup opens nothing
    policy = Policy(config)  # the rules are parsed once, here
    if services is None:
        services, locks = build_services(config)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        periodic = services.periodic_audit()
        if periodic is not None:
            periodic.start()
        yield
        if periodic is not None:
            # Lets an audit under way finish, within bounds.
            await anyio.to_thread.run_sync(periodic.stop, STOP_WAIT)
        if locks is not None:  # the services are this app's own: close them
            locks.release_all()
            services.db.dispose()

    app = FastAPI(
        title="metalwire", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan
    )
    app.state.services = services
    app.state.policy = policy
    # The routes are added flat, the busiest first: the router tries them in order. The
    # VIF endpoints, the busiest of all, are answered in front of the router.
    for module in (nodes, ports, portgroups, states, history, traits, shards, root, audit, openapi):
        app.router.routes.extend(module.router.routes)
    app.router.routes.extend(node_lookup.router.routes)  # what the topology page lists
    app.router.routes.extend(ui_pages.routes)  # the topology page, last: the least busy
    app.add_exception_handler(MetalwireError, errors.on_metalwire_error)
    app.add_exception_handler(HTTPException, errors.on_http_error)
    app.add_exception_handler(RequestValidationError, errors.on_validation_error)
    measured = config.metrics.enabled
    if measured:
        app.add_middleware(RouteRecorder)  # innermost: sees the route the router matched
    app.add_middleware(VifEndpoints)
    app.add_middleware(BookmarkPaths)
    if measured and not config.metrics.public:
        app.add_middleware(MetricsEndpoint, db=services.db, audit=services.audit)
    app.add_middleware(AuthMiddleware, strategy=strategy)  # in front of every endpoint
    if measured and config.metrics.public:
        app.add_middleware(MetricsEndpoint, db=services.db, audit=services.audit)
    # Added last, so it runs first: every request, the VIF door's too, goes through it.
    app.add_middleware(ApiMiddleware, max_body_size=config.api.max_request_body_size)
    if measured:
        app.add_middleware(RequestMetrics)  # outermost: every answer is counted
    return app
