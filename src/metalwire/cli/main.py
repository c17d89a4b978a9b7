"""Entry point of the ``metalwire`` program."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from metalwire import __version__
from metalwire.cli import commands as client_commands
from metalwire.cli import database, server, tbn
from metalwire.cli.commands.common import add_program_arguments, check_program_arguments
from metalwire.cli.output import add_output_options_everywhere


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="metalwire",
        usage="%(prog)s [-h] [--version] [CLIENT OPTIONS] [-f FORMAT] [-c COLUMN] COMMAND ...",
        description="Wires bare-metal machines to networks (Ironic-compatible API).",
    )
    parser.add_argument("--version", action="version", version=f"metalwire {__version__}")
    add_program_arguments(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", prog="metalwire")
    server.register(commands)
    database.register(commands)
    tbn.register(commands)
    client_commands.register(commands)
    version = commands.add_parser("version", help="print the metalwire version")
    version.set_defaults(handler=lambda _args: print(f"metalwire {__version__}") or 0)
    add_output_options_everywhere(parser)
    return parser


# The exit status of a program a SIGPIPE ended, as shells report it (128 + 13), and as the
# openstack client (cliff) exits when its reader goes away.
SIGPIPE_EXIT = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Its output read by a program that stops early (``| head``) ends it
    quietly with :data:`SIGPIPE_EXIT`."""
    try:
        try:
            result = _run(argv)
        except SystemExit:  # argparse after --help, --version or a usage error
            sys.stdout.flush()
            raise
        sys.stdout.flush()  # here, so that a closed pipe is seen here and not at exit
    except BrokenPipeError:
        # Nothing more can reach the reader: what Python would flush at exit goes nowhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return SIGPIPE_EXIT
    return result


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    check_program_arguments(parser, args)
    result: int = handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
