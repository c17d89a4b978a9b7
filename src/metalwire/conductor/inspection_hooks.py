"""The inspection hooks: what an ``agent`` inspection does with the ramdisk's report.

As Ironic 39's, the hooks ``[inspector] hooks`` names run in order, each first reading the
report (``preprocess``: every hook's, the failures gathered), then acting on the node
(``process``). The default ones (``[inspector] default_hooks``): ``ramdisk-error`` fails the
inspection with the error the ramdisk reported; ``validate-interfaces`` picks the
inventory's interfaces (``[inspector] add_ports``) into the plugin data; ``ports`` creates
their missing ports, deletes those ``[inspector] keep_ports`` does not keep and sets
``pxe_enabled`` (``[inspector] update_pxe_enabled``), each change through the conductor's
port rules (``conductor/inventory.py``) and in the node's history; ``architecture`` sets
``properties/cpu_arch``. Two more may be added, as in Ironic: ``parse-lldp`` reads each
interface's LLDP TLVs (``conductor/lldp.py``) into the plugin data's ``parsed_lldp``;
``local-link-connection`` fills each port's ``local_link_connection`` from them (the switch's
chassis MAC address as ``switch_id``, the port ID as ``port_id``, the system name as
``switch_info``), keeping what the port already has, through the port rules; and
``physical-network`` sets a port's ``physical_network`` from the subnet its interface's
address is in (``[inspector] physical_network_cidr_map``).
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from metalwire.conductor import inventory as ports
from metalwire.conductor import lldp
from metalwire.conductor.tasks import Conductor
from metalwire.config import InspectorOptions
from metalwire.db.history import HistoryEntry
from metalwire.db.models import Port
from metalwire.errors import (
    HardwareInspectionFailure,
    Invalid,
    InvalidNodeInventory,
    MetalwireError,
    NodeLockLost,
)
from metalwire.identifiers import normalized_mac
from metalwire.networking.task import Task

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
LOG = logging.getLogger(__name__)


@dataclass
class Report:
    """What a hook works on: the conductor, the task holding the node's lock, the
    inventory (never changed) and the plugin data (the hooks add to it; it is stored)."""

    conductor: Conductor
    task: Task
    inventory: dict[str, Any]
    plugin_data: dict[str, Any]

    @property
    def options(self) -> InspectorOptions:
        return self.conductor.config.inspector


Step = Callable[[Report], None]


def _nothing(report: Report) -> None:
    return None


@dataclass(frozen=True)
class Hook:
    name: str
    preprocess: Step = _nothing
    process: Step = _nothing
    needs: tuple[str, ...] = ()


# -- ramdisk-error ---------------------------------------------------------------------------


def _ramdisk_error(report: Report) -> None:
    error = report.plugin_data.get("error")
    if error:
        raise HardwareInspectionFailure(f"Ramdisk reported error: {error}")


# -- validate-interfaces ---------------------------------------------------------------------


def pxe_mac(inventory: dict[str, Any]) -> str | None:
    """The MAC address the ramdisk booted from (``boot/pxe_interface``, pxelinux's
    ``01-aa-bb-...`` form read too)."""
    boot = inventory.get("boot")
    given = boot.get("pxe_interface") if isinstance(boot, dict) else None
    if not isinstance(given, str) or not given:
        return None
    if "-" in given and len(given.split("-")) == 7:  # pxelinux: 01-aa-bb-cc-dd-ee-ff
        given = given.split("-", 1)[1].replace("-", ":")
    return normalized_mac(given)


def _without_scope(ipv6: Any) -> str | None:
    """An IPv6 address without its scope (``fd00::1%eth0``)."""
    return ipv6.split("%")[0] if isinstance(ipv6, str) and ipv6 else None


def _ip_of(interface: dict[str, Any]) -> str | None:
    found = interface.get("ipv4_address") or _without_scope(interface.get("ipv6_address"))
    return found if isinstance(found, str) and found else None


def _is_loopback(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


def all_interfaces(report: Report) -> dict[str, dict[str, Any]]:
    """The inventory's interfaces with a name and a valid MAC address, by name, each with
    its MAC normalized and ``pxe_enabled`` (whether the ramdisk booted from it)."""
    booted = pxe_mac(report.inventory)
    found = {}
    for interface in report.inventory["interfaces"]:
        name, mac = interface.get("name"), normalized_mac(interface.get("mac_address"))
        if not isinstance(name, str) or not name or mac is None:
            continue
        found[name] = {
            **interface,
            "mac_address": mac,
            "pxe_enabled": mac == booted,
            "ipv6_address": _without_scope(interface.get("ipv6_address")),
        }
    return found


def _validate_interfaces(report: Report) -> None:
    node = report.task.node.uuid
    found = all_interfaces(report)
    if not found:
        raise InvalidNodeInventory(node, "no valid network interfaces")
    add_ports = report.options.add_ports
    booted = pxe_mac(report.inventory)
    valid = {}
    for name, interface in found.items():
        ip = _ip_of(interface)
        if name == "lo" or (ip is not None and _is_loopback(ip)):
            continue
        if add_ports == "pxe" and booted and not interface["pxe_enabled"]:
            continue
        if add_ports == "active" and not ip:
            continue
        valid[name] = dict(interface)
    if not valid:
        raise InvalidNodeInventory(
            node, f'no network interfaces match the configuration (add_ports set to "{add_ports}")'
        )
    report.plugin_data["all_interfaces"] = found
    report.plugin_data["valid_interfaces"] = valid
    report.plugin_data["macs"] = [interface["mac_address"] for interface in valid.values()]


# -- ports -----------------------------------------------------------------------------------


def _note(report: Report, event: str) -> None:
    report.conductor.record_history(report.task, HistoryEntry("inspection", event))


def _ports(report: Report) -> None:
    conductor, task, options = report.conductor, report.task, report.options
    if options.add_ports != "disabled":
        for interface in report.plugin_data["valid_interfaces"].values():
            mac = interface["mac_address"]
            if task.inventory.port_by_address(mac) is not None:
                continue  # on this node or another, as Ironic's, which logs it
            extra = {"client-id": interface["client_id"]} if interface.get("client_id") else {}
            values = {"address": mac, "pxe_enabled": interface["pxe_enabled"], "extra": extra}
            port = ports.add_port(conductor, task, values)
            task.forget_inventory()
            _note(report, f"port {port.uuid} created for {mac}")
    _update_ports(report)


def _update_ports(report: Report) -> None:
    conductor, task, options = report.conductor, report.task, report.options
    interfaces = report.plugin_data["all_interfaces"].values()
    expected: set[str] = set()
    if options.keep_ports == "present":
        expected = {interface["mac_address"] for interface in interfaces}
    elif options.keep_ports == "added":
        expected = set(report.plugin_data["macs"])
    booted = {interface["mac_address"] for interface in interfaces if interface["pxe_enabled"]}
    client_ids = {interface["mac_address"]: interface.get("client_id") for interface in interfaces}
    for port in list(task.ports):
        if expected and port.address not in expected:
            ports.remove_port(conductor, task, port)
            task.forget_inventory()
            _note(report, f"port {port.uuid} ({port.address}) deleted: not an interface kept")
            continue
        changes: dict[str, Any] = {}
        if options.update_pxe_enabled and port.pxe_enabled != (port.address in booted):
            changes["pxe_enabled"] = port.address in booted
        client_id = client_ids.get(port.address)
        if client_id and client_id != port.extra.get("client-id"):
            changes["extra"] = {**port.extra, "client-id": client_id}
        if changes:
            ports.change_port(conductor, task, port, changes)
            task.forget_inventory()
            shown = ", ".join(f"{key} {value}" for key, value in sorted(changes.items()))
            _note(report, f"port {port.uuid} ({port.address}) changed: {shown}")


# -- architecture ----------------------------------------------------------------------------


def _architecture(report: Report) -> None:
    task = report.task
    cpu = report.inventory.get("cpu")
    arch = cpu.get("architecture") if isinstance(cpu, dict) else None
    if not isinstance(arch, str) or not arch:
        raise InvalidNodeInventory(
            task.node.uuid,
            "Inventory has malformed or missing CPU architecture information: "
            f"{cpu} for node {task.node.uuid}.",
        )
    properties = dict(task.node.properties)
    if properties.get("cpu_arch") != arch:
        properties["cpu_arch"] = arch
        task.inventory.update_node({"properties": properties})
        task.reload()


# -- parse-lldp and local-link-connection ----------------------------------------------------

# As Ironic's: each advertisement comes in on one physical interface, which bounds them.
_MAX_LLDP_INTERFACES = 64


def _tlvs_of(report: Report, interface: dict[str, Any]) -> Any:
    """An interface's TLVs: from the plugin data's ``lldp_raw``, else the inventory's."""
    raw, name = report.plugin_data.get("lldp_raw"), interface.get("name")
    given = raw.get(name) if isinstance(raw, dict) and isinstance(name, str) else None
    return given or interface.get("lldp")


