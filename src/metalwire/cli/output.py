"""How the client commands print results: tables for people, json/yaml/value for scripts.

The shapes follow the ``baremetal`` command (cliff): a list is a table with one column per
field, headed by labels such as "Provisioning State"; a single resource is a two-column
"Field | Value" table. ``-f json``/``-f yaml`` print a list as objects keyed by the column
labels and a resource as an object keyed by field names; ``-f value`` prints only the values,
one row per line.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

import yaml

FORMATS = ("table", "json", "yaml", "value")

# Column labels used by the baremetal command.
LABELS: dict[str, str] = {
    "address": "Address",
    "allocation_uuid": "Allocation UUID",
    "automated_clean": "Automated Clean",
    "bios_interface": "BIOS Interface",
    "boot_mode": "Boot Mode",
    "chassis_uuid": "Chassis UUID",
    "conductor_group": "Conductor Group",
    "created_at": "Created At",
    "driver_info": "Driver Info",
    "driver_internal_info": "Driver Internal Info",
    "id": "ID",
    "instance_info": "Instance Info",
    "instance_uuid": "Instance UUID",
    "is_smartnic": "Is Smartnic",
    "last_error": "Last Error",
    "local_link_connection": "Local Link Connection",
    "network_data": "Network Configuration",
    "node_uuid": "Node UUID",
    "portgroup_uuid": "Portgroup UUID",
    "provision_state": "Provisioning State",
    "pxe_enabled": "PXE boot enabled",
    "raid_config": "RAID configuration",
    "raid_interface": "RAID Interface",
    "standalone_ports_supported": "Standalone Ports Supported",
    "target_raid_config": "Target RAID configuration",
    "uuid": "UUID",
    "vif_id": "VIF ID",
}


class UsageError(Exception):
    """A command-line mistake found after parsing (e.g. an unknown column)."""


# Words a label spells in capitals, as the baremetal command's ("Connector ID").
_ACRONYMS = {"Uuid": "UUID", "Id": "ID"}


def label(field: str) -> str:
    """The column label of a field: ``provision_state`` -> ``Provisioning State``."""
    if field in LABELS:
        return LABELS[field]
    words = field.replace("_", " ").title().split()
    return " ".join(_ACRONYMS.get(w, w) for w in words)


def add_format_arguments(parser: argparse.ArgumentParser) -> None:
    """``-f/--format`` and ``-c/--column``, as cliff offers them, after the command.

    Both default to None, so that :func:`settle_output_options` can tell an option given
    here from one given before the command (:func:`add_program_format_arguments`)."""
    group = parser.add_argument_group("output formatters")
    _add_format_options(group, format_dest="format", columns_dest="columns")


def add_program_format_arguments(parser: argparse.ArgumentParser) -> None:
    """``-f/--format`` and ``-c/--column`` on the program's own parser, before the command
    (``metalwire -f yaml node list``), with the same meaning as after it."""
    group = parser.add_argument_group(
        "output of the commands that print results",
        "also accepted after the command; given both ways, the values must be the same",
    )
    _add_format_options(group, format_dest=FORMAT_BEFORE, columns_dest=COLUMNS_BEFORE)


# Where the parsers keep the output options given before the command: the program's parser
# under these names, a command group's (``node``, ``node vif``) under these names followed
# by ``_`` and its depth, so that the values given at each place are all seen.
FORMAT_BEFORE = "format_before_command"
COLUMNS_BEFORE = "columns_before_command"
# Where a command that prints no results keeps the output options given after it.
FORMAT_NOT_TAKEN = "format_not_taken"
COLUMNS_NOT_TAKEN = "columns_not_taken"


def _add_format_options(
    group: Any,
    format_dest: str,
    columns_dest: str,
    default: Any = None,
    help_shown: bool = True,
) -> None:
    group.add_argument(
        "-f",
        "--format",
        dest=format_dest,
        choices=FORMATS,
        default=default,
        help="the output format (default table)" if help_shown else argparse.SUPPRESS,
    )
    group.add_argument(
        "-c",
        "--column",
        dest=columns_dest,
        action="append",
        default=default,
        metavar="COLUMN",
        help=(
            "show only this column (repeat for more); a label for lists, a field otherwise"
            if help_shown
            else argparse.SUPPRESS
        ),
    )


def add_output_options_everywhere(parser: argparse.ArgumentParser) -> None:
    """Let ``-f/--format`` and ``-c/--column`` come at every level of the command line, with
    one meaning: between a command group and its verb (``metalwire node -f yaml list``,
    ``metalwire node vif -f json list N``) as before the command, and after a command that
    prints no results (``metalwire node delete N -f json``) as before it, which
    :func:`settle_output_options` refuses with the same message whatever the place (the
    ``baremetal`` command refuses them there too).

    Call it on the program's parser once every command is added. A group's parser keeps
    them only when given (``argparse.SUPPRESS``): a subcommand's parser writes every value
    it has into the one namespace, which would hide a value given before the group."""
    for depth, command in _command_parsers(parser, depth=1):
        if _subcommands(command):
            _add_group_format_options(command, depth)
        elif not _prints_results(command):
            _add_format_options(
                command,
                format_dest=FORMAT_NOT_TAKEN,
                columns_dest=COLUMNS_NOT_TAKEN,
                default=argparse.SUPPRESS,
                help_shown=False,
            )


def _add_group_format_options(group_parser: argparse.ArgumentParser, depth: int) -> None:
    """The output options of the command group ``group_parser`` at ``depth``: in its help
    if one of its commands prints results (``node``), hidden otherwise (``db``)."""
    shown = any(_prints_results(command) for _, command in _command_parsers(group_parser, 0))
    where: Any = group_parser
    if shown:
        where = group_parser.add_argument_group(
            "output of the commands that print results",
            "also accepted before the group and after the command; given at several "
            "places, the values must be the same",
        )
    _add_format_options(
        where,
        format_dest=f"{FORMAT_BEFORE}_{depth}",
        columns_dest=f"{COLUMNS_BEFORE}_{depth}",
        default=argparse.SUPPRESS,
        help_shown=shown,
    )


def _subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers of ``parser``'s subcommands, each once (an alias names the same one)."""
    found: dict[int, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found.setdefault(id(sub), sub)
    return list(found.values())


def _command_parsers(
    parser: argparse.ArgumentParser, depth: int
) -> list[tuple[int, argparse.ArgumentParser]]:
    """Every parser below ``parser``, with its depth (a top-level command's is ``depth``)."""
    found: list[tuple[int, argparse.ArgumentParser]] = []
    for sub in _subcommands(parser):
        found.append((depth, sub))
        found.extend(_command_parsers(sub, depth + 1))
    return found


def _prints_results(parser: argparse.ArgumentParser) -> bool:
    return any(action.dest == "format" for action in parser._actions)


def settle_output_options(args: argparse.Namespace) -> None:
    """Put the output options given before the command where the command reads them
    (``args.format``, ``args.columns``), the format defaulting to ``table``.

    Raises UsageError when one was given to a command that prints no results (before or
    after it), or at two places with different values.
    """
    for option, dest, before_dest, not_taken_dest, default in _OUTPUT_OPTIONS:
        befores = _given_before(args, before_dest)
        if not hasattr(args, dest):
            if befores or getattr(args, not_taken_dest, None) is not None:
                raise UsageError(f"{option} is an option of the commands that print results only")
            continue
        before = _agreed(option, befores)
        after = getattr(args, dest)
        if before is not None and after is not None and before != after:
            raise UsageError(
                f"{option} is given before the command ({_shown(before)}) and after it "
                f"({_shown(after)}): give it once, or the same both ways"
            )
        setattr(args, dest, _first_given(after, before, default))


def _agreed(option: str, befores: list[Any]) -> Any:
    """The one value given before the command, at one place or more (None if none);
    UsageError when two places give different values."""
    for earlier, later in itertools.pairwise(befores):
        if earlier != later:
            raise UsageError(
                f"{option} is given twice before the command ({_shown(earlier)} and "
                f"{_shown(later)}): give it once, or the same each time"
            )
    return befores[0] if befores else None


def _given_before(args: argparse.Namespace, before_dest: str) -> list[Any]:
    """The values given before the command, the program's first, then each group's."""
    places = sorted(name for name in vars(args) if name.startswith(before_dest))
    return [value for name in places if (value := getattr(args, name)) is not None]


_OUTPUT_OPTIONS: tuple[tuple[str, str, str, str, str | None], ...] = (
    ("-f/--format", "format", FORMAT_BEFORE, FORMAT_NOT_TAKEN, "table"),
    ("-c/--column", "columns", COLUMNS_BEFORE, COLUMNS_NOT_TAKEN, None),
)


def _first_given(*values: Any) -> Any:
    return next((value for value in values if value is not None), None)


def _shown(value: str | list[str]) -> str:
    return value if isinstance(value, str) else " ".join(f"-c {column}" for column in value)


def cell(value: Any) -> str:
    """A value as text: JSON for objects and lists, ``None``/``True``/``False`` as Python."""
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    return str(value)


def render_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An ASCII table with a border, one line per row (multi-line cells span lines)."""
    texts = [[cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in texts:
        for i, text in enumerate(row):
            widths[i] = max(widths[i], *(len(line) for line in text.split("\n")))
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def line(parts: Sequence[str]) -> str:
        return "| " + " | ".join(p.ljust(w) for p, w in zip(parts, widths, strict=True)) + " |"

    out = [rule, line(headers), rule]
    for row in texts:
        split = [text.split("\n") for text in row]
        height = max((len(s) for s in split), default=1)
        for n in range(height):
            out.append(line([s[n] if n < len(s) else "" for s in split]))
    if rows:
        out.append(rule)
    return "\n".join(out)


def pick_columns(available: Sequence[str], wanted: Sequence[str] | None) -> list[int]:
    """The indexes of the ``-c`` columns asked for (all without); UsageError names one
    that does not exist."""
    if not wanted:
        return list(range(len(available)))
    unknown = [w for w in wanted if w not in available]
    if unknown:
        raise UsageError(
            f"No such column: {', '.join(unknown)}. Columns are: {', '.join(available)}."
        )
    return [available.index(w) for w in wanted]


def _dump(data: Any, fmt: str, out: TextIO) -> None:
    if fmt == "json":
        out.write(json.dumps(data, indent=2) + "\n")
    else:
        out.write(yaml.safe_dump(data, default_flow_style=False, sort_keys=False))


def print_list(
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: str,
    out: TextIO,
    columns: Sequence[str] | None = None,
) -> None:
    """Print rows under ``headers`` (labels) in format ``fmt``.

    Raises UsageError when ``columns`` names a column that is not in ``headers``.
    """
    keep = pick_columns(headers, columns)
    heads = [headers[i] for i in keep]
    picked = [[row[i] for i in keep] for row in rows]
    if fmt == "table":
        out.write(render_table(heads, picked) + "\n")
    elif fmt == "value":
        for row in picked:
            out.write(" ".join(cell(v) for v in row) + "\n")
    else:
        _dump([dict(zip(heads, row, strict=True)) for row in picked], fmt, out)


def print_listing(
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: str,
    out: TextIO,
    columns: Sequence[str] | None = None,
) -> None:
    """:func:`print_list` for a list command: an empty table prints nothing at all, but a
    ``columns`` name that is not in ``headers`` is a UsageError whether rows came or not."""
    if fmt == "table" and not rows:
        pick_columns(headers, columns)
        return
    print_list(headers, rows, fmt, out, columns)


def print_record(
    record: Mapping[str, Any], fmt: str, out: TextIO, columns: Sequence[str] | None = None
) -> None:
    """Print one resource's fields in format ``fmt`` (a Field/Value table by default).

    Raises UsageError when ``columns`` names a field the record does not have.
    """
    names = list(record)
    keep = [names[i] for i in pick_columns(names, columns)]
    if fmt == "table":
        out.write(render_table(["Field", "Value"], [[k, record[k]] for k in keep]) + "\n")
    elif fmt == "value":
        for key in keep:
            out.write(cell(record[key]) + "\n")
    else:
        _dump({k: record[k] for k in keep}, fmt, out)
