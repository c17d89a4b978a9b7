"""``metalwire deploy template ...`` and ``metalwire runbook ...``: named lists of steps, a
deploy template's run when a node's instance asks for its trait, a runbook's by a cleaning
or a servicing that names it. Both are created, listed, shown, set, unset and deleted the
same way; their steps are given as a document (JSON, a .json or .yaml file, or ``-``). A
runbook also has traits, the node traits that approve it (``runbook trait ...``, trait.py)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from metalwire.cli.commands import trait
from metalwire.cli.commands.common import (
    add_command,
    add_extra_option,
    add_list_arguments,
    add_unset_arguments,
    boolean,
    delete_handler,
    dict_values,
    identifier,
    json_document,
    list_query,
    print_created,
    print_resources,
    set_and_unset,
    show_handler,
)
from metalwire.client import Client, Resource

STEPS_COLUMNS = ("uuid", "name")
STEPS_DICTS = {"extra": "extra"}


@dataclass(frozen=True)
class StepsKind:
    """What differs between deploy templates and runbooks."""

    noun: str  # as messages and help name one
    argument: str  # the parsed argument naming one
    create: Callable[..., Resource]
    get: Callable[..., Resource]
    listing: Callable[..., list[Any]]
    update: Callable[[Client, str, list[Any]], object]
    delete: Callable[[Client, str], None]
    texts: tuple[str, ...]  # text fields besides the name, set with --OPTION VALUE
    flags: tuple[str, ...]  # boolean fields, set with --OPTION [BOOLEAN]
    removable: tuple[str, ...]  # fields unset with --OPTION
    step_help: str


DEPLOY_TEMPLATE = StepsKind(
    noun="deploy template",
    argument="template",
    create=Client.create_deploy_template,
    get=Client.get_deploy_template,
    listing=Client.list_deploy_templates,
    update=Client.update_deploy_template,
    delete=Client.delete_deploy_template,
    texts=(),
    flags=(),
    removable=(),
    step_help="its deploy steps: a list of {interface, step, args, priority}",
)
RUNBOOK = StepsKind(
    noun="runbook",
    argument="runbook",
    create=Client.create_runbook,
    get=Client.get_runbook,
    listing=Client.list_runbooks,
    update=Client.update_runbook,
    delete=Client.delete_runbook,
    texts=("description", "owner"),
    flags=("public", "disable_ramdisk"),
    removable=("description", "owner"),
    step_help="its clean or service steps: a list of {interface, step, args, order}",
)


def _create(kind: StepsKind) -> Callable[[Client, argparse.Namespace], int]:
    def run(client: Client, args: argparse.Namespace) -> int:
        fields: dict[str, Any] = {}
        for name in ("uuid", *kind.texts, *kind.flags):
            if getattr(args, name) is not None:
                fields[name] = getattr(args, name)
        if args.extra:
            fields["extra"] = dict_values(args.extra)
        return print_created(kind.create(client, args.name, args.steps, **fields), args)

    return run


def _list(kind: StepsKind) -> Callable[[Client, argparse.Namespace], int]:
    def run(client: Client, args: argparse.Namespace) -> int:
        print_resources(kind.listing(client, **list_query(args)), STEPS_COLUMNS, args)
        return 0

    return run


def _add_field_options(parser: argparse.ArgumentParser, kind: StepsKind, creating: bool) -> None:
    parser.add_argument(
        "--steps",
        type=json_document,
        required=creating,
        metavar="STEPS",
        help=f"{kind.step_help}; JSON, a .json or .yaml file, or - for standard input",
    )
    for name in kind.texts:
        parser.add_argument("--" + name.replace("_", "-"), dest=name, help=f"its {name}")
    for name in kind.flags:
        parser.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            type=boolean,
            nargs="?",
            const=True,
            metavar="BOOLEAN",
            help=f"its {name.replace('_', ' ')} flag (alone: true)",
        )
    add_extra_option(parser)


def _register(actions: Any, common: argparse.ArgumentParser, kind: StepsKind) -> None:
    plural = f"{kind.noun}s"
    metavar = kind.argument.upper()

    def item_argument(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            kind.argument, type=identifier, metavar=metavar, help=f"name or UUID of the {kind.noun}"
        )

    create = add_command(actions, "create", common, f"Create a {kind.noun}", _create(kind), True)
    if kind is DEPLOY_TEMPLATE:  # as the baremetal command: the name is an argument
        create.add_argument("name", type=identifier, metavar="NAME", help="a trait (CUSTOM_...)")
    else:
        create.add_argument("--name", type=identifier, required=True, help="a trait (CUSTOM_...)")
    create.add_argument("--uuid", help=f"the {kind.noun}'s UUID (default: a new one)")
    _add_field_options(create, kind, creating=True)

    listing = add_command(actions, "list", common, f"List {plural}", _list(kind), True)
    add_list_arguments(listing)

    show = add_command(
        actions, "show", common, f"Show a {kind.noun}", show_handler(kind.get, kind.argument), True
    )
    item_argument(show)
    show.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")

    set_handler, unset_handler = set_and_unset(
        kind.update,
        kind.argument,
        ("name", "steps", *kind.texts, *kind.flags),
        kind.removable,
        STEPS_DICTS,
    )
    set_ = add_command(actions, "set", common, f"Set {kind.noun} fields", set_handler)
    item_argument(set_)
    set_.add_argument("--name", type=identifier, help="a new name (a trait, CUSTOM_...)")
    _add_field_options(set_, kind, creating=False)

    unset = add_command(actions, "unset", common, f"Unset {kind.noun} fields", unset_handler)
    item_argument(unset)
    add_unset_arguments(unset, kind.noun, kind.removable, STEPS_DICTS)

    delete = add_command(
        actions, "delete", common, f"Delete {plural}", delete_handler(kind.delete, kind.noun)
    )
    delete.add_argument(
        "items", nargs="+", type=identifier, metavar=metavar, help=f"names or UUIDs of {plural}"
    )


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    deploy = commands.add_parser(
        "deploy", help="manage deploy templates", description="Manage deploy templates."
    )
    deploy_groups = deploy.add_subparsers(dest="deploy_group", metavar="GROUP", required=True)
    template = deploy_groups.add_parser(
        "template",
        help="manage deploy templates",
        description="Manage deploy templates: deploy steps a node's instance asks for by "
        "naming the template's trait.",
    )
    _register(
        template.add_subparsers(dest="template_command", metavar="ACTION", required=True),
        common,
        DEPLOY_TEMPLATE,
    )
    runbook = commands.add_parser(
        "runbook",
        help="manage runbooks",
        description="Manage runbooks: clean or service steps a node runs by name.",
    )
    runbook_actions = runbook.add_subparsers(
        dest="runbook_command", metavar="ACTION", required=True
    )
    _register(runbook_actions, common, RUNBOOK)
    trait.register(runbook_actions, common, trait.RUNBOOK)
