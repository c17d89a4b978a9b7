"""The boot interfaces' validation (and the agent rescue's password): metalwire refuses what
Ironic 39's own refuse.

Each case goes through the boot interface's ``validate`` in Ironic's venv (for a rescue, its
``validate`` then its ``validate_rescue``, as Ironic's agent rescue calls them; one process for
all of them, each case with its own configuration) and through
``metalwire.conductor.boot.check_boot`` / ``check_rescue_boot``: both must accept it, or both
refuse it with the same kind of error. Ironic first infers whether the image is a whole
disk one (``update_image_type``, as its validation and deploy do), reading the image's URL:
there the URL answers with a file. ``redfish-https`` also asks the BMC whether it boots
over UEFI HTTP, and a Glance image's properties are read from Glance: on Ironic's side the
BMC's answer is left out and every Glance image has a kernel, a ramdisk and a stage2 image,
as metalwire, driving no BMC and reading no image service, takes them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

import pytest

from metalwire.conductor.boot import check_boot, check_rescue_boot, deploy_checks_boot
from metalwire.conductor.management import check_rescue_password
from metalwire.config import load_config
from metalwire.db.models import Node
from metalwire.errors import Invalid
from metalwire.networking.task import Task
from tests.support.ironic import run_in_ironic

AGENT = {"deploy_kernel": "http://i/ipa.kernel", "deploy_ramdisk": "http://i/ipa.initramfs"}
RESCUE = {"rescue_kernel": "http://i/r.kernel", "rescue_ramdisk": "http://i/r.initramfs"}
REDFISH = {"redfish_address": "https://bmc.example.com"}
GLANCE = "8b1f2d6c-6a3e-4c55-9a55-2f3b8d1c0a11"
HTTP = ("deploy", "http_url", "http://192.0.2.1:8080")
CONDUCTOR_AGENT = [("conductor", key, value) for key, value in AGENT.items()]


_STRICT = ("conductor", "error_on_ramdisk_config_inconsistency", True)


def _by_arch(mode: str) -> list[tuple[str, str, Any]]:
    """The ``mode`` ramdisk's pair for aarch64 in the ``*_by_arch`` options."""
    return [
        ("conductor", f"{mode}_kernel_by_arch", {"aarch64": "http://i/arm.kernel"}),
        ("conductor", f"{mode}_ramdisk_by_arch", {"aarch64": "http://i/arm.initramfs"}),
    ]


@dataclass
class Case:
    boot: str
    deploy: str = "direct"
    driver_info: dict[str, Any] = field(default_factory=lambda: dict(AGENT))
    instance_info: dict[str, Any] = field(default_factory=dict)
    properties: dict[str, Any] = field(default_factory=dict)
    ports: int = 1
    conf: list[tuple[str, str, Any]] = field(default_factory=lambda: [HTTP])
    automated_clean: bool | None = None
    provision_state: str = "available"
    rescue: bool = False

    def as_json(self) -> dict[str, Any]:
        return {**self.__dict__, "conf": [list(item) for item in self.conf]}


