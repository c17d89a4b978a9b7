"""A node's indicators (its LEDs): which there are, the state of one, and setting one.

As Ironic 39's conductor: the list is read without a lock or a validation; reading or
setting one validates the management interface under the node's lock. Ironic's fake
management has a read-only ``led-0`` on the chassis and an ``led`` on the system that
blinks, and reads each as ``on``; it sets none (UnsupportedDriverExtension, 400), and
neither does ``ipmitool`` or ``noop``. Redfish reads the indicators its BMC reports, and
metalwire, which drives no BMC, has none to read: it answers as the interfaces without
indicators do (400).
"""

from __future__ import annotations

from typing import Any

from metalwire.conductor import hardware
from metalwire.conductor.boot_device import management_family
from metalwire.conductor.tasks import Conductor
from metalwire.context import RequestContext
from metalwire.db.models import Node
from metalwire.errors import InvalidParameterValue, UnsupportedDriverExtension

ON, OFF, BLINKING = "on", "off", "blinking"

#: Ironic's fake management's indicators: component -> indicator -> its properties.
_FAKE: dict[str, dict[str, dict[str, Any]]] = {
    "chassis": {"led-0": {"readonly": True, "states": [OFF, ON]}},
    "system": {"led": {"readonly": False, "states": [BLINKING, OFF, ON]}},
}


def _indicators(node: Node, operation: str) -> dict[str, dict[str, dict[str, Any]]]:
    if management_family(node) != "fake":
        raise UnsupportedDriverExtension(node.driver, operation)
    return _FAKE


def supported_indicators(
    conductor: Conductor, context: RequestContext, ident: str
) -> dict[str, dict[str, dict[str, Any]]]:
    """Component -> indicator -> ``{"readonly", "states"}``; UnsupportedDriverExtension
    (400) for a management interface without indicators."""
    task = conductor.shared_task(ident, context)
    return _indicators(task.node, "get_supported_indicators")


def indicator_state(
    conductor: Conductor, context: RequestContext, ident: str, component: str, indicator: str
) -> str:
    """The indicator's state; InvalidParameterValue (400) for a component or an indicator
    the node does not have."""
    with conductor.exclusive_task(ident, context) as task:
        node = task.node
        hardware.check_interface(node, "management")
        known = _indicators(node, "get_indicator_state")
        if component not in known:
            raise InvalidParameterValue(
                f"Node {node.label} has no component {component!r} with indicators; it has "
                f"{', '.join(known)}."
            )
        if indicator not in known[component]:
            raise InvalidParameterValue(
                f"Node {node.label} has no indicator {indicator!r} on its {component}; it has "
                f"{', '.join(known[component])}."
            )
        return ON  # as Ironic's fake reads every one


def set_indicator_state(
    conductor: Conductor,
    context: RequestContext,
    ident: str,
    component: str,
    indicator: str,
    state: str,
) -> None:
    """Set an indicator; every management interface metalwire offers refuses
    (UnsupportedDriverExtension, 400), as Ironic's fake, ipmitool and noop do."""
    with conductor.exclusive_task(ident, context) as task:
        hardware.check_interface(task.node, "management")
        raise UnsupportedDriverExtension(task.node.driver, "set_indicator_state")
