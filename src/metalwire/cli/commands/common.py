"""What every client command shares: the connection options, argument types, running a
handler with a client, and printing resources.

A handler takes the client and the parsed arguments and returns the exit status (``None``
means 0). Exit status: 0 on success, 1 when the server or the connection failed (the
server's message is on stderr), 2 for a usage error, found before anything is changed (a
``-c`` of a command that changes something is checked first; the fields of a resource it
creates are known only afterwards: see :func:`print_created`).
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from metalwire.cli.login import (
    add_login_arguments,
    login_client,
    login_options,
    tls_settings,
    wants_login,
)
from metalwire.cli.output import (
    UsageError,
    add_format_arguments,
    add_program_format_arguments,
    label,
    print_listing,
    print_record,
    settle_output_options,
)
from metalwire.client import Client, MetalwireClientError, Resource, RetryPolicy, enrol, patch
from metalwire.client.client import DEFAULT_URL
from metalwire.client.patch import PatchOp
from metalwire.identifiers import is_uuid

Handler = Callable[[Client, argparse.Namespace], int | None]


# -- arguments ---------------------------------------------------------------------------


def endpoint(args: argparse.Namespace, environ: dict[str, str] | None = None) -> str | None:
    """``--url``, else METALWIRE_URL, else OS_ENDPOINT, else None."""
    env = os.environ if environ is None else environ
    url: str | None = args.url or env.get("METALWIRE_URL") or env.get("OS_ENDPOINT")
    return url


def key_value(text: str) -> tuple[str, Any]:
    """Argument type of ``KEY=VALUE``: VALUE is read as JSON, else kept as text."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def json_document(text: str) -> Any:
    """Argument type of a whole document, as the baremetal program takes ``--network-data``:
    ``-`` for standard input (JSON), the name of a ``.json`` or ``.yaml`` file, or the JSON
    text itself."""
    if text == "-":
        text = sys.stdin.read()
    elif os.path.isfile(text):
        try:
            return enrol.load_document(text)
        except enrol.EnrolFileError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    try:
        return json.loads(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(
            f"expected JSON, the name of a .json or .yaml file, or '-', got {text!r} ({error})"
        ) from None


def boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "1", "on"):
        return True
    if lowered in ("false", "no", "0", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def seconds(text: str) -> float:
    """Argument type of a duration: a number of seconds more than 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number of seconds more than 0, got {text!r}")
    return value


def whole_seconds(text: str) -> int:
    """Argument type of a duration the API takes as an integer: whole seconds, more than 0."""
    value = seconds(text)
    if not value.is_integer():
        raise argparse.ArgumentTypeError(f"expected whole seconds, got {text!r}")
    return int(value)


def wait_timeout(text: str) -> int:
    """Argument type of ``--wait``'s timeout: whole seconds, 0 for no limit."""
    if text.strip() == "0":
        return 0
    return whole_seconds(text)


class _JoinedShards(argparse.Action):
    """``--shards A B`` as ``--shard A,B``: the API's filter takes shards separated by commas."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, ",".join(values))


def add_shard_filters(parser: argparse.ArgumentParser, plural: str) -> Any:
    """``--shard A,B`` and the baremetal command's ``--shards A B`` (API 1.82), one excluding
    the other; the group, for more options that exclude them."""
    sharding = parser.add_mutually_exclusive_group()
    sharding.add_argument(
        "--shard",
        metavar="SHARD",
        help=f"only {plural} in this shard, or in one of several separated by commas (API 1.82)",
    )
    sharding.add_argument(
        "--shards",
        dest="shard",
        nargs="+",
        action=_JoinedShards,
        metavar="SHARD",
        help=f"only {plural} in one of these shards (API 1.82)",
    )
    return sharding


def identifier(text: str) -> str:
    """Argument type of a name, UUID, MAC address or VIF id: never empty, so that an unset
    shell variable is refused instead of naming nothing (or, as a filter, everything)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def add_node_command(
    commands: Any,
    name: str,
    common: argparse.ArgumentParser,
    help: str,
    handler: Handler,
    formatted: bool = False,
) -> argparse.ArgumentParser:
    """A command on one node (:func:`add_command`), its first argument ``NODE``."""
    return add_item_command(commands, name, common, help, handler, "node", formatted)


def add_item_command(
    commands: Any,
    name: str,
    common: argparse.ArgumentParser,
    help: str,
    handler: Handler,
    noun: str,
    formatted: bool = False,
) -> argparse.ArgumentParser:
    """A command on one ``noun`` (:func:`add_command`), its first argument the name or UUID of
    that item (``args.<noun>``)."""
    parser = add_command(commands, name, common, help, handler, formatted)
    parser.add_argument(
        noun, type=identifier, metavar=noun.upper(), help=f"name or UUID of the {noun}"
    )
    return parser


def sort_order(text: str) -> tuple[str, str | None]:
    """Argument type of ``KEY[:asc|desc]``."""
    key, _, direction = text.partition(":")
    if not key or direction not in ("", "asc", "desc"):
        raise argparse.ArgumentTypeError(f"expected KEY[:asc|desc], got {text!r}")
    return key, direction or None


def dict_values(pairs: Sequence[tuple[str, Any]] | None) -> dict[str, Any]:
    return dict(pairs or [])


def dict_additions(args: argparse.Namespace, fields: Mapping[str, str]) -> list[PatchOp]:
    """The patch setting each ``KEY=VALUE`` given to the dictionary options ``fields`` names
    (option destination -> the resource's field)."""
    return [
        patch.add(patch.pointer(field, key), value)
        for option, field in fields.items()
        for key, value in getattr(args, option) or []
    ]


def dict_removals(args: argparse.Namespace, fields: Mapping[str, str]) -> list[PatchOp]:
    """The patch removing each ``KEY`` given to the dictionary options ``fields`` names."""
    return [
        patch.remove(patch.pointer(field, key))
        for option, field in fields.items()
        for key in getattr(args, option) or []
    ]


def send_patch(
    update: Callable[[str, list[PatchOp]], object], ident: str, ops: list[PatchOp], verb: str
) -> int:
    """Send the patch a ``set`` or ``unset`` command built (``verb``); an empty one is a usage
    error, found before anything is sent."""
    if not ops:
        raise UsageError(f"nothing to {verb}; give at least one option")
    update(ident, ops)
    return 0


def set_and_unset(
    update: Callable[[Client, str, list[PatchOp]], object],
    argument: str,
    fields: Sequence[str],
    removable: Sequence[str],
    dicts: Mapping[str, str],
) -> tuple[Handler, Handler]:
    """The handlers of a ``set`` and an ``unset`` command made of whole fields (``set
    --FIELD VALUE``; those in ``removable`` unset by ``--FIELD``) and dictionaries
    (``dicts``, as :func:`dict_additions`): ``update`` is the client's method, ``argument``
    the destination of the command's resource argument."""

    def set_(client: Client, args: argparse.Namespace) -> int:
        ops = [patch.add(n, getattr(args, n)) for n in fields if getattr(args, n) is not None]
        ops.extend(dict_additions(args, dicts))
        return send_patch(functools.partial(update, client), getattr(args, argument), ops, "set")

    def unset(client: Client, args: argparse.Namespace) -> int:
        ops = [patch.remove(n) for n in removable if getattr(args, n)]
        ops.extend(dict_removals(args, dicts))
        return send_patch(functools.partial(update, client), getattr(args, argument), ops, "unset")

    return set_, unset


def _add_endpoint_argument(group: Any, default: Any) -> None:
    group.add_argument(
        "--url",
        "--os-endpoint",
        dest="url",
        metavar="URL",
        default=default,
        help=(
            "API endpoint (default: $METALWIRE_URL, $OS_ENDPOINT, the catalog's baremetal "
            f"endpoint when logging in, else {DEFAULT_URL})"
        ),
    )


def add_program_arguments(parser: argparse.ArgumentParser) -> None:
    """The endpoint, connection, login and TLS options on the program's own parser, before the
    command, as the openstack command takes them: ``metalwire --os-cloud C node list``,
    ``metalwire --os-baremetal-api-version 1.50 node list``; and the output options
    (``metalwire -f yaml node list``).

    They default to None here, while a command's parser (:func:`connection_parser`) sets
    them only when given after the command: so one given before the command is kept, and
    one given after it wins over the same option given before.
    """
    group = parser.add_argument_group(
        "endpoint, connection and login of the client commands",
        "as the openstack command: options, OS_* variables or clouds.yaml; also accepted "
        "after the command, where they win",
    )
    _add_endpoint_argument(group, None)
    _add_connection_arguments(group, None)
    add_login_arguments(group, default=None)
    add_program_format_arguments(parser)


def check_program_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit with a usage error when an option of :func:`add_program_arguments` was given
    before a command that does not take it (it would be ignored), or an output option was
    given before and after the command with different values; otherwise put the output
    options given before the command where the command reads them, and the connection
    options given nowhere at their defaults."""
    try:
        settle_output_options(args)
    except UsageError as error:
        parser.error(str(error))
    if getattr(args, "client_command", False):
        for dest, default in _connection_defaults().items():
            if getattr(args, dest, None) is None:
                setattr(args, dest, default)
        return
    for option, dest in [("--url/--os-endpoint", "url"), *_CONNECTION_OPTIONS, *login_options()]:
        if getattr(args, dest, None) is not None:
            parser.error(f"{option} is an option of the client commands only")


# (option, destination) of each connection option, and their values when given nowhere.
_CONNECTION_OPTIONS = [
    ("--api-version/--os-baremetal-api-version", "api_version"),
    ("--timeout", "timeout"),
    ("--max-retries", "max_retries"),
    ("--debug", "debug"),
]


def _connection_defaults() -> dict[str, Any]:
    return {
        "api_version": os.environ.get("OS_BAREMETAL_API_VERSION"),
        "timeout": 60.0,
        "max_retries": 3,
        "debug": False,
    }


def _add_connection_arguments(group: Any, default: Any) -> None:
    group.add_argument(
        "--api-version",
        "--os-baremetal-api-version",
        dest="api_version",
        metavar="VERSION",
        default=default,
        help="API microversion to use, 1.N or latest (default: $OS_BAREMETAL_API_VERSION, "
        "else negotiate the highest)",
    )
    group.add_argument(
        "--timeout", type=seconds, default=default, help="seconds per request (default 60)"
    )
    group.add_argument(
        "--max-retries",
        type=int,
        default=default,
        metavar="N",
        help="retries of a connection refused, 503 or locked node (default 3)",
    )
    group.add_argument(
        "--debug", action="store_true", default=default, help="log every request to stderr"
    )


def connection_parser() -> argparse.ArgumentParser:
    """The parent parser of every client command: where the API is and how to talk to it.

    The endpoint, connection, login and TLS options are set only when given after the
    command: given before it, the program's parser has set them (:func:`add_program_arguments`).
    """
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("connection")
    _add_endpoint_argument(group, argparse.SUPPRESS)
    _add_connection_arguments(group, argparse.SUPPRESS)
    login = common.add_argument_group(
        "login", "as the openstack command: options, OS_* variables or clouds.yaml"
    )
    add_login_arguments(login, default=argparse.SUPPRESS)
    return common


def add_command(
    commands: Any,
    name: str,
    common: argparse.ArgumentParser,
    help: str,
    handler: Handler,
    formatted: bool = False,
) -> argparse.ArgumentParser:
    """A command that runs ``handler`` with a client (``formatted``: it takes -f/-c)."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name, parents=[common], help=help, description=help
    )
    if formatted:
        add_format_arguments(parser)
    parser.set_defaults(handler=_with_client(handler), client_command=True)
    return parser


