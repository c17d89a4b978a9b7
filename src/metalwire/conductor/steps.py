"""A provision verb's user steps checked against the steps the node's interfaces offer
(``step_catalogue.py``), as Ironic 39's conductor checks them.

A step is refused if no interface of the node offers it, if it gives an argument the step
does not take, or leaves out one it requires (a deploy step of priority 0, which only
disables the step, needs none); with ``disable_ramdisk``, a clean or service step that needs
the ramdisk is refused too. A deploy step may not give the core ``deploy.deploy`` step a
priority, nor name a step twice. Every problem is named, each with the step as given. The
steps Ironic's conductor resolves itself (``power_on``, ``power_off``, ``reboot``, ``hold``,
``wait``) and the steps run on child nodes are not checked against the interfaces (only a
``wait`` step's ``seconds``, which must be a whole number); ``step_runner.py`` runs them.

Where each verb checks them, and what a refusal does, is Ironic's:

- a manual cleaning and a servicing check their steps once accepted, before the node's
  network changes: a refusal leaves the node in ``clean failed`` / ``service failed`` with
  ``last_error`` "Cannot clean node <uuid>: ..." / "Cannot service node <uuid>: ...".
  (Ironic 39 fails a cleaning so; a servicing's step it cannot check before a ramdisk
  boots it runs anyway, failing, in maintenance, when the step is missing: metalwire
  fails the servicing with the problem instead, as a cleaning.)
- a deploy or rebuild checks its deploy steps with the deploy interface's other checks,
  before anything changes (400, ``InstanceDeployFailure``), after those of the deploy
  templates its node's instance traits name, each with Ironic's words for where they came
  from; :func:`deploy_step_plan` merges them with the interfaces' own, as Ironic does. A
  deploy step no interface offers is left out, not refused: Ironic's conductor leaves such
  steps for the agent to report, and checks them again only once an agent has booted,
  which never happens here.

Steps known only once the node's ramdisk reports them (``step_catalogue.learned_later``:
the agent's, and the ``ansible`` deploy interface's steps file) cannot be checked by
metalwire, which boots no ramdisk. Ironic boots the ramdisk and checks them when the agent
first reports; a step the agent does not offer fails the cleaning then. metalwire takes a
step such an interface may offer as offered, its arguments unchecked: a ``direct`` node's
cleaning stays in ``clean wait``, where Ironic's waits for the agent, until ``abort`` or
the call-back timeout; refusing it instead would refuse the steps a ramdisk's own hardware
managers add. With ``disable_ramdisk`` no ramdisk will report anything, and such a step is
refused as unknown, as Ironic refuses it.

A manual cleaning boots no ramdisk with ``disable_ramdisk``, nor when every step it runs is
out of band (:func:`needs_ramdisk`, Ironic's detection): it then sets up no cleaning network
and waits for no agent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from metalwire.conductor import step_catalogue
from metalwire.conductor.deploy import checked_deploy_interface
from metalwire.conductor.hardware import interface_name
from metalwire.conductor.step_catalogue import DriverStep, StepType
from metalwire.db.models import Node
from metalwire.errors import InvalidParameterValue

#: The steps Ironic's conductor runs itself, whatever the node's interfaces.
CONDUCTOR_STEPS = frozenset({"power_on", "power_off", "reboot", "hold", "wait"})
#: The interfaces a user step may name (Ironic 39's cleaning and deploying interfaces).
STEP_INTERFACES = ("bios", "deploy", "firmware", "management", "power", "raid", "vendor")
_CORE_STEP = ("deploy", "deploy")


def check_clean_or_service_steps(
    step_type: StepType,
    node: Node,
    user_steps: Sequence[Mapping[str, Any]],
    disable_ramdisk: bool = False,
) -> None:
    """Raise InvalidParameterValue naming every problem with ``user_steps`` of
    ``step_type`` (``clean`` or ``service``) on ``node``."""
    interfaces = step_interfaces(node)
    later = frozenset() if disable_ramdisk else step_catalogue.learned_later(step_type, interfaces)
    errors = _problems(step_type, interfaces, user_steps, later, disable_ramdisk)
    errors += _wait_problems(step_type, user_steps)
    if errors:
        raise InvalidParameterValue(f"Cannot {step_type} node {node.uuid}: {'; '.join(errors)}")


def wait_seconds(args: Mapping[str, Any]) -> int:
    """A ``wait`` step's ``seconds``: a whole number, or its digits, as Ironic reads it;
    raises ValueError otherwise."""
    value = args["seconds"]
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"seconds must be a whole number, not {value!r}")
    try:
        seconds = int(value)
    except ValueError:
        raise ValueError(f"seconds must be a whole number, not {value!r}") from None
    if seconds < 0:
        raise ValueError(f"seconds must not be negative, not {value!r}")
    return seconds


def _wait_problems(step_type: StepType, user_steps: Sequence[Mapping[str, Any]]) -> list[str]:
    """A ``wait`` step whose ``seconds`` is no whole number of seconds, named."""
    errors = []
    for step in user_steps:
        args = step.get("args") or {}
        if step.get("step") != "wait" or "seconds" not in args:
            continue
        try:
            wait_seconds(args)
        except ValueError as exc:
            errors.append(f"{step_type} step {dict(step)}: {exc}")
    return errors


#: How a refusal of the deploy steps given with the verb begins, in Ironic's words.
ARGUMENT_STEPS = 'Validation of deploy steps from "deploy steps" argument failed.'


def template_steps_refused(names: Sequence[str]) -> str:
    """How a refusal of the steps of the deploy templates ``names`` begins, in Ironic's
    words."""
    return (
        "Validation of deploy steps from deploy templates matching this node's instance traits "
        f"failed. Matching deploy templates: {','.join(names)}. Errors: "
    )


def check_deploy_steps(
    node: Node, user_steps: Sequence[Mapping[str, Any]], refused: str = ARGUMENT_STEPS
) -> list[Mapping[str, Any]]:
    """Raise InvalidParameterValue naming every problem with the deploy steps given with a
    deploy or rebuild (or with the deploy templates its instance traits name: ``refused``
    begins the message); steps no interface offers are left for an agent to report.
    Returns the steps checked: those an interface offers."""
    interfaces = step_interfaces(node)
    catalogue = step_catalogue.offered("deploy", interfaces)
    known = [step for step in _checked(user_steps) if _key(step) in catalogue]
    errors = [*_problems("deploy", interfaces, known, frozenset(), False), *_duplicates(known)]
    if errors:
        raise InvalidParameterValue(refused + "; ".join(errors))
    return known


#: Which interface's step runs first when two deploy steps have one priority (Ironic's).
_INTERFACE_ORDER = {
    "vendor": 7,
    "power": 6,
    "management": 5,
    "firmware": 4,
    "deploy": 3,
    "bios": 2,
    "raid": 1,
}


def deploy_step_plan(
    node: Node,
    user_steps: Sequence[Mapping[str, Any]],
    template_steps: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """The deploy steps a deploy runs, in order, as Ironic 39 merges them: the checked
    steps given with the verb, then the templates' steps the verb's do not name; the
    interfaces' own enabled steps unless one of those names them; a step of priority 0
    disabled; the highest priority first (ties by interface). Each step as ``interface``,
    ``step``, ``args``, ``priority``, with the ``source`` it came from ("deploy_steps",
    "deploy template", or "driver")."""
    catalogue = step_catalogue.offered("deploy", step_interfaces(node))
    given = [{**_plain(step), "source": "deploy_steps"} for step in user_steps]
    named = {_key(step) for step in given}
    given += [
        {**_plain(step), "source": "deploy template"}
        for step in template_steps
        if _key(step) not in named
    ]
    named = {_key(step) for step in given}
    driver = [
        {"interface": kind, "step": step.name, "args": {}, "priority": step.priority}
        | {"source": "driver"}
        for (kind, _name), step in catalogue.items()
        if step.priority > 0 and (kind, step.name) not in named
    ]
    enabled = [*driver, *(step for step in given if step["priority"] > 0)]
    return sorted(
        enabled,
        key=lambda step: (step["priority"], _INTERFACE_ORDER.get(step["interface"], 0)),
        reverse=True,
    )


def _plain(step: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "interface": step["interface"],
        "step": step["step"],
        "args": dict(step.get("args") or {}),
        "priority": _priority(step),
    }


def step_interfaces(node: Node) -> dict[str, str]:
    """The node's implementation of each interface a step may name; ``autodetect`` as the
    deploy interface it would switch to, as Ironic switches before it reads any step."""
    interfaces = {kind: interface_name(node, kind) for kind in STEP_INTERFACES}
    interfaces["deploy"] = checked_deploy_interface(node)
    return interfaces


def needs_ramdisk(node: Node, user_steps: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a manual cleaning with ``user_steps`` (checked) boots the agent's ramdisk, as
    Ironic 39 decides it: unless each step it runs is one the node offers that runs out of
    band (a step only the ramdisk could report needs it; with none to run it boots it)."""
    catalogue = step_catalogue.offered("clean", step_interfaces(node))
    offered = [catalogue.get(_key(step)) for step in _checked(user_steps)]
    return not offered or any(step is None or step.requires_ramdisk for step in offered)


