"""Planning a VIF attach by the node's traits: which trait applies and what each action does.

The node's traits (``instance_info['traits']``) that the rules name are tried by ``order``
(ascending; the file's order on a tie). Within a trait every action is planned in turn, each
on the ports and portgroups the earlier ones left free; the first trait with at least one
action that finds its targets is the plan. Ports and portgroups carrying a VIF are never
candidates, and candidates are considered newest first (Ironic's order).

- ``attach_port`` / ``attach_portgroup``: the free ports (portgroups) the filter matches;
  without ``min_count`` the first one, with it every match up to ``max_count`` and at least
  ``min_count``.
- ``group_and_attach_ports`` / ``bond_ports``: free standalone ports with
  ``available_for_dynamic_portgroup`` that the filter matches with the network left aside, all
  on the first pick's physical network, up to ``max_count`` and at least ``min_count``; then
  the filter must hold for the first pick and the VIF's network. They become a new dynamic
  portgroup (no address, that physical network) that takes the VIF.

When none of the node's traits has rules, the default trait (``CUSTOM_DEFAULT_TBN_TRAIT`` of
the file, or the built-in one: the first free portgroup, else the first free port) is tried
if ``enable_default_trait``. When nothing yields a plan, :class:`NoTraitMatches` (400) names
the node's traits, each trait tried and why each candidate was refused, if
``raise_when_no_match``; otherwise the plan is empty and says why.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from metalwire.errors import NoTraitMatches
from metalwire.networking.tbn.expression import Predicate
from metalwire.networking.tbn.rules import (
    DEFAULT_TRAIT_NAME,
    ActionKind,
    RuleSet,
    Trait,
    TraitAction,
)
from metalwire.networking.tbn.views import NetworkView, PortView

DYNAMIC_PORTGROUP_PREFIX = "tbn_dyn_portgroup_"

#: The built-in default: the first free portgroup, else the first free port.
BUILT_IN_DEFAULT = (
    Trait(
        DEFAULT_TRAIT_NAME,
        (TraitAction(ActionKind.ATTACH_PORTGROUP, Predicate("port.is_portgroup")),),
        0,
    ),
    Trait(DEFAULT_TRAIT_NAME, (TraitAction(ActionKind.ATTACH_PORT, Predicate("port.is_port")),), 1),
)


@dataclass(frozen=True)
class Refused:
    """A candidate an action did not take, and why."""

    target: PortView
    reason: str

    def describe(self) -> str:
        return f"{self.target.label} {self.reason}"


@dataclass(frozen=True)
class DynamicPortgroup:
    """The portgroup a grouping action would create (its name is generated when it is)."""

    member_uuids: tuple[str, ...]
    physical_network: str | None


@dataclass(frozen=True)
class ActionPlan:
    """One action of a trait: what it takes (``targets``), what it refused, or its ``problem``."""

    action: TraitAction
    targets: tuple[PortView, ...] = ()
    refused: tuple[Refused, ...] = ()
    new_portgroup: DynamicPortgroup | None = None
    problem: str | None = None

    @property
    def applies(self) -> bool:
        return self.problem is None

    def describe(self) -> str:
        text = f"action {self.action.describe()}: {self.problem or 'applies'}"
        if self.refused:
            text += " (" + "; ".join(refused.describe() for refused in self.refused) + ")"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "action": self.action.kind.value,
            "filter": self.action.filter.render(),
            "min_count": self.action.min_count,
            "max_count": self.action.max_count,
            "applies": self.applies,
            "problem": self.problem,
            "targets": [{"uuid": t.uuid, "kind": t.kind} for t in self.targets],
            "refused": [
                {"uuid": r.target.uuid, "kind": r.target.kind, "reason": r.reason}
                for r in self.refused
            ],
            "dynamic_portgroup": None
            if self.new_portgroup is None
            else {
                "ports": list(self.new_portgroup.member_uuids),
                "physical_network": self.new_portgroup.physical_network,
            },
        }


@dataclass(frozen=True)
class TraitAttempt:
    trait: Trait
    actions: tuple[ActionPlan, ...]

    @property
    def applies(self) -> bool:
        return any(plan.applies for plan in self.actions)


@dataclass(frozen=True)
class TbnPlan:
    """The outcome: the trait that applied (None: nothing did, see ``reason``) and every try."""

    node: str
    vif: str
    node_traits: tuple[str, ...]
    trait: str | None
    attempts: tuple[TraitAttempt, ...] = field(default=())
    reason: str | None = None

    @property
    def actions(self) -> tuple[ActionPlan, ...]:
        """The actions to carry out: those of the applying trait that found their targets."""
        for attempt in self.attempts:
            if attempt.applies:
                return tuple(plan for plan in attempt.actions if plan.applies)
        return ()

    @property
    def chosen(self) -> ActionPlan | None:
        """The action carried out: a VIF takes one target (a port, a portgroup, or the
        dynamic portgroup a grouping action builds), so the first action of the applying
        trait that found its targets; None when nothing applies."""
        return next(iter(self.actions), None)

    def as_dict(self) -> dict[str, Any]:
        chosen = self.chosen
        return {
            "trait": self.trait,
            "node_traits": list(self.node_traits),
            "reason": self.reason,
            "tried": [
                {
                    "trait": attempt.trait.name,
                    "order": attempt.trait.order,
                    "applies": attempt.applies,
                    "actions": [
                        {**plan.as_dict(), "carried_out": plan is chosen}
                        for plan in attempt.actions
                    ],
                }
                for attempt in self.attempts
            ],
        }


@dataclass(frozen=True)
class PlanningOptions:
    """Ironic's ``[conductor] trait_based_networking_*`` switches."""

    enable_default_trait: bool = True
    raise_when_no_match: bool = True


