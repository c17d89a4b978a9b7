"""The trait-based networking plan of a VIF attach on a network interface's task.

This is the one call an interface's attach makes (through ``targets.py``): it reads the
node's traits, its ports and portgroups with the VIFs they carry, and the options, from the
task it was given, and never writes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from metalwire.db.models import Port
from metalwire.networking.task import Task
from metalwire.networking.tbn.planner import TbnPlan, node_traits, plan_vif_attach
from metalwire.networking.tbn.rules import RuleSet
from metalwire.networking.tbn.settings import planning_options
from metalwire.networking.tbn.views import NetworkView, PortView


def inventory_views(
    task: Task, unusable: Callable[[Port], str | None] = lambda port: None
) -> tuple[list[PortView], list[PortView]]:
    """The node's ports and portgroups as the planner reads them; ``unusable`` says why the
    node's interface cannot use a port (the interface's ``port_unusable_reason``)."""
    group_uuids = {group.id: group.uuid for group in task.portgroups}
    ports = [
        PortView.of_port(
            port, task.vif_on(port), group_uuids.get(port.portgroup_id or -1), unusable(port)
        )
        for port in task.ports
    ]
    portgroups = [
        PortView.of_portgroup(
            group, task.vif_on(group), [m.physical_network for m in task.members(group)]
        )
        for group in task.portgroups
    ]
    return ports, portgroups


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