def add_unset_arguments(
    parser: argparse.ArgumentParser, noun: str, fields: Sequence[str], dicts: Mapping[str, str]
) -> None:
    """The options of an ``unset`` command: ``--FIELD`` for each of ``fields``, and
    ``--OPTION KEY`` (repeatable) for each dictionary of ``dicts`` (option -> field)."""
    for name in fields:
        parser.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            action="store_true",
            help=f"unset the {noun}'s {name.replace('_', ' ')}",
        )
    for option, field in dicts.items():
        parser.add_argument(
            "--" + option.replace("_", "-"),
            dest=option,
            action="append",
            metavar="KEY",
            help=f"remove KEY from {field} (repeat for more)",
        )


def add_extra_option(parser: argparse.ArgumentParser) -> None:
    """``--extra KEY=VALUE`` (repeatable): a key of the resource's ``extra``."""
    parser.add_argument(
        "--extra",
        type=key_value,
        action="append",
        metavar="KEY=VALUE",
        help="a key of extra (repeat for more; VALUE is JSON or text)",
    )


def add_flag_pair(
    parser: argparse.ArgumentParser,
    dest: str,
    on: tuple[str, str],
    off: tuple[str, str],
) -> None:
    """Two options that set ``dest`` to True (``on``: option, help) or to False (``off``),
    not both in one command; ``dest`` stays None when neither is given."""
    pair = parser.add_mutually_exclusive_group()
    for (option, help_text), value in ((on, True), (off, False)):
        pair.add_argument(option, dest=dest, action="store_const", const=value, help=help_text)


