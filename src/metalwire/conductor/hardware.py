"""What each hardware interface a node names can do, as Ironic's implementations answer.

metalwire drives no BMC: an interface that works "records" the result (the fake power
interface stores the power state it was asked for). What differs between implementations is
what they accept, and that is what a client sees: ``no-*`` interfaces refuse every operation
(UnsupportedDriverExtension, 400); ``ipmitool`` and ``redfish`` need their BMC address, and
valid BMC options, in ``driver_info`` (``bmc.py``); ``agent`` power works only with fast
track, which metalwire does not run.
"""

from __future__ import annotations

from metalwire.conductor.bmc import BMC_ADDRESS, check_bmc_driver_info
from metalwire.db import nodes as node_db
from metalwire.db.models import Node
from metalwire.errors import InvalidParameterValue, UnsupportedDriverExtension
from metalwire.hardware_types import KINDS

#: The interfaces ``GET /v1/nodes/{node}/validate`` reports, in Ironic's order (vendor is
#: validated per method, so it is not among them).
VALIDATED = tuple(sorted({*KINDS, "network"} - {"vendor"}))

POWER_ON, POWER_OFF = "power on", "power off"
REBOOT, SOFT_REBOOT, SOFT_POWER_OFF = "rebooting", "soft rebooting", "soft power off"
POWER_TARGETS = (POWER_ON, POWER_OFF, REBOOT, SOFT_REBOOT, SOFT_POWER_OFF)

# Management implementations that can inject an NMI (the fake one cannot, as in Ironic).
_NMI_CAPABLE = frozenset(BMC_ADDRESS)


def interface_name(node: Node, kind: str) -> str:
    return str(node_db.field_value(node, f"{kind}_interface"))


def check_interface(node: Node, kind: str) -> None:
    """Raise what the node's ``kind`` interface's ``validate`` raises in Ironic, if anything.

    UnsupportedDriverExtension for a ``no-*`` interface, MissingParameterValue or
    InvalidParameterValue for ``driver_info`` a BMC interface cannot work with.
    """
    name = interface_name(node, kind)
    if name.startswith("no-"):
        raise UnsupportedDriverExtension(node.driver, kind)
    if kind in ("power", "management", "inspect"):
        check_bmc_driver_info(node, name, kind)
    if kind == "power" and name == "agent":
        raise InvalidParameterValue(
            f"Node {node.uuid}: the agent power interface works only in fast track mode, "
            "which metalwire does not run."
        )


def supported_power_targets(node: Node) -> tuple[str, ...]:
    """Every power interface metalwire knows accepts all five targets, as fake does."""
    return POWER_TARGETS if not interface_name(node, "power").startswith("no-") else ()


def check_inject_nmi(node: Node) -> None:
    check_interface(node, "management")
    if interface_name(node, "management") not in _NMI_CAPABLE:
        raise UnsupportedDriverExtension(node.driver, "inject_nmi")


def power_after(target: str) -> str:
    """The power state a node is in once ``target`` succeeded."""
    return POWER_OFF if target in (POWER_OFF, SOFT_POWER_OFF) else POWER_ON