def _checked(user_steps: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The steps this module checks: not those the conductor runs itself or a child node
    runs."""
    return [
        step
        for step in user_steps
        if not step.get("execute_on_child_nodes") and step.get("step") not in CONDUCTOR_STEPS
    ]


def _problems(
    step_type: StepType,
    interfaces: Mapping[str, str],
    user_steps: Sequence[Mapping[str, Any]],
    learned_later: frozenset[str],
    disable_ramdisk: bool,
) -> list[str]:
    catalogue = step_catalogue.offered(step_type, interfaces)
    errors: list[str] = []
    for step in _checked(user_steps):
        offered = catalogue.get(_key(step))
        if offered is not None:
            errors += _argument_problems(step_type, step, offered, disable_ramdisk)
        elif step["interface"] not in learned_later:
            errors.append(f"node does not support this {step_type} step: {dict(step)}")
    return errors


def _argument_problems(
    step_type: StepType, step: Mapping[str, Any], offered: DriverStep, disable_ramdisk: bool
) -> list[str]:
    errors: list[str] = []
    given = step.get("args") or {}
    unexpected = sorted(set(given) - {arg.name for arg in offered.args})
    if unexpected:
        errors.append(
            f"{step_type} step {dict(step)} has these unexpected arguments: {', '.join(unexpected)}"
        )
    if step_type == "deploy" and _priority(step) == 0:
        return errors  # a disabled deploy step needs none of its arguments
    missing = [
        f"{arg.name} ({arg.description})"
        for arg in offered.args
        if arg.required and arg.name not in given
    ]
    if missing:
        errors.append(
            f"{step_type} step {dict(step)} is missing these required arguments: "
            f"{', '.join(missing)}"
        )
    if disable_ramdisk and offered.requires_ramdisk:
        errors.append(f"{step_type} step {dict(step)} requires booting a ramdisk")
    if step_type == "deploy" and _key(step) == _CORE_STEP:
        errors.append(
            f"deploy step {step['step']} on interface {step['interface']} is a core step and "
            "cannot be overridden by user steps. It may be disabled by setting the priority "
            "to 0"
        )
    return errors


def _duplicates(user_steps: Sequence[Mapping[str, Any]]) -> list[str]:
    counts = Counter(f"{step['interface']}.{step['step']}" for step in user_steps)
    twice = [name for name, count in counts.items() if count > 1]
    if not twice:
        return []
    return [
        "deploy steps from all deploy templates matching this node's instance traits cannot "
        "have the same interface and step. Duplicate deploy steps for " + ", ".join(twice)
    ]


def _key(step: Mapping[str, Any]) -> tuple[str, str]:
    return str(step["interface"]), str(step["step"])


def _priority(step: Mapping[str, Any]) -> int:
    """A deploy step's priority: an integer, or its digits (the API checked which)."""
    return int(step.get("priority", 0))
