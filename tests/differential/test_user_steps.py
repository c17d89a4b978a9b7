"""A verb's user steps: metalwire refuses what Ironic 39's conductor refuses, in its words.

Each case goes through Ironic's own validation of user clean, service or deploy steps, in
Ironic's venv (``_validate_user_<type>_steps`` on a task whose driver holds the node's
interfaces, each made without its constructor; deploy steps as its deploy checks them
first, leaving out the steps no interface offers), and through
``metalwire.conductor.steps``: both accept the steps, or both refuse them with the same
problems. The descriptions of missing arguments are metalwire's own, so they are left out
of the comparison. Steps only an agent reports are not among the cases: metalwire takes
them as offered (``conductor/steps.py``), where Ironic waits for the agent.
"""

from __future__ import annotations

import re
import uuid
from typing import Any, cast

import pytest

from metalwire.conductor.steps import (
    STEP_INTERFACES,
    check_clean_or_service_steps,
    check_deploy_steps,
    needs_ramdisk,
)
from metalwire.db.models import Node
from metalwire.errors import InvalidParameterValue
from tests.support.ironic import run_in_ironic

FAKE = dict.fromkeys(STEP_INTERFACES, "fake")
REDFISH = {**FAKE, **dict.fromkeys(("bios", "firmware", "management", "raid"), "redfish")}
IPMI = {**FAKE, "management": "intel-ipmitool", "vendor": "ipmitool", "power": "ipmitool"}
SETTINGS = {"settings": [{"name": "a", "value": "b"}]}


def _step(interface: str, name: str, **more: Any) -> dict[str, Any]:
    return {"interface": interface, "step": name, **more}


def _deploy(interface: str, name: str, priority: int, **args: Any) -> dict[str, Any]:
    return _step(interface, name, args=args, priority=priority)


CASES: list[tuple[str, dict[str, str], list[dict[str, Any]], bool]] = [
    ("clean", FAKE, [_step("deploy", "no_such_step")], False),
    ("clean", FAKE, [_step("vendor", "log_passthrough")], False),
    ("clean", FAKE, [_step("vendor", "log_passthrough", args={"speed": 1})], False),
    ("clean", FAKE, [_step("bios", "apply_configuration")], False),
    ("clean", FAKE, [_step("bios", "apply_configuration", args=SETTINGS)], False),
    ("clean", FAKE, [_step("bios", "factory_reset")], True),
    ("clean", FAKE, [_step("raid", "delete_configuration"), _step("firmware", "update")], False),
    ("clean", FAKE, [_step("deploy", "hold"), _step("power", "reboot")], False),
    ("clean", FAKE, [_step("bios", "nope", execute_on_child_nodes=True)], False),
    ("clean", REDFISH, [_step("bios", "cache_bios_settings")], False),
    ("clean", REDFISH, [_step("bios", "factory_reset")], True),
    ("clean", REDFISH, [_step("management", "set_bmc_clock", args={"target_datetime": 1})], False),
    ("clean", IPMI, [_step("vendor", "send_raw", args={"raw_bytes": "0x00"})], True),
    ("clean", REDFISH, [_step("bios", "apply_configuration", args=SETTINGS)], False),
    ("clean", REDFISH, [_step("bios", "factory_reset"), _step("power", "reboot")], False),
    ("clean", REDFISH, [_step("bios", "factory_reset"), _step("vendor", "log_passthrough")], False),
    ("clean", IPMI, [_step("vendor", "send_raw", args={"raw_bytes": "0x00"})], False),
    ("service", FAKE, [_step("deploy", "no_such_step")], False),
    ("service", FAKE, [_step("vendor", "log_passthrough")], True),
    ("service", FAKE, [_step("vendor", "trigger_servicewait")], True),
    ("service", REDFISH, [_step("firmware", "update")], False),
    ("service", REDFISH, [_step("raid", "apply_configuration", args={"raid_config": {}})], False),
    ("deploy", FAKE, [_deploy("deploy", "deploy", 100)], False),
    ("deploy", FAKE, [_deploy("deploy", "deploy", 0)], False),
    ("deploy", FAKE, [_deploy("bios", "no_such_step", 10)], False),
    ("deploy", REDFISH, [_deploy("raid", "apply_configuration", 10)], False),
    ("deploy", REDFISH, [_deploy("raid", "apply_configuration", 0, speed=1)], False),
    (
        "deploy",
        REDFISH,
        [_deploy("bios", "factory_reset", 5), _deploy("bios", "factory_reset", 6)],
        False,
    ),
    ("deploy", IPMI, [_deploy("management", "configure_intel_speedselect", 200)], False),
]

