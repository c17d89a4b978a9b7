"""``metalwire node vif list|attach|detach``: the VIFs attached to a node."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from metalwire.cli.commands.common import (
    add_node_command,
    dict_values,
    identifier,
    key_value,
)
from metalwire.cli.output import pick_columns, print_list, print_listing, print_record
from metalwire.client import Client, HTTPError, Port, Portgroup, VersionError


def _vif_list(client: Client, args: argparse.Namespace) -> int:
    rows = [[vif] for vif in client.vif_list(args.node)]
    print_listing(["ID"], rows, args.format, sys.stdout, args.columns)
    return 0


_DRY_RUN_HEADERS = ["Target", "UUID", "Address", "Physical Network", "Verdict", "Reason"]
_SWITCH_HEADERS = ["Switch", "Switch Port", "Port UUID", "From", "To", "Commands"]


def _vif_attach(client: Client, args: argparse.Namespace) -> int:
    if args.dry_run:
        return _vif_attach_dry_run(client, args)
    pick_columns(_holder_fields("attached"), args.columns)  # before attaching anything
    client.vif_attach(
        args.node,
        args.vif_id,
        port_uuid=args.port_uuid,
        portgroup_uuid=args.portgroup_uuid,
        vif_info=dict_values(args.vif_info),
    )
    _print_holder(args, "attached", vif_holder(client, args.node, args.vif_id))
    return 0


def vif_holder(client: Client, node: str, vif_id: str) -> Port | Portgroup | None:
    """The portgroup or port of the node that holds the VIF (its ``internal_info``), or None
    when the server does not show it (an API older than 1.18)."""
    fields = ["uuid", "address", "internal_info"]
    try:
        candidates: list[Port | Portgroup] = [
            *client.iter_portgroups(node=node, fields=[*fields, "name"]),
            *client.iter_ports(node=node, fields=fields),
        ]
    except (VersionError, HTTPError):
        return None
    return next((item for item in candidates if item.vif_id == vif_id), None)


def _holder_fields(verb: str) -> list[str]:
    """The fields of what attach or detach prints, the same whatever held the VIF, so that
    a ``-c`` is checked before anything is changed."""
    return ["node", "vif", verb, "uuid", "address", "name"]


def _print_holder(args: argparse.Namespace, verb: str, holder: Port | Portgroup | None) -> None:
    """What the command did, naming the port or portgroup (``None``: not known; its fields
    are then null, as the name of a port is)."""
    record: dict[str, Any] = dict.fromkeys(_holder_fields(verb))
    record.update(node=args.node, vif=args.vif_id)
    if holder is not None:
        record[verb] = holder.kind
        record["uuid"] = holder.uuid
        record["address"] = holder.get("address")
        if isinstance(holder, Portgroup):
            record["name"] = holder.name
    if args.format == "table" and not args.columns:
        if holder is None:
            print(f"VIF {args.vif_id} {verb} on node {args.node}")
        else:
            target = holder.get("name") or holder.get("address") or holder.uuid
            preposition = "to" if verb == "attached" else "from"
            print(
                f"VIF {args.vif_id} {verb} {preposition} {holder.kind} {holder.uuid} "
                f"({target}) of node {args.node}"
            )
        return
    print_record(record, args.format, sys.stdout, args.columns)


def _vif_attach_dry_run(client: Client, args: argparse.Namespace) -> int:
    """Print where the VIF would go (and why nowhere else); 1 if the attach would fail."""
    answer = client.vif_attach_dry_run(
        args.node,
        args.vif_id,
        port_uuid=args.port_uuid,
        portgroup_uuid=args.portgroup_uuid,
        vif_info=dict_values(args.vif_info),
    )
    if args.format in ("json", "yaml"):
        print_record(answer, args.format, sys.stdout, args.columns)
    else:
        rows = []
        target = answer.get("target")
        plan = answer.get("trait_based_networking")
        if target:
            rows.append(_dry_run_row(target, "chosen", _chosen_because(plan)))
        for entry in answer.get("refused") or []:
            rows.append(_dry_run_row(entry, entry.get("reason"), entry.get("message")))
        if plan:
            rows += _tbn_rows(plan)
        print_list(_DRY_RUN_HEADERS, rows, args.format, sys.stdout, args.columns)
        if args.format == "table" and answer.get("switch_changes"):
            print("Switch changes (nothing was sent):")
            print_list(_SWITCH_HEADERS, _switch_rows(answer["switch_changes"]), "table", sys.stdout)
    error = answer.get("error")
    if error:
        print(f"Would not attach: {error.get('message')}", file=sys.stderr)
        return 1
    return 0


def _chosen_because(plan: dict[str, Any] | None) -> str:
    """The chosen row's reason: the trait-based networking trait that placed the VIF, or
    that none did and the ordinary choice placed it."""
    if not plan:
        return ""
    if plan.get("trait"):
        return f"trait {plan['trait']}"
    return "no trait-based networking rule places it: chosen as without the rules"


def _switchport_text(config: dict[str, Any] | None) -> str:
    if config is None:
        return "no VLAN"
    text = f"{config['mode']} {config['native_vlan']}"
    allowed = config.get("allowed_vlans") or []
    return f"{text} allowed {','.join(map(str, allowed))}" if allowed else text


def _switch_rows(switches: list[dict[str, Any]]) -> list[list[Any]]:
    """One row per switch port the attach would change, with the commands it would send."""
    rows = []
    for switch in switches:
        for port in switch.get("ports") or []:
            commands = port.get("commands")
            listed = "; ".join(commands) if commands is not None else switch["commands_unavailable"]
            rows.append(
                [
                    switch["switch"],
                    port["port_id"],
                    port["port_uuid"],
                    _switchport_text(port.get("from")),
                    _switchport_text(port.get("to")),
                    listed,
                ]
            )
    return rows


def _tbn_rows(plan: dict[str, Any]) -> list[list[Any]]:
    """One row per target each trait-based networking action matched or refused."""
    rows = []
    for tried in plan.get("tried") or []:
        for action in tried.get("actions") or []:
            step = f"{tried['trait']}: {action['action']} {action['filter']}"
            if action.get("carried_out"):
                step += " (carried out)"
            elif action.get("problem"):
                step += f" ({action['problem']})"
            for matched in action.get("targets") or []:
                rows.append([matched["kind"], matched["uuid"], "", "", "matched", step])
            for refused in action.get("refused") or []:
                reason = f"{step}: {refused['reason']}"
                rows.append([refused["kind"], refused["uuid"], "", "", "refused", reason])
    return rows


def _dry_run_row(target: dict[str, Any], verdict: Any, reason: Any) -> list[Any]:
    return [
        target.get("type"),
        target.get("uuid"),
        target.get("address") or target.get("name") or "",
        target.get("physical_network") or "",
        verdict,
        reason,
    ]


def _vif_detach(client: Client, args: argparse.Namespace) -> int:
    pick_columns(_holder_fields("detached"), args.columns)  # before detaching anything
    holder = vif_holder(client, args.node, args.vif_id)
    client.vif_detach(args.node, args.vif_id)
    _print_holder(args, "detached", holder)
    return 0


def register(node_actions: Any, common: argparse.ArgumentParser) -> None:
    """Add ``vif list|attach|detach`` to the actions of ``metalwire node``."""
    vif = node_actions.add_parser("vif", help="list, attach and detach VIFs")
    vif_actions = vif.add_subparsers(dest="vif_command", metavar="ACTION", required=True)
    add_node_command(
        vif_actions, "list", common, "List the VIFs attached to a node", _vif_list, True
    )
    attach = add_node_command(
        vif_actions, "attach", common, "Attach a VIF to a node", _vif_attach, True
    )
    attach.add_argument(
        "vif_id", type=identifier, metavar="VIF", help="the VIF (e.g. a Neutron port UUID)"
    )
    target = attach.add_mutually_exclusive_group()
    target.add_argument(
        "--port-uuid", dest="port_uuid", metavar="UUID", help="attach to this port of the node"
    )
    target.add_argument(
        "--portgroup-uuid",
        dest="portgroup_uuid",
        metavar="UUID",
        help="attach to this portgroup of the node",
    )
    attach.add_argument(
        "--vif-info",
        dest="vif_info",
        type=key_value,
        action="append",
        metavar="KEY=VALUE",
        help="extra VIF information (repeat for more)",
    )
    attach.add_argument(
        "--dry-run",
        dest="dry_run",
        action="store_true",
        help="attach nothing: show the port or portgroup the VIF would get and why every "
        "other one would not (metalwire only); exit status 1 if the attach would fail",
    )
    detach = add_node_command(
        vif_actions, "detach", common, "Detach a VIF from a node", _vif_detach, True
    )
    detach.add_argument("vif_id", type=identifier, metavar="VIF", help="the VIF to detach")
