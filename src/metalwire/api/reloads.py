"""The files of the API the server reads again on SIGHUP or when they change on disk: the
htpasswd and personas files of ``http_basic`` and the policy file (see
:mod:`metalwire.reloading`)."""

from __future__ import annotations

from metalwire.api.auth.basic import HttpBasic
from metalwire.api.auth.policy import Policy
from metalwire.api.auth.strategy import Strategy
from metalwire.config import Config
from metalwire.reloading import Reloadable, Reloader


def api_files(config: Config, strategy: Strategy, policy: Policy) -> Reloader:
    """A reloader with the files this configuration reads, not started."""
    reloader = Reloader(config.default.file_reload_interval)
    if isinstance(strategy, HttpBasic):  # the only strategy that reads files
        name = f"[DEFAULT] http_basic_auth_user_file {strategy.user_file}"
        paths = [strategy.user_file]
        if strategy.personas_file:
            name += f" and http_basic_auth_personas_file {strategy.personas_file}"
            paths.append(strategy.personas_file)
        reloader.register(Reloadable(name, paths, strategy.reload))
    policy_file = config.oslo_policy.policy_file
    if policy.enabled and policy_file:
        reloader.register(
            Reloadable(f"[oslo_policy] policy_file {policy_file}", [policy_file], policy.reload)
        )
    return reloader
