"""The ramdisk deploy as Ironic 39 sees it: the boot interfaces it accepts, and when its
autodetect deploy interface would switch to it.

Ironic's ramdisk deploy interface refuses a boot interface without the ``ramdisk_boot``
capability; this reads each boot interface Ironic registers (its entry points, in Ironic's
venv) and compares the ones that have it with ``metalwire.conductor.deploy.RAMDISK_BOOTS``;
then asks Ironic's ramdisk deploy whether it supports the deploy of each ``instance_info``.
"""

from __future__ import annotations

from metalwire.conductor.deploy import RAMDISK_BOOTS, asks_for_ramdisk_deploy
from tests.support.ironic import run_in_ironic

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

    assert run_in_ironic(_IRONIC_RAMDISK_BOOTS) == sorted(RAMDISK_BOOTS)
    assert "fake" not in RAMDISK_BOOTS


# instance_info without a Glance image: Ironic's detection reads nothing else
DETECTION_CASES = [
    {},
    {"image_source": "http://i/root.img"},
    {"kernel": "k", "ramdisk": "r"},
    {"ironic_ramdisk_deploy": True},
    {"ironic_ramdisk_deploy": True, "kernel": "k"},
    {"ironic_ramdisk_deploy": True, "kernel": "k", "ramdisk": "r"},
    {"ironic_ramdisk_deploy": "false", "kernel": "k", "ramdisk": "r"},  # a true string
    {"ironic_ramdisk_deploy": False, "boot_iso": "http://i/b.iso"},
    {"ironic_ramdisk_deploy": 1, "boot_iso": "http://i/b.iso"},
    {"ironic_ramdisk_deploy": True, "boot_iso": "", "kernel": "k", "ramdisk": ""},
    {"ironic_ramdisk_deploy": True, "image_source": "http://i/root.img", "boot_iso": "b"},
]

_IRONIC_DETECTS_RAMDISK = """
import json, sys
from types import SimpleNamespace
from ironic.drivers.modules.ramdisk import RamdiskDeploy
out = []
for info in json.load(sys.stdin):
    task = SimpleNamespace(node=SimpleNamespace(instance_info=info), context=None)
    out.append(RamdiskDeploy.supports_deploy(None, task))
print(json.dumps(out))
"""


def test_autodetect_is_checked_as_a_ramdisk_deploy_when_ironic_would_detect_one() -> None:
    ironic = run_in_ironic(_IRONIC_DETECTS_RAMDISK, DETECTION_CASES)

    assert [asks_for_ramdisk_deploy(info) for info in DETECTION_CASES] == ironic
    assert True in ironic and False in ironic
