"""Console mode, NMI and interface validation: what the node's hardware interfaces answer."""

from __future__ import annotations

from typing import Any

from metalwire.conductor import hardware
from metalwire.conductor.boot import (
    AGENT_RESCUE,
    check_boot,
    check_deploy_and_boot,
    check_rescue_boot,
    rescue_checks_boot,
)
from metalwire.conductor.deploy_templates import checked_template_steps
from metalwire.conductor.hardware import interface_name
from metalwire.conductor.power import store
from metalwire.conductor.storage import check_storage
from metalwire.conductor.tasks import Conductor
from metalwire.conductor.verb_checks import check_managed_inspection
from metalwire.context import RequestContext
from metalwire.db import nodes as node_db
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Node
from metalwire.errors import (
    Invalid,
    InvalidParameterValue,
    MissingParameterValue,
    NetworkError,
    NetworkInterfaceInvalid,
    NodeConsoleNotEnabled,
)
from metalwire.networking.task import Task


def console_enabled(task: Task) -> bool:
    return bool(node_db.field_value(task.node, "console_enabled", False))


def get_console(conductor: Conductor, context: RequestContext, ident: str) -> dict[str, Any]:
    """The console's connection information; raises NodeConsoleNotEnabled when it is off,
    UnsupportedDriverExtension for a node without a console interface."""
    task = conductor.shared_task(ident, context)
    if not console_enabled(task):
        raise NodeConsoleNotEnabled(task.node.uuid)
    hardware.check_interface(task.node, "console")
    return {}  # the fake console (the only one metalwire offers) has nothing to connect to


def set_console_mode(
    conductor: Conductor, context: RequestContext, ident: str, enabled: bool
) -> None:
    """Start or stop the console; asking for the mode it is in already changes nothing."""
    with conductor.exclusive_task(ident, context) as task:
        hardware.check_interface(task.node, "console")
        if console_enabled(task) == enabled:
            return
        store(task, {"console_enabled": enabled, "last_error": None})
        conductor.record_history(
            task, HistoryEntry("console", f"console {'enabled' if enabled else 'disabled'}")
        )


def inject_nmi(conductor: Conductor, context: RequestContext, ident: str) -> None:
    with conductor.exclusive_task(ident, context) as task:
        hardware.check_inject_nmi(task.node)
        conductor.record_history(
            task, HistoryEntry("management", f"NMI injected into {task.node.label}")
        )


def check_network(conductor: Conductor, task: Task) -> None:
    """The network interface's own ``validate``, then: a node whose ports all refuse a VIF
    cannot be deployed with one, so say why each refuses (NetworkInterfaceInvalid)."""
    iface = conductor.network_interface(task.node)
    iface.validate(task)
    refusals = [(port, iface.port_unusable_reason(task, port)) for port in task.ports]
    if refusals and all(reason for _, reason in refusals):
        why = "; ".join(f"port {port.uuid} ({port.address}) {reason}" for port, reason in refusals)
        raise NetworkInterfaceInvalid(
            f"Node {task.node.label}: no port can carry a VIF with the {iface.name} "
            f"network interface: {why}."
        )


def validate(conductor: Conductor, context: RequestContext, ident: str) -> dict[str, Any]:
    """One entry per interface: ``{"result": bool}``, with ``"reason"`` when it is False."""
    task = conductor.shared_task(ident, context)
    out: dict[str, Any] = {}
    for kind in hardware.VALIDATED:
        try:
            if kind == "network":
                check_network(conductor, task)
            else:
                hardware.check_interface(task.node, kind)
            _check_beyond_name(conductor, task, kind)
        except Invalid as exc:  # NetworkInterfaceInvalid, UnsupportedDriverExtension, ...
            out[kind] = {"result": False, "reason": str(exc)}
        except NetworkError as exc:  # a check that asks Neutron (the rescuing network)
            out[kind] = {"result": False, "reason": str(exc)}
        else:
            out[kind] = {"result": True}
    return out


def _check_beyond_name(conductor: Conductor, task: Task, kind: str) -> None:
    """What the ``kind`` interface checks once its name is one that can work."""
    config = conductor.config
    if kind == "storage":
        check_storage(task)
    elif kind == "boot":
        check_boot(task, config)
    elif kind == "deploy":
        check_deploy_and_boot(task, config)
        checked_template_steps(task)  # as Ironic's validate, with the deploy interface's
    elif kind == "inspect":
        check_managed_inspection(conductor, task)
    elif kind == "rescue" and interface_name(task.node, "rescue") == AGENT_RESCUE:
        conductor.network_interface(task.node).validate_rescue(task)
        if rescue_checks_boot(task.node, config):
            check_rescue_boot(task, config)
        check_rescue_password(task.node)


def check_rescue_password(node: Node) -> None:
    """The agent rescue's last check, as Ironic's validate makes it: the password a rescue
    stores. (A rescue request stores it before its checks; until then, validate refuses.)"""
    password = node.instance_info.get("rescue_password")
    if password is None:
        raise MissingParameterValue(
            f"Node {node.uuid}: the agent rescue interface needs instance_info/rescue_password, "
            "which a rescue request sets."
        )
    if not isinstance(password, str) or not password.strip():
        raise InvalidParameterValue(
            f"Node {node.uuid}: instance_info/rescue_password must be a non-empty string."
        )
