"""The steps the deploy templates matching a node's instance traits give its deploy (their
CRUD is ``step_sets.py``'s).

A deploy reads the templates whose names are among the node's
``instance_info/traits`` under the node's lock (:func:`template_steps`); a template changed
afterwards changes no deploy already accepted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from metalwire.conductor.steps import check_deploy_steps, template_steps_refused
from metalwire.db.models import DeployTemplate
from metalwire.networking.task import Task

#: What a template's step carries into a deploy, as Ironic 39 copies it.
STEP_KEYS = ("interface", "step", "args", "priority")


@dataclass(frozen=True)
class TemplateSteps:
    """The templates matching a node's instance traits and their steps, in order."""

    names: tuple[str, ...]
    steps: tuple[dict[str, Any], ...]


def template_steps(task: Task) -> TemplateSteps:
    """The steps of the templates named by the node's ``instance_info/traits`` (checked to be
    a list of strings by the deploy interface's checks before this is called)."""
    traits = task.node.instance_info.get("traits") or []
    with task.reading() as work:
        templates: Sequence[DeployTemplate] = work.deploy_templates.named(traits)
    return TemplateSteps(
        tuple(t.name for t in templates),
        tuple({key: step[key] for key in STEP_KEYS} for t in templates for step in t.steps),
    )


def checked_template_steps(task: Task) -> list[Mapping[str, Any]]:
    """The steps of the templates the node's instance traits name that an interface of the
    node offers, once checked: InvalidParameterValue naming every problem and the matching
    templates, in Ironic's words, as a deploy and a node's validate check them."""
    templates = template_steps(task)
    return check_deploy_steps(task.node, templates.steps, template_steps_refused(templates.names))
