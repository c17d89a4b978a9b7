"""The trait-based networking plan of a VIF attach on a network interface's task.

This is the one call an interface's attach makes (through ``targets.py``): it reads the
node's traits, its ports and portgroups with the VIFs they carry, and the options, from the
task it was given, and never writes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from metalwire.db.models import Port, Portgroup
from metalwire.networking.task import Task
from metalwire.networking.tbn.planner import TbnPlan, node_traits, plan_vif_attach
from metalwire.networking.tbn.rules import RuleSet
from metalwire.networking.tbn.settings import planning_options
from metalwire.networking.tbn.views import NetworkView, PortView


def inventory_views(
    task: Task, unusable: Callable[[Port], str | None] = lambda port: None
) -> tuple[list[PortView], list[PortView]]:
    """The node's ports and portgroups as the planner reads them; ``unusable`` says why the
    node's interface cannot use a port (the interface's ``port_unusable_reason``).

    A port and its portgroup never carry two VIFs: a member of a portgroup that carries a VIF
    (a dynamic bond included) or that does not support standalone ports is unusable, and so
    is a portgroup one of whose members carries a VIF. A portgroup without a member the
    interface can use carries no traffic: it is unusable too.
    """
    groups = {group.id: group for group in task.portgroups}
    ports = []
    for port in task.ports:
        group = groups.get(port.portgroup_id or -1)
        reason = unusable(port) or (_member_refusal(task, group) if group else None)
        group_uuid = group.uuid if group else None
        ports.append(PortView.of_port(port, task.vif_on(port), group_uuid, reason))
    portgroups = [
        PortView.of_portgroup(
            group,
            task.vif_on(group),
            [m.physical_network for m in task.members(group)],
            _portgroup_refusal(task, group, unusable),
        )
        for group in task.portgroups
    ]
    return ports, portgroups


def _member_refusal(task: Task, group: Portgroup) -> str | None:
    """Why a member port of ``group`` cannot take a VIF of its own, or None."""
    vif = task.vif_on(group)
    if vif is not None:
        return f"belongs to portgroup {group.uuid}, which is busy with VIF {vif}"
    if not group.standalone_ports_supported:
        return f"belongs to portgroup {group.uuid}, which does not support standalone ports"
    return None


def _portgroup_refusal(
    task: Task, group: Portgroup, unusable: Callable[[Port], str | None]
) -> str | None:
    """Why ``group`` cannot take a VIF: a member carries one, or no member could carry it."""
    members = task.members(group)
    for member in members:
        vif = task.vif_on(member)
        if vif is not None:
            return f"cannot be used while its member port {member.uuid} carries VIF {vif}"
    if not members:
        return "has no member ports"
    if all(unusable(member) is not None for member in members):
        return "has no member port the network interface can use"
    return None


def plan_for_task(
    task: Task,
    rules: RuleSet,
    vif_info: dict[str, Any],
    raising: bool = True,
    unusable: Callable[[Port], str | None] = lambda port: None,
) -> TbnPlan:
    """Plan the attach of ``vif_info`` (the attach body: ``id``, ``name``, ``tags``).

    Raises NoTraitMatches (400) when nothing applies and the options say to, unless
    ``raising`` is False (a dry run shows the plan instead).
    """
    ports, portgroups = inventory_views(task, unusable)
    options = planning_options(task.config.conductor)
    return plan_vif_attach(
        rules,
        task.node.uuid,
        node_traits(task.node.instance_info),
        NetworkView.of_attach_body(vif_info),
        ports,
        portgroups,
        replace(options, raise_when_no_match=options.raise_when_no_match and raising),
    )