def _parse_lldp(report: Report) -> None:
    for interface in report.inventory["interfaces"][:_MAX_LLDP_INTERFACES]:
        tlvs = _tlvs_of(report, interface)
        if tlvs is None:
            continue
        found = lldp.parsed(tlvs)
        if found and isinstance(interface.get("name"), str):
            report.plugin_data.setdefault("parsed_lldp", {})[interface["name"]] = found


def _with_ports(report: Report) -> list[tuple[dict[str, Any], Port]]:
    """The inventory's interfaces validate-interfaces kept, each with its port on the node
    (those without one left out)."""
    named = report.plugin_data.get("all_interfaces") or {}
    by_address = {port.address: port for port in report.task.ports}
    found = []
    for interface in report.inventory["interfaces"]:
        port = by_address.get(normalized_mac(interface.get("mac_address")) or "")
        name = interface.get("name")
        if isinstance(name, str) and name in named and port is not None:
            found.append((interface, port))
    return found


def _change(report: Report, port: Port, changes: dict[str, Any], why: str) -> None:
    """Change a port through the port rules; a change they refuse is left, as Ironic's
    hooks leave it (logged), in the history."""
    try:
        ports.change_port(report.conductor, report.task, port, changes)
    except MetalwireError as exc:
        _note(report, f"port {port.uuid} ({port.address}) left as it was: {exc}")
        return
    report.task.forget_inventory()
    shown = ", ".join(f"{key} {value}" for key, value in sorted(changes.items()))
    _note(report, f"port {port.uuid} ({port.address}) {why}: {shown}")