def node_traits(instance_info: dict[str, Any] | None) -> tuple[str, ...]:
    """The traits Nova wrote into ``instance_info['traits']`` (a list of names)."""
    traits = (instance_info or {}).get("traits") or ()
    return tuple(t for t in traits if isinstance(t, str)) if isinstance(traits, list) else ()


def plan_vif_attach(
    rules: RuleSet,
    node: str,
    traits: Sequence[str],
    network: NetworkView,
    ports: Sequence[PortView],
    portgroups: Sequence[PortView],
    options: PlanningOptions = PlanningOptions(),
) -> TbnPlan:
    """Plan the attach of the VIF on ``network`` to node ``node`` (a UUID or name).

    Raises NoTraitMatches (400) when nothing applies and ``raise_when_no_match``.
    """
    named = [trait for trait in rules.traits if trait.name in set(traits)]
    if not named and options.enable_default_trait:
        own = rules.get(DEFAULT_TRAIT_NAME)
        named = [own] if own is not None else list(BUILT_IN_DEFAULT)
    free_ports = _newest_first([p for p in ports if p.vif is None])
    free_groups = _newest_first([g for g in portgroups if g.vif is None])
    attempts: list[TraitAttempt] = []
    for trait in sorted(named, key=lambda t: t.order):
        attempt = _plan_trait(trait, network, free_ports, free_groups)
        attempts.append(attempt)
        if attempt.applies:
            return TbnPlan(node, network.id, tuple(traits), trait.name, tuple(attempts))
    reason = _no_match_reason(rules, node, traits, network, attempts, ports, portgroups)
    if options.raise_when_no_match:
        raise NoTraitMatches(reason)
    return TbnPlan(node, network.id, tuple(traits), None, tuple(attempts), reason)


def _newest_first(targets: list[PortView]) -> list[PortView]:
    return sorted(targets, key=lambda t: t.id, reverse=True)


def _plan_trait(
    trait: Trait, network: NetworkView, ports: list[PortView], portgroups: list[PortView]
) -> TraitAttempt:
    plans: list[ActionPlan] = []
    for action in trait.actions:
        if action.kind is ActionKind.ATTACH_PORTGROUP:
            plan = _plan_attach(action, network, portgroups)
        elif action.kind is ActionKind.ATTACH_PORT:
            plan = _plan_attach(action, network, ports)
        else:
            plan = _plan_group(action, network, ports)
        if plan.applies:
            taken = {t.uuid for t in plan.targets}
            ports = [p for p in ports if p.uuid not in taken]
            portgroups = [g for g in portgroups if g.uuid not in taken]
        plans.append(plan)
    return TraitAttempt(trait, tuple(plans))


