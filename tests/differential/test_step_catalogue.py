"""The steps each interface offers: metalwire's catalogue is what Ironic 39's implementations
answer before any agent has reported its steps.

Each implementation of each interface a step may name is asked, in Ironic's venv, for its
clean, deploy and service steps (``get_<type>_steps`` of an instance made without its
constructor, which may look for tools such as ``ipmitool``; the node has no cached agent
steps): name, priority, arguments and whether each is required, and whether a clean or
service step needs the ramdisk. The ``ansible`` deploy interface's clean steps come from its
playbooks' steps file, not its code: metalwire leaves them, as the agent's, to be reported
later.
"""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.conductor import step_catalogue
from metalwire.conductor.steps import STEP_INTERFACES
from metalwire.hardware_types import IMPLEMENTATIONS
from tests.support.ironic import run_in_ironic

_IRONIC_STEPS = """
import json, logging, sys, types, warnings
warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)
from importlib.metadata import entry_points
from ironic.conf import CONF
CONF([], project="ironic")
node = types.SimpleNamespace(
    uuid="1be26c0b-03f2-4d2e-ae87-c02d7f33c123", driver_internal_info={}, driver_info={},
    instance_info={}, properties={})
task = types.SimpleNamespace(node=node, context=None)
out = {}
for kind in json.load(sys.stdin):
    for point in entry_points(group=f"ironic.hardware.interfaces.{kind}"):
        cls = point.load()
        interface = cls.__new__(cls)
        for step_type in ("clean", "deploy", "service"):
            steps = getattr(interface, f"get_{step_type}_steps")(task)
            out[f"{step_type} {kind} {point.name}"] = sorted(
                [s["step"], s["priority"],
                 sorted([a, bool(i.get("required"))] for a, i in (s.get("argsinfo") or {}).items()),
                 s.get("requires_ramdisk", True) if step_type != "deploy" else None]
                for s in steps)
print(json.dumps(out))
"""
_FROM_A_FILE = "clean deploy ansible"


@pytest.fixture(scope="module")
def ironic_steps() -> dict[str, list[Any]]:
    steps: dict[str, list[Any]] = run_in_ironic(_IRONIC_STEPS, list(STEP_INTERFACES))
    return steps


def _ours(step_type: step_catalogue.StepType, kind: str, name: str) -> list[Any]:
    """As the script reads Ironic's; a deploy step has no ``requires_ramdisk``."""
    return sorted(
        [
            step.name,
            step.priority,
            sorted([a.name, a.required] for a in step.args),
            step.requires_ramdisk if step_type != "deploy" else None,
        ]
        for step in step_catalogue.OFFERED[step_type].get((kind, name), ())
    )


@pytest.mark.parametrize("step_type", ["clean", "deploy", "service"])
def test_each_interface_offers_the_steps_ironics_declares(
    ironic_steps: dict[str, list[Any]], step_type: step_catalogue.StepType
) -> None:
    theirs = {
        key: steps
        for key, steps in ironic_steps.items()
        if key.startswith(f"{step_type} ") and key != _FROM_A_FILE
    }
    ours = {
        f"{step_type} {kind} {name}": _ours(step_type, kind, name)
        for kind in STEP_INTERFACES
        for name in IMPLEMENTATIONS[kind]
    }
    assert {k: v for k, v in ours.items() if k != _FROM_A_FILE} == theirs


def test_the_ansible_deploys_clean_steps_are_left_for_later() -> None:
    interfaces = {"deploy": "ansible"}
    assert step_catalogue.learned_later("clean", interfaces) == {"deploy"}
    assert ("deploy", "ansible") not in step_catalogue.OFFERED["clean"]
