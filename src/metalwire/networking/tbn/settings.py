"""The ``[conductor] trait_based_networking_*`` options put to use: the rules to plan with."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from metalwire.config import ConductorOptions
from metalwire.networking.tbn.planner import PlanningOptions
from metalwire.networking.tbn.rules import RuleSet, load_rules

LOG = logging.getLogger(__name__)


@dataclass
class RulesInForce:
    """The rules every new task plans with (None: the feature is off); a reload swaps them."""

    rules: RuleSet | None = None


def configured_rules(conductor: ConductorOptions) -> RuleSet | None:
    """The rules of ``trait_based_networking_config_file`` when the feature is enabled, else
    None. An invalid or unreadable file raises TbnRulesInvalid (the service does not start)."""
    if not conductor.enable_trait_based_networking:
        return None
    path = conductor.trait_based_networking_config_file
    rules = load_rules(path)
    LOG.info(
        "trait-based networking: %d trait(s) from %s: %s",
        len(rules.traits),
        path,
        ", ".join(trait.name for trait in rules.traits) or "none",
    )
    return rules


def planning_options(conductor: ConductorOptions) -> PlanningOptions:
    return PlanningOptions(
        enable_default_trait=conductor.trait_based_networking_enable_default_trait,
        raise_when_no_match=conductor.trait_based_networking_raise_when_no_match,
    )
