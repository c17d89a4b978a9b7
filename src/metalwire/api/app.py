"""Builds the ASGI application: routes, error handlers and middleware, in front of the services
(built by :mod:`metalwire.services` unless given)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator

import anyio.to_thread
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from metalwire.api import errors
from metalwire.api.auth.middleware import AuthMiddleware
from metalwire.api.auth.policy import Policy
from metalwire.api.auth.startup import build_strategy
from metalwire.api.cross_site import CrossSiteGuard
from metalwire.api.healthcheck import Healthcheck
from metalwire.api.log_context import LogContext
from metalwire.api.metrics import MetricsEndpoint, RequestMetrics, RouteRecorder
from metalwire.api.middleware import ApiMiddleware, RequestLimits
from metalwire.api.paths import IronicPaths
from metalwire.api.reloads import api_files
from metalwire.api.retry_after import RetryAfterForIronicclient
from metalwire.api.route_table import api_routes
from metalwire.api.routes.vifs import VifEndpoints
from metalwire.conductor.locks import NodeLocks
from metalwire.conductor.periodic import STOP_WAIT
from metalwire.config import Config
from metalwire.errors import MetalwireError
from metalwire.services import Services, WorkerPlace, build_services


def create_app(
    config: Config, services: Services | None = None, worker: WorkerPlace | None = None
) -> FastAPI:
    """The application; builds in-process services unless given others (e.g. a remote RPC).

    A ``worker`` of several leaves the schema to the supervisor, which upgraded it."""
    locks: NodeLocks | None = None
    strategy = build_strategy(config)  # before the services: a bad auth setup opens nothing
    policy = Policy(config)  # the rules are parsed once, here (and again on reloads)
    if services is None:
        services, locks = build_services(config, upgrade_schema=worker is None, worker=worker)
    reloader = api_files(config, strategy, policy, services)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        heartbeat = await anyio.to_thread.run_sync(services.periodic_heartbeat)  # registers
        candidates = (heartbeat, services.periodic_audit(), services.periodic_provision_check())
        periodics = [periodic for periodic in candidates if periodic is not None]
        for periodic in periodics:
            periodic.start()
        await anyio.to_thread.run_sync(services.resume_timed_waits)
        reloader.start()
        yield
        reloader.stop()
        for periodic in periodics:  # a run under way ends meanwhile; none starts
            periodic.ask_to_stop()
        # The provision steps still running after their request was answered.
        timeout = config.default.graceful_shutdown_timeout
        left = await anyio.to_thread.run_sync(services.rpcapi.wait_for_background, timeout)
        deadline = time.monotonic() + STOP_WAIT  # for an audit or check under way, together
        for periodic in periodics:
            remaining = max(0.0, deadline - time.monotonic())
            if not await anyio.to_thread.run_sync(periodic.stop, remaining):
                left.append(periodic.name)
        if heartbeat is not None:  # a clean stop: this conductor is offline
            await anyio.to_thread.run_sync(services.registry.unregister)
        if locks is not None:  # the services are this app's own: close them
            if left:  # cut short, their threads may write until the process ends
                locks.stop_renewing()
            else:
                locks.release_all()
            services.db.dispose()

    app = FastAPI(
        title="metalwire", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan
    )
    app.state.services = services
    app.state.policy = policy
    app.state.reloader = reloader  # metalwire serve's SIGHUP handler asks it to reload
    # The routes are added flat, the busiest first: the router tries them in order. The
    # VIF endpoints, the busiest of all, are answered in front of the router.
    app.router.routes.extend(api_routes())
    app.add_exception_handler(MetalwireError, errors.on_metalwire_error)
    app.add_exception_handler(HTTPException, errors.on_http_error)
    app.add_exception_handler(RequestValidationError, errors.on_validation_error)
    measured = config.metrics.enabled
    if measured:
        app.add_middleware(RouteRecorder)  # innermost: sees the route the router matched
    app.add_middleware(VifEndpoints)
    app.add_middleware(IronicPaths)  # the path the routes answer; malformed idents refused
    if measured and not config.metrics.public:
        app.add_middleware(MetricsEndpoint, db=services.db, audit=services.audit)
    app.add_middleware(CrossSiteGuard)  # metalwire's own writes, once the requester is known
    app.add_middleware(AuthMiddleware, strategy=strategy, policy=policy)  # every endpoint
    if measured and config.metrics.public:
        app.add_middleware(MetricsEndpoint, db=services.db, audit=services.audit)
    # The request pipeline: every request, the VIF door's too, goes through it. (Middleware
    # added later runs earlier: the health check, the counting, the log context.)
    limits = RequestLimits(
        max_body_size=config.api.max_request_body_size,
        max_header_size=config.api.max_header_size,
        max_header_total_size=config.api.max_header_total_size,
        max_header_count=config.api.max_header_count,
        body_timeout=config.api.body_timeout,
    )
    app.add_middleware(ApiMiddleware, limits=limits)
    if config.healthcheck.enabled:  # unauthenticated, before the pipeline, as Ironic's
        app.add_middleware(Healthcheck, db=services.db, options=config.healthcheck)
    if measured:
        app.add_middleware(RequestMetrics)  # every answer is counted
    app.add_middleware(RetryAfterForIronicclient)  # its 503s must carry no Retry-After
    app.add_middleware(LogContext)  # outermost: every line logged names its request
    return app