def add_list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="show at most N items (default, or 0 as for the baremetal command: all, "
        "fetched page by page)",
    )
    parser.add_argument("--marker", metavar="UUID", help="start after this item")
    parser.add_argument(
        "--sort", type=sort_order, metavar="KEY[:DIR]", help="sort by KEY, asc (default) or desc"
    )
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--long", action="store_true", help="show every field")
    shape.add_argument("--fields", nargs="+", metavar="FIELD", help="show only these fields")


def list_query(args: argparse.Namespace) -> dict[str, Any]:
    """The query of a list command's --limit, --marker, --sort, --long and --fields."""
    query: dict[str, Any] = {}
    if args.limit is not None:
        if args.limit < 0:
            raise UsageError("--limit must be 0 or more")
        if args.limit > 0:  # 0: no limit, as the baremetal command reads it
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


# -- running -----------------------------------------------------------------------------


def fail(message: str) -> int:
    print(f"metalwire: {message}", file=sys.stderr)
    return 1


def _with_client(handler: Handler) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        _configure_logging(args.debug)
        try:
            client = _open_client(args)
        except ValueError as error:  # LoginError included
            print(f"metalwire: error: {error}", file=sys.stderr)
            return 2
        except MetalwireClientError as error:
            return fail(str(error))
        try:
            with client:
                return handler(client, args) or 0
        except UsageError as error:
            print(f"metalwire: error: {error}", file=sys.stderr)
            return 2
        except MetalwireClientError as error:
            return fail(str(error))

    return run


