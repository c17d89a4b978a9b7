"""The clean, deploy and service steps each hardware interface offers, as Ironic 39's
implementations of the same names declare them: name, priority, arguments (which are
required) and whether the step needs the agent's ramdisk.

Only the interfaces a user step may name are listed (``api/steps.py: STEP_INTERFACES``); an
implementation absent from a table offers no step of that type (``fake`` management and
power, ``fake`` RAID, every ``no-*`` one...). Some interfaces also offer steps that nobody
can know before the node's ramdisk reports them: the agent's (Ironic's ``direct`` and the
other agent-based deploy interfaces, the ``agent`` RAID interface) and the ``ansible`` deploy
interface's, read from the playbooks' steps file. :func:`learned_later` names them;
``conductor/steps.py`` decides what a step they may offer is taken as.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

StepType = Literal["clean", "deploy", "service"]


@dataclass(frozen=True)
class Arg:
    """An argument a step takes."""

    name: str
    description: str
    required: bool = False


@dataclass(frozen=True)
class DriverStep:
    """A step an interface offers."""

    name: str
    priority: int = 0
    args: tuple[Arg, ...] = ()
    requires_ramdisk: bool = True  # a clean or service step's; a deploy step has none


def _step(name: str, *args: Arg, priority: int = 0, requires_ramdisk: bool = True) -> DriverStep:
    return DriverStep(name, priority, args, requires_ramdisk)


_BIOS_SETTINGS = Arg("settings", "the BIOS settings to apply: a list of name/value objects", True)
_FIRMWARE_SETTINGS = Arg(
    "settings", "the firmware components to update: a list of objects, one per component", True
)
_FIRMWARE_IMAGES = Arg(
    "firmware_images", "the firmware images to apply: a list of objects with each URL", True
)
_CLOCK = (
    Arg("target_datetime", "the date and time to set the BMC's clock to"),
    Arg("datetime_local_offset", "the offset from UTC of the BMC's local time"),
)
_RAID_CONFIG = Arg("raid_config", "the RAID configuration to apply", True)
_DELETE_EXISTING = Arg("delete_existing", "whether the current RAID configuration goes first")
_VOLUMES = (
    Arg("create_root_volume", "whether the root volume is created"),
    Arg("create_nonroot_volumes", "whether the volumes other than the root one are created"),
    _DELETE_EXISTING,
)
_RAW_BYTES = Arg("raw_bytes", "the bytes of the raw IPMI command to send", True)
_SPEED_SELECT = (
    Arg("intel_speedselect_config", "the Intel Speed Select configuration, in hexadecimal", True),
    Arg("socket_count", "the number of CPU sockets"),
)

# Out-of-band steps (requires_ramdisk=False) of the Redfish family.
_REDFISH_BIOS = (
    _step("apply_configuration", _BIOS_SETTINGS, requires_ramdisk=False),
    _step("factory_reset", requires_ramdisk=False),
)
_SECURE_BOOT_KEYS = (_step("clear_secure_boot_keys"), _step("reset_secure_boot_keys_to_default"))
_REDFISH_MANAGEMENT_CLEAN = (
    *_SECURE_BOOT_KEYS,
    _step("set_bmc_clock", *_CLOCK),
    _step("update_firmware", _FIRMWARE_IMAGES),
)
_AGENT_DEPLOY_STEPS = (
    _step("deploy", priority=100),
    _step("prepare_instance_boot", priority=60),
    _step("tear_down_agent", priority=40),
    _step("switch_to_tenant_network", priority=30),
    _step("boot_instance", priority=20),
)
_WRITE_IMAGE = _step("write_image", priority=80)
_DEPLOY_ONLY = (_step("deploy", priority=100),)

Catalogue = Mapping[tuple[str, str], tuple[DriverStep, ...]]

#: (interface kind, implementation) -> the steps it offers, by step type.
OFFERED: Mapping[StepType, Catalogue] = {
    "clean": {
        ("bios", "fake"): (
            _step("apply_configuration", _BIOS_SETTINGS),
            _step("cache_bios_settings"),
            _step("factory_reset"),
        ),
        ("bios", "redfish"): _REDFISH_BIOS,
        ("bios", "idrac-redfish"): _REDFISH_BIOS,
        ("firmware", "fake"): (_step("update", _FIRMWARE_SETTINGS),),
        ("firmware", "redfish"): (_step("update", _FIRMWARE_SETTINGS),),
        ("management", "redfish"): _REDFISH_MANAGEMENT_CLEAN,
        ("management", "idrac-redfish"): (
            *_REDFISH_MANAGEMENT_CLEAN,
            _step("clear_job_queue", requires_ramdisk=False),
            _step("known_good_state", requires_ramdisk=False),
            _step("reset_idrac", requires_ramdisk=False),
        ),
        ("raid", "redfish"): (
            _step("create_configuration", *_VOLUMES),
            _step("delete_configuration"),
        ),
        ("raid", "idrac-redfish"): (
            _step("create_configuration", *_VOLUMES, requires_ramdisk=False),
            _step("delete_configuration", requires_ramdisk=False),
        ),
        ("vendor", "fake"): (_step("log_passthrough", priority=1),),
        ("vendor", "ipmitool"): (_step("send_raw", _RAW_BYTES, requires_ramdisk=False),),
    },
    "deploy": {
        **{
            ("deploy", name): _DEPLOY_ONLY
            for name in ("anaconda", "autodetect", "fake", "noop", "ramdisk")
        },
        ("deploy", "direct"): (*_AGENT_DEPLOY_STEPS, _WRITE_IMAGE),
        ("deploy", "custom-agent"): _AGENT_DEPLOY_STEPS,
        ("deploy", "bootc"): (
            *_AGENT_DEPLOY_STEPS,
            _step("execute_bootc_install", priority=80),
            _step("set_boot_to_disk", priority=60),
        ),
        ("deploy", "ansible"): (
            _step("deploy", priority=100),
            _WRITE_IMAGE,
            _step("tear_down_agent", priority=40),
            _step("switch_to_tenant_network", priority=30),
            _step("boot_instance", priority=20),
        ),
        ("bios", "redfish"): _REDFISH_BIOS,
        ("bios", "idrac-redfish"): _REDFISH_BIOS,
        ("firmware", "redfish"): (_step("update", _FIRMWARE_SETTINGS),),
        ("management", "redfish"): _SECURE_BOOT_KEYS,
        ("management", "idrac-redfish"): _SECURE_BOOT_KEYS,
        ("management", "intel-ipmitool"): (
            _step("configure_intel_speedselect", *_SPEED_SELECT, priority=200),
        ),
        **{
            ("raid", name): (
                _step("apply_configuration", _RAID_CONFIG, *_VOLUMES),
                _step("delete_configuration"),
            )
            for name in ("redfish", "idrac-redfish")
        },
        ("vendor", "ipmitool"): (_step("send_raw", _RAW_BYTES),),
    },
    "service": {
        ("bios", "redfish"): _REDFISH_BIOS,
        ("bios", "idrac-redfish"): _REDFISH_BIOS,
        ("firmware", "redfish"): (_step("update", _FIRMWARE_SETTINGS, requires_ramdisk=False),),
        ("management", "redfish"): (_step("update_firmware", _FIRMWARE_IMAGES),),
        ("management", "idrac-redfish"): (_step("update_firmware", _FIRMWARE_IMAGES),),
        ("raid", "agent"): (_step("apply_configuration", _RAID_CONFIG, _DELETE_EXISTING),),
        ("raid", "idrac-redfish"): (_step("apply_configuration", _RAID_CONFIG, *_VOLUMES),),
        ("raid", "redfish"): (
            _step("apply_configuration", _RAID_CONFIG, *_VOLUMES),
            _step("delete_configuration"),
        ),
        ("vendor", "fake"): (
            _step("log_passthrough", requires_ramdisk=False),
            _step("trigger_servicewait"),
        ),
        ("vendor", "ipmitool"): (_step("send_raw", _RAW_BYTES),),
    },
}

#: The deploy interfaces built on the agent: their clean and service steps are the ones the
#: agent reports, and ``direct``'s, ``custom-agent``'s and ``bootc``'s deploy steps include
#: the agent's too.
AGENT_DEPLOYS = frozenset({"anaconda", "bootc", "custom-agent", "direct", "ramdisk"})
_AGENT_DEPLOY_STEP_DEPLOYS = frozenset({"bootc", "custom-agent", "direct"})
#: The deploy interface whose clean steps are read from its playbooks' steps file.
ANSIBLE_DEPLOY = "ansible"
#: The RAID interface whose clean and deploy steps are the ones the agent reports.
AGENT_RAID = "agent"


def learned_later(step_type: StepType, interfaces: Mapping[str, str]) -> frozenset[str]:
    """The interface kinds of a node (``interfaces``: kind -> implementation) that may offer
    steps of ``step_type`` besides their :data:`OFFERED` ones, known only once the node's
    ramdisk reports them. The agent reports its service steps for every interface."""
    deploy, raid = interfaces.get("deploy", ""), interfaces.get("raid", "")
    if step_type == "service":
        return frozenset(interfaces) if deploy in AGENT_DEPLOYS else frozenset()
    kinds = set()
    if raid == AGENT_RAID:
        kinds.add("raid")
    agent_deploys = AGENT_DEPLOYS if step_type == "clean" else _AGENT_DEPLOY_STEP_DEPLOYS
    if deploy in agent_deploys or (step_type == "clean" and deploy == ANSIBLE_DEPLOY):
        kinds.add("deploy")
    return frozenset(kinds)


def offered(
    step_type: StepType, interfaces: Mapping[str, str]
) -> dict[tuple[str, str], DriverStep]:
    """The steps of ``step_type`` a node with ``interfaces`` offers, by (kind, step name)."""
    table = OFFERED[step_type]
    return {
        (kind, step.name): step
        for kind, name in interfaces.items()
        for step in table.get((kind, name), ())
    }
