"""The implementations each hardware type supports: metalwire's lists are Ironic 39's.

Ironic's ``ipmi``, ``redfish`` and ``manual-management`` hardware types are asked, in Ironic's
venv, for their ``supported_<kind>_interfaces``, each class named by its entry point; the
answer must be ``metalwire.hardware_types.SUPPORTED``, in the same order (the order of the
names a refusal lists).
"""

from __future__ import annotations

import json
import subprocess

import pytest

from metalwire.hardware_types import KINDS, SUPPORTED
from tests.support.helpers import skip_or_fail
from tests.support.ironic import INSTALL_SCRIPT, VENV_ENV_VAR, default_venv, ironic_installed

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
    venv = default_venv()
    if not ironic_installed(venv):
        skip_or_fail(
            f"Ironic is not installed in {venv}: run {INSTALL_SCRIPT} first "
            f"(or point {VENV_ENV_VAR} at a venv it made)"
        )
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", _IRONIC_LISTS],
        input=json.dumps([list(KINDS), sorted(SUPPORTED)]),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    lists: dict[str, dict[str, list[str]]] = json.loads(done.stdout)
    return lists


@pytest.mark.parametrize("hardware_type", sorted(SUPPORTED))
def test_supported_interfaces_are_ironics(
    ironic_lists: dict[str, dict[str, list[str]]], hardware_type: str
) -> None:
    ours = {kind: list(names) for kind, names in SUPPORTED[hardware_type].items()}
    assert ours == ironic_lists[hardware_type]
