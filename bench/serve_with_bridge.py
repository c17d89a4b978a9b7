"""``metalwire serve`` with keystonemiddleware behind a bridge in place of the keystone strategy.

Takes the arguments and the configuration of ``metalwire serve`` (which must ask for
``auth_strategy = keystone``, so that the policy is enforced as in production) and runs the
very same command, except that the application it builds authenticates through
:class:`keystonemiddleware_bridge.KeystonemiddlewareBridge`. No production option selects it:

    METALWIRE_AUTH_STRATEGY=keystone METALWIRE_KEYSTONE_AUTHTOKEN_AUTH_URL=... \\
        python bench/serve_with_bridge.py serve --host 127.0.0.1 --port 6390 --data-dir D
"""

from __future__ import annotations

import sys
from typing import cast

from fastapi import FastAPI
from keystonemiddleware_bridge import KeystonemiddlewareBridge

from metalwire.api import app as app_module
from metalwire.api.auth.middleware import AuthMiddleware
from metalwire.cli import main as cli_main
from metalwire.config import Config
from metalwire.errors import Invalid
from metalwire.services import Services, WorkerPlace

_create_app = app_module.create_app


def create_app_with_bridge(
    config: Config, services: Services | None = None, worker: WorkerPlace | None = None
) -> FastAPI:
    """The application ``metalwire serve`` builds, its auth middleware given the bridge."""
    if config.default.auth_strategy != "keystone":
        raise Invalid(
            "serve_with_bridge needs [DEFAULT] auth_strategy = keystone, not "
            f"{config.default.auth_strategy!r}: the bridge replaces that strategy"
        )
    app = _create_app(config, services, worker)
    bridge = KeystonemiddlewareBridge(config.keystone_authtoken)
    replaced = 0
    for middleware in app.user_middleware:
        if cast(object, middleware.cls) is AuthMiddleware:
            middleware.kwargs["strategy"] = bridge
            replaced += 1
    if replaced != 1:
        raise RuntimeError(f"expected one AuthMiddleware in the application, found {replaced}")
    return app


def main(argv: list[str]) -> int:
    # run_serve imports create_app from this module when it runs: it picks up the wrapper.
    app_module.create_app = create_app_with_bridge
    return cli_main.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
