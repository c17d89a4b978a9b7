"""The files of the API the server reads again on SIGHUP or when they change on disk: the
htpasswd and personas files of ``http_basic``, the policy file and the trait-based networking
rules file (see :mod:`metalwire.reloading`)."""

from __future__ import annotations

from metalwire.api.auth.basic import HttpBasic
from metalwire.api.auth.policy import Policy
from metalwire.api.auth.strategy import Strategy
from metalwire.config import Config
from metalwire.networking.tbn.rules import load_rules
from metalwire.reloading import Reloadable, Reloader
from metalwire.services import Services


def api_files(config: Config, strategy: Strategy, policy: Policy, services: Services) -> Reloader:
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
    if services.tbn.rules is not None:
        reloader.register(_tbn_rules(config, services))
    return reloader


def _tbn_rules(config: Config, services: Services) -> Reloadable:
    path = config.conductor.trait_based_networking_config_file

    def load() -> str:
        rules = load_rules(path)  # TbnRulesInvalid names each mistake's line
        services.tbn.rules = rules
        names = ", ".join(trait.name for trait in rules.traits) or "none"
        return f"{len(rules.traits)} trait(s): {names}"

    return Reloadable(f"[conductor] trait_based_networking_config_file {path}", [path], load)