def _cases() -> list[Case]:
    cases: list[Case] = []
    for boot in ("pxe", "ipxe", "http", "http-ipxe"):
        cases += [
            Case(boot),
            Case(boot, ports=0),
            Case(boot, driver_info={}),
            Case(boot, driver_info={"deploy_kernel": "k"}),
            Case(boot, driver_info={"deploy_ramdisk": "r"}, conf=[HTTP, *CONDUCTOR_AGENT]),
            Case(boot, driver_info={}, conf=[HTTP, *CONDUCTOR_AGENT]),
            Case(boot, driver_info={}, conf=[HTTP, ("conductor", "deploy_kernel", "k")]),
            Case(boot, conf=[]),
            Case(boot, conf=[HTTP, ("deploy", "http_root", "")]),
            Case(boot, properties={"capabilities": "boot_mode:UEFI"}),
            Case(boot, properties={"capabilities": "boot_mode:uefi,secure_boot:true"}),
            Case(boot, instance_info={"capabilities": {"disk_label": "dos"}}),
            Case(boot, instance_info={"image_source": GLANCE, "boot_iso": "http://i/b.iso"}),
            Case(boot, instance_info={"image_source": "http://i/root.img"}),
            Case(boot, deploy="fake"),
            Case(boot, deploy="anaconda", instance_info={"image_source": GLANCE}),
            Case(boot, deploy="anaconda", instance_info={"image_source": GLANCE}, conf=[]),
            Case(boot, deploy="anaconda", instance_info={"image_source": "http://i/a"}),
            Case(
                boot,
                deploy="anaconda",
                instance_info={"image_source": "http://i/a", "kernel": "k", "ramdisk": "r"},
            ),
            Case(
                boot,
                deploy="anaconda",
                instance_info={"image_source": "http://i/a", "image_type": "partition"},
            ),
            Case(
                boot, deploy="anaconda", instance_info={"image_source": "http://i/a", "kernel": "k"}
            ),
            Case(boot, deploy="anaconda", instance_info={"image_source": "oci://q.io/a"}),
            Case(boot, rescue=True),
            Case(boot, rescue=True, driver_info={**AGENT, **RESCUE}),
            Case(boot, rescue=True, driver_info={**AGENT, "rescue_kernel": "k"}),
        ]
    for boot in ("pxe", "ipxe", "redfish-virtual-media"):
        ramdisk: dict[str, Any] = {"boot": boot, "deploy": "ramdisk"}
        with_bmc = {**AGENT, **REDFISH}
        cases += [
            Case(**ramdisk, driver_info=with_bmc),
            Case(**ramdisk, driver_info=with_bmc, instance_info={"kernel": "k", "ramdisk": "r"}),
            Case(**ramdisk, driver_info=with_bmc, instance_info={"kernel": "k"}),
            Case(**ramdisk, driver_info=with_bmc, instance_info={"image_source": GLANCE}),
            Case(**ramdisk, driver_info=with_bmc, instance_info={"image_source": "http://i/r"}),
            Case(
                **ramdisk,
                driver_info=with_bmc,
                instance_info={"image_source": "http://i/r", "image_type": "partition"},
            ),
            Case(
                **ramdisk,
                driver_info=with_bmc,
                instance_info={"image_source": "http://i/r", "image_type": "whole-disk"},
            ),
            Case(
                **ramdisk,
                driver_info=with_bmc,
                instance_info={"image_source": "http://i/r", "kernel": "k"},
            ),
            Case(
                **ramdisk,
                driver_info=with_bmc,
                instance_info={"image_source": GLANCE, "image_type": "partition"},
            ),
            Case(**ramdisk, driver_info=with_bmc, instance_info={"boot_iso": "http://i/b.iso"}),
            Case(
                **ramdisk,
                driver_info=with_bmc,
                instance_info={"boot_iso": "http://i/b.iso", "image_source": GLANCE},
            ),
            Case(
                **ramdisk,
                driver_info=REDFISH,
                instance_info={"kernel": "k", "ramdisk": "r"},
                automated_clean=False,
            ),
            Case(
                **ramdisk,
                driver_info=REDFISH,
                instance_info={"kernel": "k", "ramdisk": "r"},
                conf=[HTTP, ("conductor", "automated_clean", False)],
            ),
        ]
    for boot in ("redfish-virtual-media", "redfish-https", "idrac-redfish-virtual-media"):
        cases += [
            Case(boot, driver_info={**AGENT, **REDFISH}, ports=0),
            Case(boot, driver_info=REDFISH),
            Case(boot, driver_info={**REDFISH, "deploy_iso": "http://i/ipa.iso"}),
            Case(boot, driver_info={**REDFISH, "redfish_deploy_iso": "http://i/ipa.iso"}),
            Case(boot, driver_info=AGENT),
            Case(boot, driver_info={**AGENT, "redfish_address": "ftp://bmc"}),
            Case(boot, driver_info={**AGENT, **REDFISH}, conf=[]),
            Case(boot, driver_info={**AGENT, **REDFISH}, properties={"capabilities": "x:y"}),
            Case(boot, driver_info={**AGENT, **REDFISH}, rescue=True),
            Case(boot, driver_info={**AGENT, **REDFISH, **RESCUE}, rescue=True),
            Case(boot, driver_info={**REDFISH, "rescue_iso": "i"}, provision_state="rescuing"),
            Case(boot, driver_info={**AGENT, **REDFISH}, provision_state="rescue wait"),
        ]
    arm = {"cpu_arch": "aarch64"}
    for boot in ("pxe", "ipxe", "redfish-virtual-media"):
        info = REDFISH if boot.startswith("redfish") else {}
        cases += [
            Case(boot, driver_info=info, properties=arm, conf=[HTTP, *_by_arch("deploy")]),
            Case(boot, driver_info=info, conf=[HTTP, *_by_arch("deploy")]),
            Case(
                boot,
                driver_info=info,
                properties={"cpu_arch": "x86_64"},
                conf=[HTTP, *_by_arch("deploy")],
            ),
            Case(
                boot,
                driver_info=info,
                properties=arm,
                conf=[HTTP, *_by_arch("deploy")[:1], *CONDUCTOR_AGENT],
            ),
            Case(
                boot,
                driver_info=info,
                properties=arm,
                conf=[HTTP, *_by_arch("deploy")[1:], *CONDUCTOR_AGENT, _STRICT],
            ),
            Case(
                boot,
                driver_info={**info, "deploy_kernel": "k"},
                conf=[HTTP, *CONDUCTOR_AGENT, _STRICT],
            ),
            Case(
                boot,
                driver_info={**info, **AGENT},
                properties=arm,
                rescue=True,
                conf=[HTTP, *_by_arch("rescue")],
            ),
        ]
    cases += [
        Case("fake", driver_info={}, ports=0, conf=[]),
        Case("fake", driver_info={**AGENT, **RESCUE}, rescue=True),
    ]
    return cases


