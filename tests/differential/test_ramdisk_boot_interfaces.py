"""The boot interfaces a ramdisk deploy accepts are Ironic 39's that can boot a ramdisk.

Ironic's ramdisk deploy interface refuses a boot interface without the ``ramdisk_boot``
capability; this reads each boot interface Ironic registers (its entry points, in Ironic's
venv) and compares the ones that have it with ``metalwire.conductor.deploy.RAMDISK_BOOTS``.
"""

from __future__ import annotations

import json
import subprocess

from metalwire.conductor.deploy import RAMDISK_BOOTS
from tests.support.helpers import skip_or_fail
from tests.support.ironic import INSTALL_SCRIPT, VENV_ENV_VAR, default_venv, ironic_installed

_IRONIC_RAMDISK_BOOTS = """
import json
from importlib.metadata import entry_points
names = sorted(
    point.name
    for point in entry_points(group="ironic.hardware.interfaces.boot")
    if "ramdisk_boot" in point.load().capabilities
)
print(json.dumps(names))
"""


def test_the_ramdisk_deploy_accepts_the_boot_interfaces_ironic_does() -> None:
    venv = default_venv()
    if not ironic_installed(venv):
        skip_or_fail(
            f"Ironic is not installed in {venv}: run {INSTALL_SCRIPT} first "
            f"(or point {VENV_ENV_VAR} at a venv it made)"
        )
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", _IRONIC_RAMDISK_BOOTS],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert json.loads(done.stdout) == sorted(RAMDISK_BOOTS)
    assert "fake" not in RAMDISK_BOOTS