def _open_client(args: argparse.Namespace) -> Client:
    options: dict[str, Any] = {
        "api_version": args.api_version,
        "timeout": args.timeout,
        "retry": RetryPolicy(max_retries=args.max_retries),
    }
    if wants_login(args):
        return login_client(args, endpoint(args), **options)
    verify, cert = tls_settings(args)
    return Client(endpoint(args) or DEFAULT_URL, verify=verify, cert=cert, **options)


def _configure_logging(debug: bool) -> None:
    """Requests are logged only with ``--debug``; warnings always reach stderr."""
    if debug:
        logging.basicConfig(level=logging.DEBUG, format="%(levelname)s %(name)s %(message)s")
    for name in ("httpx", "httpcore", "metalwire.client", "keystoneauth"):
        logging.getLogger(name).setLevel(logging.DEBUG if debug else logging.WARNING)
    logging.getLogger("stevedore").setLevel(logging.WARNING)  # plugin discovery, not requests


# -- resources ---------------------------------------------------------------------------


def node_uuid(client: Client, ident: str) -> str:
    """The UUID of the node named by UUID or by name."""
    return ident if is_uuid(ident) else client.get_node(ident, fields=["uuid"]).uuid


def portgroup_uuid(client: Client, ident: str) -> str:
    """The UUID of the portgroup named by UUID or by name."""
    return ident if is_uuid(ident) else client.get_portgroup(ident, fields=["uuid"]).uuid