CASES = _cases()

_IRONIC_BOOT_VALIDATE = """
import json, logging, sys
from types import SimpleNamespace
logging.disable(logging.CRITICAL)
from ironic.conf import CONF
from ironic.drivers.modules import fake, ipxe, pxe
from ironic.drivers.modules.drac import boot as drac_boot
from ironic.drivers.modules.redfish import boot as redfish_boot

from ironic.drivers.modules import deploy_utils
redfish_boot.RedfishHttpsBoot._validate_hardware = lambda self, task: None  # asks the BMC
# a Glance image as metalwire takes it: one that has what the boot looks for
deploy_utils.get_image_properties = lambda context, image: {
    "kernel_id": "k", "ramdisk_id": "r", "stage2_id": "s"
}
BOOTS = {
    "pxe": pxe.PXEBoot, "ipxe": ipxe.iPXEBoot, "http": pxe.HttpBoot,
    "http-ipxe": ipxe.iPXEHttpBoot, "fake": fake.FakeBoot,
    "redfish-virtual-media": redfish_boot.RedfishVirtualMediaBoot,
    "redfish-https": redfish_boot.RedfishHttpsBoot,
    "idrac-redfish-virtual-media": drac_boot.DracRedfishVirtualMediaBoot,
}
from ironic.common import images
from ironic.conductor import utils as conductor_utils
# the image's URL answers, with a file: Ironic then infers its type from instance_info
images.is_source_a_path = lambda context, image_source: False


class Node(SimpleNamespace):
    def set_driver_internal_info(self, key, value):
        self.driver_internal_info[key] = value

    def set_instance_info(self, key, value):
        self.instance_info[key] = value


out = []
for case in json.load(sys.stdin):
    CONF.clear_override("http_url", "deploy")
    for group, name, value in case["conf"]:
        CONF.set_override(name, value, group)
    interfaces = {"boot": case["boot"], "deploy": case["deploy"], "rescue": "agent"}
    node = Node(
        uuid="1be26c0b-03f2-4d2e-ae87-c02d7f33c781", driver="redfish",
        driver_info=case["driver_info"], instance_info=dict(case["instance_info"]),
        properties=case["properties"], automated_clean=case["automated_clean"],
        driver_internal_info={}, provision_state=case["provision_state"],
        get_interface=interfaces.get,
    )
    conductor_utils.update_image_type(None, node)  # as the validation and the deploy do
    task = SimpleNamespace(
        node=node, context=None,
        ports=[SimpleNamespace(address="52:54:00:00:00:%02x" % i) for i in range(case["ports"])],
        driver=SimpleNamespace(storage=SimpleNamespace(should_write_image=lambda task: True)),
    )
    boot = object.__new__(BOOTS[case["boot"]])  # without the files __init__ lays down
    try:
        boot.validate(task)
        if case["rescue"]:
            boot.validate_rescue(task)
        out.append("accepted")
    except Exception as exc:
        out.append(type(exc).__name__)
    for group, name, _ in case["conf"]:
        CONF.clear_override(name, group)
print(json.dumps(out))
"""


def metalwire_answer(case: Case) -> str:
    overrides = {(group, name): value for group, name, value in case.conf}
    overrides.setdefault(("deploy", "http_url"), "")
    config = load_config(environ={}, overrides=overrides)
    attrs = {
        "boot_interface": case.boot,
        "deploy_interface": case.deploy,
        "rescue_interface": "agent",
        "storage_interface": "noop",
        "automated_clean": case.automated_clean,
    }
    node = Node(
        uuid=str(uuid.uuid4()),
        driver="redfish",
        provision_state=case.provision_state,
        driver_info=case.driver_info,
        instance_info=case.instance_info,
        properties=case.properties,
        driver_internal_info={},
        attrs=attrs,
    )
    ports = [SimpleNamespace(address=f"52:54:00:00:00:{i:02x}") for i in range(case.ports)]
    task = cast(Task, SimpleNamespace(node=node, ports=ports))
    check = check_rescue_boot if case.rescue else check_boot
    try:
        check(task, config)
    except Invalid as exc:
        return type(exc).__name__
    return "accepted"


