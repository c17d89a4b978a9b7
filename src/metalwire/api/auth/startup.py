"""The strategy a configuration asks for, and the checks that refuse an unsafe start."""

from __future__ import annotations

import ipaddress
import logging

from metalwire.api.auth.basic import HttpBasic
from metalwire.api.auth.strategy import NoAuth, Strategy
from metalwire.config import Config
from metalwire.errors import Invalid

LOG = logging.getLogger(__name__)
STRATEGIES = ("noauth", "http_basic", "keystone")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_listen_address(config: Config) -> None:
    """Refuse noauth on an address others can reach, unless the operator insists."""
    if config.default.auth_strategy != "noauth" or is_loopback(config.api.host_ip):
        return
    if not config.api.allow_insecure_noauth:
        raise Invalid(
            f"refusing to serve on {config.api.host_ip} with [DEFAULT] auth_strategy = noauth: "
            "anyone reaching the port could change every node. Set auth_strategy to "
            "http_basic or keystone, or [api] allow_insecure_noauth = true to accept the risk."
        )
    LOG.warning(
        "serving on %s with auth_strategy noauth: every client is an administrator",
        config.api.host_ip,
    )


def build_strategy(config: Config) -> Strategy:
    """The configured strategy, ready to use; raises :class:`Invalid` naming what is wrong."""
    name = config.default.auth_strategy
    if name == "noauth":
        return NoAuth()
    if name == "http_basic":
        return HttpBasic(
            config.default.http_basic_auth_user_file,
            config.default.http_basic_auth_personas_file,
        )
    if name == "keystone":
        from metalwire.api.auth.keystone import KeystoneStrategy

        return KeystoneStrategy(config.keystone_authtoken)
    raise Invalid(
        f"configuration option [DEFAULT] auth_strategy: {name!r} is not one of "
        + ", ".join(STRATEGIES)
    )