def _local_link_connection(report: Report) -> None:
    for interface, port in _with_ports(report):
        tlvs = _tlvs_of(report, interface)
        if tlvs is None:
            continue
        try:
            link = lldp.local_link(tlvs)
        except lldp.MalformedTlv as exc:
            _note(report, f"port {port.uuid} ({port.address}) left as it was: LLDP {exc}")
            continue
        kept = port.local_link_connection
        added = {key: value for key, value in link.items() if key not in kept}
        if added:
            _change(report, port, {"local_link_connection": {**kept, **added}}, "linked from LLDP")


# -- physical-network ------------------------------------------------------------------------


def cidr_map(options: InspectorOptions) -> list[tuple[IPNetwork, str]]:
    """``[inspector] physical_network_cidr_map``: each subnet with its physical network."""
    pairs = []
    for item in options.physical_network_cidr_map:
        cidr, _, physnet = item.rpartition(":")
        pairs.append((ipaddress.ip_network(cidr), physnet))
    return pairs


def _physical_network(report: Report) -> None:
    subnets = cidr_map(report.options)
    for interface, port in _with_ports(report):
        addresses = []
        for key in ("ipv4_address", "ipv6_address"):
            try:
                addresses.append(ipaddress.ip_address(_without_scope(interface.get(key)) or ""))
            except ValueError:
                continue
        physnet = next((name for ip in addresses for subnet, name in subnets if ip in subnet), None)
        if physnet is not None and port.physical_network != physnet:
            _change(report, port, {"physical_network": physnet}, "physical network set")


HOOKS: dict[str, Hook] = {
    hook.name: hook
    for hook in (
        Hook("ramdisk-error", preprocess=_ramdisk_error),
        Hook("validate-interfaces", preprocess=_validate_interfaces),
        Hook("ports", process=_ports, needs=("validate-interfaces",)),
        Hook("architecture", process=_architecture),
        Hook("parse-lldp", process=_parse_lldp),
        Hook(
            "local-link-connection",
            process=_local_link_connection,
            needs=("validate-interfaces",),
        ),
        Hook("physical-network", process=_physical_network, needs=("validate-interfaces",)),
    )
}


def enabled_hooks(options: InspectorOptions) -> list[Hook]:
    """The hooks ``[inspector] hooks`` names, in order (``$default_hooks`` standing for
    ``default_hooks``); raises Invalid naming an unknown one, or one listed before a hook
    it needs."""
    listed = options.hooks.replace("$default_hooks", options.default_hooks)
    names = [name.strip() for name in listed.split(",") if name.strip()]
    unknown = [name for name in names if name not in HOOKS]
    if unknown:
        raise Invalid(
            f"configuration option [inspector] hooks: unknown inspection hook(s) "
            f"{', '.join(unknown)}; metalwire has {', '.join(HOOKS)}"
        )
    hooks, seen, missing = [], set(), []
    for name in names:
        hook = HOOKS[name]
        lacking = [need for need in hook.needs if need not in seen]
        if lacking:
            missing.append(f"{name} needs {', '.join(lacking)} listed before it")
        hooks.append(hook)
        seen.add(name)
    if missing:
        raise Invalid(f"configuration option [inspector] hooks: {'; '.join(missing)}")
    return hooks


def run(report: Report) -> None:
    """Run the enabled hooks on the report. Raises HardwareInspectionFailure with Ironic's
    message: every preprocess failure gathered, or the first processing one."""
    hooks = enabled_hooks(report.options)
    node = report.task.node.uuid
    failures = []
    for hook in hooks:
        try:
            hook.preprocess(report)
        except HardwareInspectionFailure as exc:
            failures.append(f"Error in preprocess hook {hook.name}: {exc}")
        except NodeLockLost:
            raise
        except Exception as exc:  # as Ironic's: any failure of a hook fails the inspection
            if not isinstance(exc, MetalwireError):
                LOG.exception("node %s: preprocess hook %s failed", node, hook.name)
            failures.append(
                f"Unexpected exception {type(exc).__name__} during preprocess hook "
                f"{hook.name}: {exc}"
            )
    if failures:
        raise HardwareInspectionFailure(
            f"The following failures happened while running preprocess hooks for node "
            f"{node}:\n" + "\n".join(failures)
        )
    for hook in hooks:
        try:
            hook.process(report)
        except (HardwareInspectionFailure, NodeLockLost):
            raise
        except Exception as exc:  # as Ironic's: any failure of a hook fails the inspection
            if not isinstance(exc, MetalwireError):
                LOG.exception("node %s: inspection hook %s failed", node, hook.name)
            raise HardwareInspectionFailure(
                f"Unexpected exception {type(exc).__name__} during processing for node: "
                f"{node}. Error: {exc}"
            ) from None