def _plan_attach(
    action: TraitAction, network: NetworkView, candidates: list[PortView]
) -> ActionPlan:
    kind = "portgroup" if action.kind is ActionKind.ATTACH_PORTGROUP else "port"
    wanted = 1 if action.min_count is None else action.max_count
    taken: list[PortView] = []
    refused: list[Refused] = []
    for candidate in candidates:
        verdict = action.filter.evaluate(candidate, network)
        if candidate.unusable is not None:
            refused.append(Refused(candidate, candidate.unusable))
        elif not verdict.holds:
            refused.append(Refused(candidate, f"does not match: {verdict.reason}"))
        elif wanted is not None and len(taken) >= wanted:
            refused.append(Refused(candidate, "matches but was not needed (enough before it)"))
        else:
            taken.append(candidate)
    needed = action.min_count or 1
    problem = None
    if not candidates:
        problem = f"the node has no free {kind}"
    elif len(taken) < needed:
        problem = f"{len(taken)} free {kind}(s) matched, {needed} needed"
    return ActionPlan(
        action, tuple(taken) if problem is None else (), tuple(refused), problem=problem
    )


def _plan_group(action: TraitAction, network: NetworkView, ports: list[PortView]) -> ActionPlan:
    picked: list[PortView] = []
    refused: list[Refused] = []
    for port in ports:
        reason = _group_refusal(action, port, picked)
        if reason is None:
            picked.append(port)
        else:
            refused.append(Refused(port, reason))
    needed = action.min_count or 2
    problem = None
    if len(picked) < needed:
        problem = f"{len(picked)} port(s) can be grouped, {needed} needed"
    else:
        verdict = action.filter.evaluate(picked[0], network)
        if not verdict.holds:
            problem = (
                f"the ports can be grouped but network {network.id} does not match: "
                f"{verdict.reason}"
            )
    if problem is not None:
        return ActionPlan(action, (), tuple(refused), problem=problem)
    group = DynamicPortgroup(tuple(p.uuid for p in picked), picked[0].physical_network)
    return ActionPlan(action, tuple(picked), tuple(refused), group)


def _group_refusal(action: TraitAction, port: PortView, picked: list[PortView]) -> str | None:
    if port.unusable is not None:
        return port.unusable
    if port.portgroup_uuid is not None:
        return f"already belongs to portgroup {port.portgroup_uuid}"
    if not port.available_for_dynamic_portgroup:
        return "is not available_for_dynamic_portgroup"
    verdict = action.filter.evaluate(port, None)
    if not verdict.holds:
        return f"does not match: {verdict.reason}"
    if picked and port.physical_network != picked[0].physical_network:
        return (
            f"is on physical network {port.physical_network or '(none)'}, the first pick "
            f"{picked[0].uuid} on {picked[0].physical_network or '(none)'}"
        )
    if action.max_count is not None and len(picked) >= action.max_count:
        return f"matches but was not needed (max_count {action.max_count} reached)"
    return None


def _no_match_reason(
    rules: RuleSet,
    node: str,
    traits: Sequence[str],
    network: NetworkView,
    attempts: list[TraitAttempt],
    ports: Sequence[PortView],
    portgroups: Sequence[PortView],
) -> str:
    shown = ", ".join(traits) or "none"
    head = (
        f"No trait-based networking rule places VIF {network.id} on node {node}; "
        f"the node's traits (instance_info['traits']): {shown}"
    )
    if not attempts:
        known = ", ".join(t.name for t in rules.traits) or "none"
        return f"{head}; none of them has rules in {rules.source} (traits there: {known})"
    busy = [t for t in (*ports, *portgroups) if t.vif is not None]
    parts = [head]
    for attempt in attempts:
        tried = ", ".join(plan.describe() for plan in attempt.actions)
        parts.append(f"trait {attempt.trait.name} (order {attempt.trait.order}): {tried}")
    parts += [f"{t.label} is busy with VIF {t.vif}" for t in busy]
    return "; ".join(parts) + "."


def dynamic_portgroup_name() -> str:
    """A fresh name for a dynamic portgroup (Ironic's prefix and eight random characters)."""
    alphabet = string.ascii_letters + string.digits
    return DYNAMIC_PORTGROUP_PREFIX + "".join(secrets.choice(alphabet) for _ in range(8))
