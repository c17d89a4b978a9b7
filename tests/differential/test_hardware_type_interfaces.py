"""The implementations each hardware type supports: metalwire's lists are Ironic 39's.

Ironic's ``ipmi``, ``redfish`` and ``manual-management`` hardware types are asked, in Ironic's
venv, for their ``supported_<kind>_interfaces``, each class named by its entry point; the
answer must be ``metalwire.hardware_types.SUPPORTED``, in the same order (the order of the
names a refusal lists). The hardware types ``enabled_hardware_types`` may name are Ironic's.
"""

from __future__ import annotations

import pytest

from metalwire.hardware_types import HARDWARE_TYPES, KINDS, SUPPORTED
from tests.support.ironic import run_in_ironic

_IRONIC_LISTS = """
import json, logging, sys, warnings
warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)
from importlib.metadata import entry_points
kinds, types = json.load(sys.stdin)
named = {}
for kind in kinds:
    for point in entry_points(group=f"ironic.hardware.interfaces.{kind}"):
        named.setdefault(kind, {}).setdefault(point.load(), []).append(point.name)
hardware = {p.name: p for p in entry_points(group="ironic.hardware.types")}
out = {}
for name in types:
    hw_type = hardware[name].load()()
    out[name] = {
        kind: [
            entry
            for cls in getattr(hw_type, f"supported_{kind}_interfaces")
            for entry in sorted(named[kind].get(cls, []))
        ]
        for kind in kinds
    }
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def ironic_lists() -> dict[str, dict[str, list[str]]]:
    lists: dict[str, dict[str, list[str]]] = run_in_ironic(
        _IRONIC_LISTS, [list(KINDS), sorted(SUPPORTED)]
    )
    return lists


@pytest.mark.parametrize("hardware_type", sorted(SUPPORTED))
def test_supported_interfaces_are_ironics(
    ironic_lists: dict[str, dict[str, list[str]]], hardware_type: str
) -> None:
    ours = {kind: list(names) for kind, names in SUPPORTED[hardware_type].items()}
    assert ours == ironic_lists[hardware_type]


def test_the_hardware_types_are_ironics() -> None:
    script = (
        "import json; from importlib.metadata import entry_points; "
        "print(json.dumps(sorted(p.name for p in entry_points(group='ironic.hardware.types'))))"
    )
    assert list(HARDWARE_TYPES) == run_in_ironic(script)
