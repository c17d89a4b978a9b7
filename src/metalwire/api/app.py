"""Builds the ASGI application: routes, error handlers and middleware, in front of the services
(built by :mod:`metalwire.services` unless given)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from metalwire.api import errors, openapi
from metalwire.api.app_services import Services
from metalwire.api.auth.middleware import AuthMiddleware
from metalwire.api.auth.policy import Policy
from metalwire.api.auth.startup import build_strategy
from metalwire.api.bookmarks import BookmarkPaths
from metalwire.api.middleware import ApiMiddleware
from metalwire.api.routes import history, nodes, portgroups, ports, root, states, traits
from metalwire.api.routes.vifs import VifEndpoints
from metalwire.conductor.locks import NodeLocks
from metalwire.config import Config
from metalwire.errors import MetalwireError
from metalwire.services import build_services


def create_app(config: Config, services: Services | None = None) -> FastAPI:
    """The application; builds in-process services unless given others (e.g. a remote RPC)."""
    locks: NodeLocks | None = None
    strategy = build_strategy(config)  # before the services: a bad auth setup opens nothing
    policy = Policy(config)  # the rules are parsed once, here
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
    app.state.policy = policy
    # The routes are added flat, the busiest first: the router tries them in order. The
    # VIF endpoints, the busiest of all, are answered in front of the router.
    for module in (nodes, ports, portgroups, states, history, traits, root, openapi):
        app.router.routes.extend(module.router.routes)
    app.add_exception_handler(MetalwireError, errors.on_metalwire_error)
    app.add_exception_handler(HTTPException, errors.on_http_error)
    app.add_exception_handler(RequestValidationError, errors.on_validation_error)
    app.add_middleware(VifEndpoints)
    app.add_middleware(BookmarkPaths)
    app.add_middleware(AuthMiddleware, strategy=strategy)  # in front of every endpoint
    # Added last, so it runs first: every request, the VIF door's too, goes through it.
    app.add_middleware(ApiMiddleware, max_body_size=config.api.max_request_body_size)
    return app