_IRONIC_VALIDATION = """
import copy, json, logging, sys, types, warnings
warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)
from importlib.metadata import entry_points
from ironic.common import exception
from ironic.conductor import steps
from ironic.conf import CONF
CONF([], project="ironic")

def interface(kind, name):
    (point,) = entry_points(group=f"ironic.hardware.interfaces.{kind}", name=name)
    cls = point.load()
    return cls.__new__(cls)

out, boots = [], []
for step_type, interfaces, user_steps, disable_ramdisk in json.load(sys.stdin):
    driver = types.SimpleNamespace(
        network=interface("network", "noop"),
        **{kind: interface(kind, name) for kind, name in interfaces.items()})
    node = types.SimpleNamespace(uuid="1be26c0b-03f2-4d2e-ae87-c02d7f33c124",
                                 driver_internal_info={})
    task = types.SimpleNamespace(node=node, driver=driver, context=None)
    user_steps = copy.deepcopy(user_steps)
    try:
        if step_type == "clean":
            valid = steps._validate_user_clean_steps(
                task, user_steps, disable_ramdisk=disable_ramdisk)
            # the cleaning's own detection: no ramdisk if every step it runs is out of band
            boots.append(not (valid and steps.all_steps_disable_ramdisk(task, valid)))
        elif step_type == "service":
            steps._validate_user_service_steps(task, user_steps, disable_ramdisk=disable_ramdisk)
        else:
            steps._get_validated_user_deploy_steps(task, user_steps, skip_missing=True)
        out.append(None)
    except exception.InvalidParameterValue as exc:
        out.append(str(exc))
        if step_type == "clean":
            boots.append(None)
print(json.dumps([out, boots]))
"""
# a missing argument's description, "name (description)": each side has its own words
_DESCRIPTION = re.compile(r"(required arguments: .*?) \(.*\)")


@pytest.fixture(scope="module")
def ironic_run() -> tuple[list[str | None], list[bool | None]]:
    answers, boots = run_in_ironic(_IRONIC_VALIDATION, [list(case) for case in CASES])
    return cast(list[str | None], answers), cast(list[bool | None], boots)


@pytest.fixture
def ironic_answers(
    ironic_run: tuple[list[str | None], list[bool | None]],
) -> list[str | None]:
    return ironic_run[0]


def _metalwire(
    step_type: str, interfaces: dict[str, str], steps: list[dict[str, Any]], disable: bool
) -> str | None:
    attrs = {f"{kind}_interface": name for kind, name in interfaces.items()}
    node = Node(uuid=str(uuid.uuid4()), driver="fake-hardware", attrs=attrs, instance_info={})
    try:
        if step_type == "deploy":
            check_deploy_steps(node, steps)
        else:
            check_clean_or_service_steps(
                "clean" if step_type == "clean" else "service", node, steps, disable
            )
    except InvalidParameterValue as exc:
        return str(exc).removeprefix(f"Cannot {step_type} node {node.uuid}: ")
    return None


def _without_descriptions(message: str | None) -> str | None:
    return None if message is None else _DESCRIPTION.sub(r"\1", message)


@pytest.mark.parametrize("number", range(len(CASES)), ids=lambda n: f"case{n}-{CASES[n][0]}")
def test_steps_are_refused_as_ironics_conductor_refuses_them(
    ironic_answers: list[str | None], number: int
) -> None:
    step_type, interfaces, steps, disable = CASES[number]
    ours = _metalwire(step_type, interfaces, steps, disable)
    assert _without_descriptions(ours) == _without_descriptions(ironic_answers[number])


_CLEAN = [number for number, case in enumerate(CASES) if case[0] == "clean"]


@pytest.mark.parametrize("number", _CLEAN, ids=lambda n: f"case{n}")
def test_a_cleaning_boots_the_ramdisk_when_ironics_would(
    ironic_run: tuple[list[str | None], list[bool | None]], number: int
) -> None:
    """Of the steps both accept without ``disable_ramdisk``: whether the cleaning needs the
    ramdisk, as Ironic's detection (``all_steps_disable_ramdisk`` of the checked steps)."""
    _, interfaces, steps, disable = CASES[number]
    theirs = ironic_run[1][_CLEAN.index(number)]
    if theirs is None or disable:
        pytest.skip("refused, or without the ramdisk anyway")
    attrs = {f"{kind}_interface": name for kind, name in interfaces.items()}
    node = Node(uuid=str(uuid.uuid4()), driver="fake-hardware", attrs=attrs, instance_info={})
    assert needs_ramdisk(node, steps) == theirs
