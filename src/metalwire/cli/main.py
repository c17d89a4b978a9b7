"""Entry point of the ``metalwire`` program."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from metalwire import __version__
from metalwire.cli import commands as client_commands
from metalwire.cli import database, server, tbn


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="metalwire",
        description="Wires bare-metal machines to networks (Ironic-compatible API).",
    )
    parser.add_argument("--version", action="version", version=f"metalwire {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    server.register(commands)
    database.register(commands)
    tbn.register(commands)
    client_commands.register(commands)
    version = commands.add_parser("version", help="print the metalwire version")
    version.set_defaults(handler=lambda _args: print(f"metalwire {__version__}") or 0)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    result: int = handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