@pytest.fixture(scope="module")
def ironic_answers() -> list[str]:
    answers: list[str] = run_in_ironic(_IRONIC_BOOT_VALIDATE, [c.as_json() for c in CASES])
    return answers


@pytest.mark.parametrize("index", range(len(CASES)), ids=[repr(c) for c in CASES])
def test_metalwire_refuses_a_boot_exactly_when_ironic_does(
    ironic_answers: list[str], index: int
) -> None:
    case = CASES[index]

    assert metalwire_answer(case) == ironic_answers[index], case


def test_the_cases_cover_both_answers(ironic_answers: list[str]) -> None:
    assert {"accepted", "MissingParameterValue", "InvalidParameterValue"} <= set(ironic_answers)


_IRONIC_DEPLOYS_VALIDATING_BOOT = """
import json, logging, sys
from importlib.metadata import entry_points
from types import SimpleNamespace
logging.disable(logging.CRITICAL)
from ironic.conf import CONF

class BootValidated(Exception):
    "the deploy interface asked the boot interface to validate"

def validate(task):
    raise BootValidated()

out = {}
for manage_agent_boot in (True, False):
    CONF.set_override("manage_agent_boot", manage_agent_boot, "agent")
    for point in entry_points(group="ironic.hardware.interfaces.deploy"):
        if point.name == "autodetect":  # validates as the interface it detects
            continue
        deploy = object.__new__(point.load())
        boot = SimpleNamespace(validate=validate, capabilities=["ramdisk_boot"])
        node = SimpleNamespace(
            uuid="u", driver_info={}, instance_info={}, properties={},
            driver_internal_info={}, get_interface=lambda kind: point.name,
        )
        task = SimpleNamespace(node=node, context=None, driver=SimpleNamespace(boot=boot))
        try:
            deploy.validate(task)
            validated = False
        except BootValidated:
            validated = True
        except Exception:
            validated = False
        out.setdefault(point.name, []).append(validated)
print(json.dumps(out))
"""


def test_the_deploy_interfaces_that_validate_the_boot_are_ironics() -> None:
    ironic = run_in_ironic(_IRONIC_DEPLOYS_VALIDATING_BOOT)
    ours: dict[str, list[bool]] = {}
    for manage_agent_boot in (True, False):
        config = load_config(
            environ={}, overrides={("agent", "manage_agent_boot"): manage_agent_boot}
        )
        for name in ironic:
            node = Node(
                uuid=str(uuid.uuid4()), driver="fake-hardware", attrs={"deploy_interface": name}
            )
            ours.setdefault(name, []).append(deploy_checks_boot(node, config))

    assert ours == ironic
    assert [True, False] in ironic.values() and [True, True] in ironic.values()


_IRONIC_RESCUE_PASSWORD = """
import json, logging, sys
from types import SimpleNamespace
logging.disable(logging.CRITICAL)
from ironic.conf import CONF
from ironic.drivers.modules.agent import AgentRescue

CONF.set_override("manage_agent_boot", False, "agent")  # the password alone
out = []
for info in json.load(sys.stdin):
    node = SimpleNamespace(uuid="u", instance_info=info)
    network = SimpleNamespace(validate_rescue=lambda task: None)
    task = SimpleNamespace(node=node, driver=SimpleNamespace(network=network))
    try:
        AgentRescue().validate(task)
        out.append("accepted")
    except Exception as exc:
        out.append(type(exc).__name__)
print(json.dumps(out))
"""

PASSWORDS: list[dict[str, Any]] = [
    {},
    {"rescue_password": "s3cret"},
    {"rescue_password": ""},
    {"rescue_password": "   "},
    {"rescue_password": None},
]


def test_the_agent_rescue_wants_the_password_ironics_wants() -> None:
    ironic = run_in_ironic(_IRONIC_RESCUE_PASSWORD, PASSWORDS)
    ours = []
    for info in PASSWORDS:
        try:
            check_rescue_password(Node(uuid="u", instance_info=info))
            ours.append("accepted")
        except Invalid as exc:
            ours.append(type(exc).__name__)

    assert ours == ironic
