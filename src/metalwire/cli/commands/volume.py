"""``metalwire volume connector ...`` and ``metalwire volume target ...``: how a node connects
to storage and the volumes it uses (boot from volume). Both are created, listed, shown, set,
unset and deleted the same way; a node is named by name or UUID."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from metalwire.cli.commands.common import (
    add_command,
    add_extra_option,
    add_list_arguments,
    add_unset_arguments,
    delete_handler,
    dict_values,
    identifier,
    key_value,
    list_query,
    node_uuid,
    print_created,
    print_resources,
    set_and_unset,
    show_handler,
)
from metalwire.client import Client, Resource


@dataclass(frozen=True)
class VolumeKind:
    """What differs between volume connectors and volume targets."""

    noun: str  # as messages and help name one
    create: Callable[..., Resource]
    get: Callable[..., Resource]
    listing: Callable[..., list[Any]]
    update: Callable[[Client, str, list[Any]], object]
    delete: Callable[[Client, str], None]
    columns: tuple[str, ...]
    # option -> (field, its help, its type): what create needs, set changes
    options: dict[str, tuple[str, str, Callable[[str], Any]]]
    dicts: dict[str, str]  # dictionary options -> fields


CONNECTOR = VolumeKind(
    noun="volume connector",
    create=Client.create_volume_connector,
    get=Client.get_volume_connector,
    listing=Client.list_volume_connectors,
    update=Client.update_volume_connector,
    delete=Client.delete_volume_connector,
    columns=("uuid", "node_uuid", "type", "connector_id"),
    options={
        "type": ("type", "iqn, ip, mac, wwnn, wwpn, port or portal", identifier),
        "connector_id": ("connector_id", "the connector's value (e.g. an IQN)", identifier),
    },
    dicts={"extra": "extra"},
)
TARGET = VolumeKind(
    noun="volume target",
    create=Client.create_volume_target,
    get=Client.get_volume_target,
    listing=Client.list_volume_targets,
    update=Client.update_volume_target,
    delete=Client.delete_volume_target,
    columns=("uuid", "node_uuid", "volume_type", "boot_index", "volume_id"),
    options={
        "type": ("volume_type", "the volume's type (iscsi, fibre_channel, ...)", identifier),
        "volume_id": ("volume_id", "the volume service's id of the volume", identifier),
        "boot_index": ("boot_index", "0 for the volume the node boots from", int),
    },
    dicts={"extra": "extra", "property": "properties"},
)


def _create(kind: VolumeKind) -> Callable[[Client, argparse.Namespace], int]:
    def run(client: Client, args: argparse.Namespace) -> int:
        given = [getattr(args, field) for field, _, _ in kind.options.values()]
        fields: dict[str, Any] = {}
        if args.uuid is not None:
            fields["uuid"] = args.uuid
        for option, field in kind.dicts.items():
            if getattr(args, option):
                fields[field] = dict_values(getattr(args, option))
        created = kind.create(client, node_uuid(client, args.node), *given, **fields)
        return print_created(created, args)

    return run


def _set(kind: VolumeKind) -> Callable[[Client, argparse.Namespace], int]:
    fields = ("node_uuid", *(field for field, _, _ in kind.options.values()))
    change, _ = set_and_unset(kind.update, "item", fields, (), kind.dicts)

    def run(client: Client, args: argparse.Namespace) -> int:
        args.node_uuid = None if args.node is None else node_uuid(client, args.node)
        return change(client, args) or 0

    return run


def _list(kind: VolumeKind) -> Callable[[Client, argparse.Namespace], int]:
    def run(client: Client, args: argparse.Namespace) -> int:
        query = list_query(args)
        if args.node is not None:
            query["node"] = args.node
        print_resources(kind.listing(client, **query), kind.columns, args)
        return 0

    return run


def _add_field_options(parser: argparse.ArgumentParser, kind: VolumeKind, creating: bool) -> None:
    parser.add_argument(
        "--node",
        type=identifier,
        required=creating,
        help=f"name or UUID of the {kind.noun}'s node",
    )
    for option, (field, help_text, kind_of) in kind.options.items():
        parser.add_argument(
            "--" + option.replace("_", "-"),
            dest=field,
            type=kind_of,
            required=creating,
            help=help_text,
        )
    add_extra_option(parser)
    if "property" in kind.dicts:
        parser.add_argument(
            "--property",
            type=key_value,
            action="append",
            metavar="KEY=VALUE",
            help="a key of properties (repeat for more; VALUE is JSON or text)",
        )


def _register(actions: Any, common: argparse.ArgumentParser, kind: VolumeKind) -> None:
    plural = f"{kind.noun}s"

    def item_argument(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "item", type=identifier, metavar="UUID", help=f"UUID of the {kind.noun}"
        )

    create = add_command(actions, "create", common, f"Create a {kind.noun}", _create(kind), True)
    create.add_argument("--uuid", help=f"the {kind.noun}'s UUID (default: a new one)")
    _add_field_options(create, kind, creating=True)

    listing = add_command(actions, "list", common, f"List {plural}", _list(kind), True)
    add_list_arguments(listing)
    listing.add_argument("--node", type=identifier, help=f"only the {plural} of this node")

    show = add_command(
        actions, "show", common, f"Show a {kind.noun}", show_handler(kind.get, "item"), True
    )
    item_argument(show)
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    set_ = add_command(actions, "set", common, f"Set {kind.noun} fields", _set(kind))
    item_argument(set_)
    _add_field_options(set_, kind, creating=False)

    _, unset_handler = set_and_unset(kind.update, "item", (), (), kind.dicts)
    unset = add_command(actions, "unset", common, f"Unset {kind.noun} fields", unset_handler)
    item_argument(unset)
    add_unset_arguments(unset, kind.noun, (), kind.dicts)

    delete = add_command(
        actions, "delete", common, f"Delete {plural}", delete_handler(kind.delete, kind.noun)
    )
    delete.add_argument(
        "items", nargs="+", type=identifier, metavar="UUID", help=f"UUIDs of {plural}"
    )


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    volume = commands.add_parser(
        "volume",
        help="manage volume connectors and targets",
        description="Manage volume connectors and targets (boot from volume).",
    )
    groups = volume.add_subparsers(dest="volume_group", metavar="GROUP", required=True)
    for name, kind in (("connector", CONNECTOR), ("target", TARGET)):
        group = groups.add_parser(name, help=f"manage {kind.noun}s")
        _register(
            group.add_subparsers(dest=f"{name}_command", metavar="ACTION", required=True),
            common,
            kind,
        )