def print_resources(
    items: Sequence[Resource],
    default: Sequence[str],
    args: argparse.Namespace,
    labels: Mapping[str, str] | None = None,
) -> None:
    """A list command's output: ``default`` columns, every field (--long) or --fields;
    ``labels`` names columns otherwise than :func:`label` (as the baremetal command's)."""
    if args.fields:
        fields = list(args.fields)
    elif args.long:
        fields = list(items[0].fields()) if items else list(default)
    else:
        fields = list(default)
    rows = [[item.get(f) for f in fields] for item in items]
    named = [(labels or {}).get(f) or label(f) for f in fields]
    print_listing(named, rows, args.format, sys.stdout, args.columns)


def print_resource(resource: Resource, args: argparse.Namespace) -> None:
    fields = resource.fields()
    print_record(dict(sorted(fields.items())), args.format, sys.stdout, args.columns)


def print_created(resource: Resource, args: argparse.Namespace) -> int:
    """Show a resource the command has just created. Its fields are the server's, so a ``-c``
    naming none of them is found only now: that is not a usage error (exit status 2 says
    nothing was done) but exit status 1, saying that the resource exists."""
    try:
        print_resource(resource, args)
    except UsageError as error:
        print(f"metalwire: error: {error}", file=sys.stderr)
        print(
            f"metalwire: the {resource.kind} was created all the same: {resource.uuid}",
            file=sys.stderr,
        )
        return 1
    return 0


def show_by_id_or_address(
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
            return fail(f"{kind} with address {ident} could not be found.")
        print_resource(found[0], args)
    else:
        print_resource(get(ident, fields=args.fields), args)
    return 0


def _lookup_query(address: str, fields: Sequence[str] | None) -> dict[str, Any]:
    query: dict[str, Any] = {"address": address}
    if fields:
        query["fields"] = list(fields)
    else:
        query["detail"] = True
    return query


def run_each(
    items: Sequence[str], action: Callable[[str], None], failure: Callable[[str], str]
) -> int:
    """Run ``action`` on every item, each its own request, going on after a failure
    (``failure`` of the item, and the error, on stderr); 1 if any failed."""
    failures = 0
    for item in items:
        try:
            action(item)
        except MetalwireClientError as error:
            failures += 1
            print(f"{failure(item)}: {error}", file=sys.stderr)
    return 1 if failures else 0


def show_handler(get: Callable[..., Resource], argument: str) -> Handler:
    """The handler of a ``show`` command: ``get`` is the client's method, ``argument`` the
    destination of the command's resource argument (it takes ``--fields``)."""

    def run(client: Client, args: argparse.Namespace) -> int:
        print_resource(get(client, getattr(args, argument), fields=args.fields), args)
        return 0

    return run


def delete_handler(delete: Callable[[Client, str], None], noun: str) -> Handler:
    """The handler of a ``delete`` command of several items (``args.items``)."""

    def run(client: Client, args: argparse.Namespace) -> int:
        return delete_each(args.items, noun, functools.partial(delete, client))

    return run


def delete_each(idents: Sequence[str], kind: str, delete: Callable[[str], None]) -> int:
    """Delete every item, going on after a failure; 1 if any failed."""

    def delete_one(ident: str) -> None:
        delete(ident)
        print(f"Deleted {kind} {ident}")

    return run_each(idents, delete_one, lambda ident: f"Failed to delete {kind} {ident}")
