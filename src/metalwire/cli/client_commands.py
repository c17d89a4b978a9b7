"""Client commands of the ``metalwire`` program, following the ``baremetal`` command.

    metalwire node create|list|show|set|unset|delete
    metalwire node manage|provide|deploy|undeploy NODE
    metalwire node maintenance set|unset NODE...
    metalwire node vif list|attach|detach
    metalwire port create|list|show|delete
    metalwire portgroup create|list|show|delete
    metalwire create FILE...

The endpoint comes from ``--url``, else ``METALWIRE_URL``, else ``OS_ENDPOINT``, else
http://127.0.0.1:6385. Exit status: 0 on success, 1 when the server or the connection
failed (the server's message is on stderr), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import uuid as uuidlib
from collections.abc import Callable, Sequence
from typing import Any

from metalwire.cli.output import (
    UsageError,
    add_format_arguments,
    label,
    print_list,
    print_record,
)
from metalwire.client import Client, MetalwireClientError, Resource, RetryPolicy, patch
from metalwire.client.client import DEFAULT_URL, ProvisionTarget
from metalwire.client.enrol import EnrolFileError, NodeSpec, Progress, enrol, load_file
from metalwire.client.patch import PatchOp

Handler = Callable[[Client, argparse.Namespace], int | None]

NODE_COLUMNS = ("uuid", "name", "instance_uuid", "power_state", "provision_state", "maintenance")
PORT_COLUMNS = ("uuid", "address")
PORTGROUP_COLUMNS = ("uuid", "address", "name")

# Provision verb of each command -> (API target, the state it ends in when done).
PROVISION_COMMANDS: dict[str, tuple[ProvisionTarget, str, str]] = {
    "manage": ("manage", "manageable", "Set provision state of a node to 'manage'"),
    "provide": ("provide", "available", "Set provision state of a node to 'provide'"),
    "deploy": ("active", "active", "Deploy a node (provision target 'active')"),
    "undeploy": ("deleted", "available", "Tear a node down (provision target 'deleted')"),
}

# Simple node fields settable with --OPTION VALUE in node create/set; unset with --OPTION.
NODE_SCALARS = (
    "name",
    "resource_class",
    "network_interface",
    "owner",
    "lessee",
    "description",
    "conductor_group",
)
# Dictionary node fields set with --OPTION KEY=VALUE and unset with --OPTION KEY.
NODE_DICTS = {
    "property": "properties",
    "extra": "extra",
    "driver_info": "driver_info",
    "instance_info": "instance_info",
}


# -- plumbing ----------------------------------------------------------------------------


def endpoint(args: argparse.Namespace, environ: dict[str, str] | None = None) -> str:
    """``--url``, else METALWIRE_URL, else OS_ENDPOINT, else the default endpoint."""
    env = os.environ if environ is None else environ
    url: str = args.url or env.get("METALWIRE_URL") or env.get("OS_ENDPOINT") or DEFAULT_URL
    return url


def _key_value(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def _boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "1", "on"):
        return True
    if lowered in ("false", "no", "0", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _sort(text: str) -> tuple[str, str | None]:
    key, _, direction = text.partition(":")
    if not key or direction not in ("", "asc", "desc"):
        raise argparse.ArgumentTypeError(f"expected KEY[:asc|desc], got {text!r}")
    return key, direction or None


def _is_uuid(text: str) -> bool:
    try:
        uuidlib.UUID(text)
    except ValueError:
        return False
    return True


def _fail(message: str) -> int:
    print(f"metalwire: {message}", file=sys.stderr)
    return 1


def _run(handler: Handler) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        _configure_logging(args.debug)
        try:
            retry = RetryPolicy(max_retries=args.max_retries)
            client = Client(
                endpoint(args), api_version=args.api_version, timeout=args.timeout, retry=retry
            )
        except ValueError as error:
            print(f"metalwire: error: {error}", file=sys.stderr)
            return 2
        try:
            with client:
                return handler(client, args) or 0
        except UsageError as error:
            print(f"metalwire: error: {error}", file=sys.stderr)
            return 2
        except MetalwireClientError as error:
            return _fail(str(error))

    return run


def _configure_logging(debug: bool) -> None:
    """Requests are logged only with ``--debug``; warnings always reach stderr."""
    if debug:
        logging.basicConfig(level=logging.DEBUG, format="%(levelname)s %(name)s %(message)s")
    for name in ("httpx", "httpcore", "metalwire.client"):
        logging.getLogger(name).setLevel(logging.DEBUG if debug else logging.WARNING)


def _common_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("connection")
    group.add_argument(
        "--url",
        "--os-endpoint",
        dest="url",
        metavar="URL",
        help=f"API endpoint (default: $METALWIRE_URL, $OS_ENDPOINT or {DEFAULT_URL})",
    )
    group.add_argument(
        "--api-version",
        "--os-baremetal-api-version",
        dest="api_version",
        metavar="VERSION",
        default=os.environ.get("OS_BAREMETAL_API_VERSION"),
        help="API microversion to use, 1.N or latest (default: negotiate the highest)",
    )
    group.add_argument(
        "--timeout", type=float, default=60.0, help="seconds per request (default 60)"
    )
    group.add_argument(
        "--max-retries",
        type=int,
        default=3,
        metavar="N",
        help="retries of a connection refused, 503 or locked node (default 3)",
    )
    group.add_argument("--debug", action="store_true", help="log every request to stderr")
    return common


def _leaf(
    commands: Any,
    name: str,
    common: argparse.ArgumentParser,
    help: str,
    handler: Handler,
    formatted: bool = False,
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        name, parents=[common], help=help, description=help
    )
    if formatted:
        add_format_arguments(parser)
    parser.set_defaults(handler=_run(handler))
    return parser


def _list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="show at most N items (default: all, fetched page by page)",
    )
    parser.add_argument("--marker", metavar="UUID", help="start after this item")
    parser.add_argument(
        "--sort", type=_sort, metavar="KEY[:DIR]", help="sort by KEY, asc (default) or desc"
    )
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--long", action="store_true", help="show every field")
    shape.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")


def _list_query(args: argparse.Namespace) -> dict[str, Any]:
    query: dict[str, Any] = {}
    if args.limit is not None:
        if args.limit < 0:
            raise UsageError("--limit must be 0 or more")
        query["limit"] = args.limit
    if args.marker:
        query["marker"] = args.marker
    if args.sort:
        query["sort_key"], direction = args.sort
        if direction:
            query["sort_dir"] = direction
    if args.long:
        query["detail"] = True
    if args.fields:
        query["fields"] = args.fields
    return query


def _print_resources(
    items: Sequence[Resource], default: Sequence[str], args: argparse.Namespace
) -> None:
    if args.fields:
        fields = list(args.fields)
    elif args.long:
        fields = list(items[0].fields()) if items else list(default)
    else:
        fields = list(default)
    rows = [[item.get(f) for f in fields] for item in items]
    if args.format == "table" and not rows:
        return
    print_list([label(f) for f in fields], rows, args.format, sys.stdout, args.columns)


def _show(resource: Resource, args: argparse.Namespace) -> None:
    fields = resource.fields()
    print_record(dict(sorted(fields.items())), args.format, sys.stdout, args.columns)


def _node_uuid(client: Client, ident: str) -> str:
    return ident if _is_uuid(ident) else client.get_node(ident, fields=["uuid"]).uuid


def _portgroup_uuid(client: Client, ident: str) -> str:
    return ident if _is_uuid(ident) else client.get_portgroup(ident, fields=["uuid"]).uuid


def _delete_each(idents: Sequence[str], kind: str, delete: Callable[[str], None]) -> int:
    failures = 0
    for ident in idents:
        try:
            delete(ident)
        except MetalwireClientError as error:
            failures += 1
            print(f"Failed to delete {kind} {ident}: {error}", file=sys.stderr)
            continue
        print(f"Deleted {kind} {ident}")
    return 1 if failures else 0


def _lookup_query(address: str, fields: Sequence[str] | None) -> dict[str, Any]:
    query: dict[str, Any] = {"address": address}
    if fields:
        query["fields"] = list(fields)
    else:
        query["detail"] = True
    return query


def _dict_values(pairs: Sequence[tuple[str, Any]] | None) -> dict[str, Any]:
    return dict(pairs or [])


# -- nodes -------------------------------------------------------------------------------


def _node_create(client: Client, args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    if args.uuid:
        fields["uuid"] = args.uuid
    for name in NODE_SCALARS:
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    for option, field in NODE_DICTS.items():
        if option != "instance_info" and getattr(args, option):
            fields[field] = _dict_values(getattr(args, option))
    if args.automated_clean is not None:
        fields["automated_clean"] = args.automated_clean
    _show(client.create_node(args.driver, **fields), args)
    return 0


def _node_list(client: Client, args: argparse.Namespace) -> int:
    query = _list_query(args)
    for name in (
        "maintenance",
        "associated",
        "provision_state",
        "driver",
        "resource_class",
        "conductor_group",
        "owner",
        "lessee",
        "description_contains",
    ):
        if getattr(args, name) is not None:
            query[name] = getattr(args, name)
    _print_resources(client.list_nodes(**query), NODE_COLUMNS, args)
    return 0


def _node_show(client: Client, args: argparse.Namespace) -> int:
    _show(client.get_node(args.node, fields=args.fields), args)
    return 0


def _node_set(client: Client, args: argparse.Namespace) -> int:
    ops: list[PatchOp] = []
    for name in ("driver", "instance_uuid", *NODE_SCALARS, "protected_reason"):
        value = getattr(args, name)
        if value is not None:
            ops.append(patch.add(name, value))
    for option, field in NODE_DICTS.items():
        for key, value in getattr(args, option) or []:
            ops.append(patch.add(patch.pointer(field, key), value))
    for name in ("automated_clean", "protected"):
        if getattr(args, name) is not None:
            ops.append(patch.add(name, getattr(args, name)))
    if not ops:
        raise UsageError("nothing to set; give at least one option")
    client.update_node(args.node, ops)
    return 0


def _node_unset(client: Client, args: argparse.Namespace) -> int:
    ops: list[PatchOp] = []
    for name in ("instance_uuid", *NODE_SCALARS, "automated_clean", "protected_reason"):
        if getattr(args, name):
            ops.append(patch.remove(name))
    for option, field in NODE_DICTS.items():
        for key in getattr(args, option) or []:
            ops.append(patch.remove(patch.pointer(field, key)))
    if not ops:
        raise UsageError("nothing to unset; give at least one option")
    client.update_node(args.node, ops)
    return 0


def _node_delete(client: Client, args: argparse.Namespace) -> int:
    return _delete_each(args.nodes, "node", client.delete_node)


def _provision(command: str) -> Handler:
    target, expected, _ = PROVISION_COMMANDS[command]

    def run(client: Client, args: argparse.Namespace) -> int:
        client.set_provision_state(args.node, target)
        states = client.get_states(args.node)
        state = states.get("provision_state")
        if states.get("target_provision_state") is None and state != expected:
            reason = states.get("last_error") or f"the node is in provision state {state!r}"
            return _fail(f"{command} of node {args.node} failed: {reason}")
        return 0

    return run


def _maintenance_set(client: Client, args: argparse.Namespace) -> int:
    return _each_node(
        args.nodes, "set maintenance on", lambda n: client.set_maintenance(n, args.reason)
    )


def _maintenance_unset(client: Client, args: argparse.Namespace) -> int:
    return _each_node(args.nodes, "unset maintenance on", client.unset_maintenance)


def _each_node(nodes: Sequence[str], what: str, action: Callable[[str], None]) -> int:
    failures = 0
    for node in nodes:
        try:
            action(node)
        except MetalwireClientError as error:
            failures += 1
            print(f"Failed to {what} node {node}: {error}", file=sys.stderr)
    return 1 if failures else 0


def _vif_list(client: Client, args: argparse.Namespace) -> int:
    rows = [[vif] for vif in client.vif_list(args.node)]
    if args.format == "table" and not rows:
        return 0
    print_list(["ID"], rows, args.format, sys.stdout, args.columns)
    return 0


def _vif_attach(client: Client, args: argparse.Namespace) -> int:
    client.vif_attach(
        args.node,
        args.vif_id,
        port_uuid=args.port_uuid,
        portgroup_uuid=args.portgroup_uuid,
        vif_info=_dict_values(args.vif_info),
    )
    return 0


def _vif_detach(client: Client, args: argparse.Namespace) -> int:
    client.vif_detach(args.node, args.vif_id)
    return 0


# -- ports and portgroups ----------------------------------------------------------------


def _port_create(client: Client, args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    if args.uuid:
        fields["uuid"] = args.uuid
    if args.extra:
        fields["extra"] = _dict_values(args.extra)
    if args.local_link_connection:
        fields["local_link_connection"] = _dict_values(args.local_link_connection)
    if args.pxe_enabled is not None:
        fields["pxe_enabled"] = args.pxe_enabled
    if args.physical_network is not None:
        fields["physical_network"] = args.physical_network
    if args.is_smartnic:
        fields["is_smartnic"] = True
    if args.port_group:
        fields["portgroup_uuid"] = _portgroup_uuid(client, args.port_group)
    port = client.create_port(_node_uuid(client, args.node), args.address, **fields)
    _show(port, args)
    return 0


def _port_list(client: Client, args: argparse.Namespace) -> int:
    query = _list_query(args)
    for name, value in (
        ("node", args.node),
        ("address", args.address),
        ("portgroup", args.port_group),
    ):
        if value is not None:
            query[name] = value
    _print_resources(client.list_ports(**query), PORT_COLUMNS, args)
    return 0


def _show_by_id_or_address(
    args: argparse.Namespace,
    ident: str,
    kind: str,
    get: Callable[..., Resource],
    find: Callable[..., list[Any]],
) -> int:
    """Show one port or portgroup named by UUID (or name), or by MAC with ``--address``."""
    if args.address:
        found = find(**_lookup_query(ident, args.fields))
        if not found:
            return _fail(f"{kind} with address {ident} could not be found.")
        _show(found[0], args)
    else:
        _show(get(ident, fields=args.fields), args)
    return 0


def _port_show(client: Client, args: argparse.Namespace) -> int:
    return _show_by_id_or_address(args, args.port, "Port", client.get_port, client.list_ports)


def _port_delete(client: Client, args: argparse.Namespace) -> int:
    return _delete_each(args.ports, "port", client.delete_port)


def _portgroup_create(client: Client, args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    for name in ("uuid", "name", "address", "mode"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    if args.extra:
        fields["extra"] = _dict_values(args.extra)
    if args.property:
        fields["properties"] = _dict_values(args.property)
    if args.standalone_ports is not None:
        fields["standalone_ports_supported"] = args.standalone_ports
    portgroup = client.create_portgroup(_node_uuid(client, args.node), **fields)
    _show(portgroup, args)
    return 0


def _portgroup_list(client: Client, args: argparse.Namespace) -> int:
    query = _list_query(args)
    for name, value in (("node", args.node), ("address", args.address)):
        if value is not None:
            query[name] = value
    _print_resources(client.list_portgroups(**query), PORTGROUP_COLUMNS, args)
    return 0


def _portgroup_show(client: Client, args: argparse.Namespace) -> int:
    return _show_by_id_or_address(
        args, args.portgroup, "Portgroup", client.get_portgroup, client.list_portgroups
    )


def _portgroup_delete(client: Client, args: argparse.Namespace) -> int:
    return _delete_each(args.portgroups, "port group", client.delete_portgroup)


# -- bulk enrolment ----------------------------------------------------------------------


def _progress(event: Progress) -> None:
    prefix = f"[{event.index}/{event.total}] {event.spec.label}"
    result = event.result
    if result is None:
        sys.stderr.write(f"{prefix} ... ")
    elif result.ok:
        sys.stderr.write(
            f"created {result.node_uuid} ({_count(len(result.ports), 'port')}, "
            f"{_count(len(result.portgroups), 'portgroup')})\n"
        )
    else:
        sys.stderr.write(f"{result.status.upper()}: {result.error}\n")
    sys.stderr.flush()


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _bulk_create(client: Client, args: argparse.Namespace) -> int:
    specs: list[NodeSpec] = []
    problems: list[str] = []
    for name in args.files:
        try:
            specs.extend(load_file(name))
        except EnrolFileError as error:
            problems.append(str(error))
    if problems:
        for problem in problems:
            print(f"metalwire: {problem}", file=sys.stderr)
        print("metalwire: nothing was created.", file=sys.stderr)
        return 1
    results = enrol(client, specs, progress=_progress)
    rows: list[list[Any]] = []
    for r in results:
        # What exists now: nothing is left of a node that was rolled back.
        left = r.status in ("created", "rollback failed")
        rows.append(
            [
                r.spec.label,
                r.node_uuid if left else None,
                r.status,
                len(r.ports) if left else 0,
                len(r.portgroups) if left else 0,
                r.error,
            ]
        )
    if rows or args.format != "table":
        headers = ["Node", "UUID", "Status", "Ports", "Portgroups", "Error"]
        print_list(headers, rows, args.format, sys.stdout, args.columns)
    created = [r for r in results if r.ok]
    failed = [r for r in results if r.status == "failed"]
    rolled = [r for r in results if r.status in ("rolled back", "rollback failed")]
    print(
        f"{_count(len(created), 'node')} created "
        f"({_count(sum(len(r.ports) for r in created), 'port')}, "
        f"{_count(sum(len(r.portgroups) for r in created), 'portgroup')}), "
        f"{len(failed)} failed, {len(rolled)} rolled back, of {len(results)}.",
        file=sys.stderr,
    )
    return 0 if len(created) == len(results) else 1


# -- parsers -----------------------------------------------------------------------------


def _add_node_field_options(parser: argparse.ArgumentParser, creating: bool) -> None:
    for name in NODE_SCALARS:
        option = "--" + name.replace("_", "-")
        parser.add_argument(option, dest=name, metavar=name.upper(), help=f"the node's {name}")
    for option, field in NODE_DICTS.items():
        if creating and option == "instance_info":
            continue
        parser.add_argument(
            "--" + option.replace("_", "-"),
            dest=option,
            type=_key_value,
            action="append",
            metavar="KEY=VALUE",
            help=f"a key of {field} (repeat for more; VALUE is JSON or text)",
        )
    clean = parser.add_mutually_exclusive_group()
    clean.add_argument(
        "--automated-clean",
        dest="automated_clean",
        action="store_const",
        const=True,
        help="enable automated cleaning of the node",
    )
    clean.add_argument(
        "--no-automated-clean",
        dest="automated_clean",
        action="store_const",
        const=False,
        help="disable automated cleaning of the node",
    )


def _register_nodes(commands: Any, common: argparse.ArgumentParser) -> None:
    node = commands.add_parser("node", help="manage nodes", description="Manage nodes.")
    actions = node.add_subparsers(dest="node_command", metavar="ACTION", required=True)

    create = _leaf(actions, "create", common, "Register a new node", _node_create, True)
    create.add_argument("--driver", required=True, help="hardware type (e.g. ipmi)")
    create.add_argument("--uuid", help="the node's UUID (default: a new one)")
    _add_node_field_options(create, creating=True)

    listing = _leaf(actions, "list", common, "List nodes", _node_list, True)
    _list_arguments(listing)
    maintenance = listing.add_mutually_exclusive_group()
    maintenance.add_argument(
        "--maintenance",
        dest="maintenance",
        action="store_const",
        const=True,
        help="only nodes in maintenance mode",
    )
    maintenance.add_argument(
        "--no-maintenance",
        dest="maintenance",
        action="store_const",
        const=False,
        help="only nodes not in maintenance mode",
    )
    associated = listing.add_mutually_exclusive_group()
    associated.add_argument(
        "--associated",
        dest="associated",
        action="store_const",
        const=True,
        help="only nodes with an instance",
    )
    associated.add_argument(
        "--unassociated",
        dest="associated",
        action="store_const",
        const=False,
        help="only nodes without an instance",
    )
    for name in (
        "provision_state",
        "driver",
        "resource_class",
        "conductor_group",
        "owner",
        "lessee",
        "description_contains",
    ):
        listing.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            metavar=name.upper(),
            help=f"only nodes with this {name.replace('_', ' ')}",
        )

    show = _leaf(actions, "show", common, "Show a node", _node_show, True)
    show.add_argument("node", metavar="NODE", help="name or UUID of the node")
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    set_ = _leaf(actions, "set", common, "Set node fields", _node_set)
    set_.add_argument("node", metavar="NODE", help="name or UUID of the node")
    set_.add_argument("--driver", help="hardware type")
    set_.add_argument(
        "--instance-uuid", dest="instance_uuid", metavar="UUID", help="the instance on the node"
    )
    set_.add_argument(
        "--protected",
        dest="protected",
        action="store_const",
        const=True,
        help="protect the node from undeploy and rebuild",
    )
    set_.add_argument(
        "--protected-reason",
        dest="protected_reason",
        metavar="REASON",
        help="why the node is protected",
    )
    _add_node_field_options(set_, creating=False)

    unset = _leaf(actions, "unset", common, "Unset node fields", _node_unset)
    unset.add_argument("node", metavar="NODE", help="name or UUID of the node")
    for name in ("instance_uuid", *NODE_SCALARS, "automated_clean", "protected_reason"):
        unset.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            action="store_true",
            help=f"unset the node's {name}",
        )
    for option, field in NODE_DICTS.items():
        unset.add_argument(
            "--" + option.replace("_", "-"),
            dest=option,
            action="append",
            metavar="KEY",
            help=f"remove KEY from {field} (repeat for more)",
        )

    delete = _leaf(actions, "delete", common, "Delete nodes", _node_delete)
    delete.add_argument("nodes", nargs="+", metavar="NODE", help="names or UUIDs of nodes")

    for command, (_, _, help_text) in PROVISION_COMMANDS.items():
        verb = _leaf(actions, command, common, help_text, _provision(command))
        verb.add_argument("node", metavar="NODE", help="name or UUID of the node")

    maint = actions.add_parser("maintenance", help="set or unset maintenance mode")
    maint_actions = maint.add_subparsers(
        dest="maintenance_command", metavar="ACTION", required=True
    )
    mset = _leaf(maint_actions, "set", common, "Put nodes in maintenance mode", _maintenance_set)
    mset.add_argument("nodes", nargs="+", metavar="NODE", help="names or UUIDs of nodes")
    mset.add_argument("--reason", help="why the nodes are in maintenance")
    munset = _leaf(
        maint_actions, "unset", common, "Take nodes out of maintenance mode", _maintenance_unset
    )
    munset.add_argument("nodes", nargs="+", metavar="NODE", help="names or UUIDs of nodes")

    vif = actions.add_parser("vif", help="list, attach and detach VIFs")
    vif_actions = vif.add_subparsers(dest="vif_command", metavar="ACTION", required=True)
    vlist = _leaf(vif_actions, "list", common, "List the VIFs attached to a node", _vif_list, True)
    vlist.add_argument("node", metavar="NODE", help="name or UUID of the node")
    attach = _leaf(vif_actions, "attach", common, "Attach a VIF to a node", _vif_attach)
    attach.add_argument("node", metavar="NODE", help="name or UUID of the node")
    attach.add_argument("vif_id", metavar="VIF", help="the VIF (e.g. a Neutron port UUID)")
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
        type=_key_value,
        action="append",
        metavar="KEY=VALUE",
        help="extra VIF information (repeat for more)",
    )
    detach = _leaf(vif_actions, "detach", common, "Detach a VIF from a node", _vif_detach)
    detach.add_argument("node", metavar="NODE", help="name or UUID of the node")
    detach.add_argument("vif_id", metavar="VIF", help="the VIF to detach")


def _register_ports(commands: Any, common: argparse.ArgumentParser) -> None:
    port = commands.add_parser("port", help="manage ports", description="Manage ports.")
    actions = port.add_subparsers(dest="port_command", metavar="ACTION", required=True)

    create = _leaf(actions, "create", common, "Create a port", _port_create, True)
    create.add_argument("address", metavar="ADDRESS", help="MAC address of the port")
    create.add_argument("--node", required=True, help="name or UUID of the port's node")
    create.add_argument("--uuid", help="the port's UUID (default: a new one)")
    create.add_argument(
        "--extra",
        type=_key_value,
        action="append",
        metavar="KEY=VALUE",
        help="a key of extra (repeat for more)",
    )
    create.add_argument(
        "--local-link-connection",
        dest="local_link_connection",
        type=_key_value,
        action="append",
        metavar="KEY=VALUE",
        help="switch_id, port_id or switch_info (repeat for more)",
    )
    create.add_argument(
        "--pxe-enabled",
        dest="pxe_enabled",
        type=_boolean,
        metavar="BOOLEAN",
        help="whether the node may PXE boot from this port",
    )
    create.add_argument(
        "--port-group",
        dest="port_group",
        metavar="PORTGROUP",
        help="name or UUID of the portgroup the port belongs to",
    )
    create.add_argument(
        "--physical-network",
        dest="physical_network",
        metavar="NETWORK",
        help="the physical network the port is connected to",
    )
    create.add_argument(
        "--is-smartnic", dest="is_smartnic", action="store_true", help="the port is a Smart NIC"
    )

    listing = _leaf(actions, "list", common, "List ports", _port_list, True)
    _list_arguments(listing)
    listing.add_argument("--node", help="only ports of this node (name or UUID)")
    listing.add_argument("--address", help="only the port with this MAC address")
    listing.add_argument(
        "--port-group", dest="port_group", metavar="PORTGROUP", help="only ports of this portgroup"
    )

    show = _leaf(actions, "show", common, "Show a port", _port_show, True)
    show.add_argument("port", metavar="PORT", help="UUID of the port (MAC with --address)")
    show.add_argument("--address", action="store_true", help="PORT is a MAC address")
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    delete = _leaf(actions, "delete", common, "Delete ports", _port_delete)
    delete.add_argument("ports", nargs="+", metavar="PORT", help="UUIDs of ports")


def _register_portgroups(commands: Any, common: argparse.ArgumentParser) -> None:
    portgroup = commands.add_parser(
        "portgroup", help="manage portgroups", description="Manage portgroups (bonds)."
    )
    actions = portgroup.add_subparsers(dest="portgroup_command", metavar="ACTION", required=True)

    create = _leaf(actions, "create", common, "Create a portgroup", _portgroup_create, True)
    create.add_argument("--node", required=True, help="name or UUID of the portgroup's node")
    create.add_argument("--address", help="MAC address of the portgroup")
    create.add_argument("--name", help="name of the portgroup")
    create.add_argument("--uuid", help="the portgroup's UUID (default: a new one)")
    create.add_argument("--mode", help="bonding mode (e.g. 802.3ad, active-backup)")
    create.add_argument(
        "--extra",
        type=_key_value,
        action="append",
        metavar="KEY=VALUE",
        help="a key of extra (repeat for more)",
    )
    create.add_argument(
        "--property",
        type=_key_value,
        action="append",
        metavar="KEY=VALUE",
        help="a bonding property (repeat for more)",
    )
    standalone = create.add_mutually_exclusive_group()
    standalone.add_argument(
        "--support-standalone-ports",
        dest="standalone_ports",
        action="store_const",
        const=True,
        help="member ports may be used on their own",
    )
    standalone.add_argument(
        "--unsupport-standalone-ports",
        dest="standalone_ports",
        action="store_const",
        const=False,
        help="member ports may not be used on their own",
    )

    listing = _leaf(actions, "list", common, "List portgroups", _portgroup_list, True)
    _list_arguments(listing)
    listing.add_argument("--node", help="only portgroups of this node (name or UUID)")
    listing.add_argument("--address", help="only the portgroup with this MAC address")

    show = _leaf(actions, "show", common, "Show a portgroup", _portgroup_show, True)
    show.add_argument(
        "portgroup", metavar="PORTGROUP", help="name or UUID of the portgroup (MAC with --address)"
    )
    show.add_argument("--address", action="store_true", help="PORTGROUP is a MAC address")
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    delete = _leaf(actions, "delete", common, "Delete portgroups", _portgroup_delete)
    delete.add_argument(
        "portgroups", nargs="+", metavar="PORTGROUP", help="names or UUIDs of portgroups"
    )


def register(commands: Any) -> None:
    """Add the client commands to the ``metalwire`` program's subcommands."""
    common = _common_parser()
    _register_nodes(commands, common)
    _register_ports(commands, common)
    _register_portgroups(commands, common)
    create = _leaf(
        commands,
        "create",
        common,
        "Enrol nodes with their ports and portgroups from YAML or JSON files",
        _bulk_create,
        True,
    )
    create.add_argument("files", nargs="+", metavar="FILE", help=".yaml or .json file")
