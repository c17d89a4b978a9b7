"""Builds the ASGI application: routes, error handlers, middleware and the services behind."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from metalwire.api import errors, openapi
from metalwire.api.app_services import Services
from metalwire.api.middleware import ApiMiddleware
from metalwire.api.routes import history, nodes, portgroups, ports, root, states, traits
from metalwire.api.routes.vifs import VifEndpoints
from metalwire.conductor.locks import NodeLocks, make_holder_name
from metalwire.conductor.rpcapi import LocalConductorAPI
from metalwire.conductor.tasks import Conductor
from metalwire.config import Config
from metalwire.db import migrations
from metalwire.db.engine import Database
from metalwire.errors import MetalwireError
from metalwire.networking.loader import NetworkInterfaces


def build_services(config: Config, upgrade_schema: bool = True) -> tuple[Services, NodeLocks]:
    """The in-process services: database, conductor and its locks, behind the local RPC API."""
    db = Database(config.database_url(), config.database.pool_size)
    if upgrade_schema:
        migrations.upgrade(db.engine)
    locks = NodeLocks(
        db,
        make_holder_name(config.default.host),
        config.conductor.node_lock_lease,
        config.conductor.node_lock_wait,
    )
    conductor = Conductor(db=db, config=config, interfaces=NetworkInterfaces(config), locks=locks)
    return Services(config=config, db=db, rpcapi=LocalConductorAPI(conductor)), locks


def create_app(config: Config, services: Services | None = None) -> FastAPI:
    """The application; builds in-process services unless given others (e.g. a remote RPC)."""
    locks: NodeLocks | None = None
    if services is None:
        services, locks = build_services(config)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        if locks is not None:  # the services are this app's own: close them
            locks.release_all()
            services.db.dispose()

    app = FastAPI(
        title="metalwire", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan
    )
    app.state.services = services
    # The routes are added flat, the busiest first: the router tries them in order. The
    # VIF endpoints, the busiest of all, are answered in front of the router.
    for module in (nodes, ports, portgroups, states, history, traits, root, openapi):
        app.router.routes.extend(module.router.routes)
    app.add_exception_handler(MetalwireError, errors.on_metalwire_error)
    app.add_exception_handler(HTTPException, errors.on_http_error)
    app.add_exception_handler(RequestValidationError, errors.on_validation_error)
    app.add_middleware(VifEndpoints)
    app.add_middleware(ApiMiddleware)  # added last, so it runs first
    return app
