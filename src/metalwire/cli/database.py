"""``metalwire db upgrade|current|check``: the schema of the configured database.

    metalwire db upgrade   create or upgrade the schema; says from which revision to which
    metalwire db current   the revision the database is at, and whether it is the newest
    metalwire db check     the schema and every row against the rules; exit 1 on a finding

Exit status 2 when the configuration or the database cannot be used. ``current`` and
``check`` only read: an SQLite file that does not exist is reported (exit status 1), never
created, so that a mistyped ``--data-dir`` leaves nothing behind. Like the server commands,
these import the server side only when they run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metalwire.cli.server import add_config_args, load

if TYPE_CHECKING:
    from metalwire.db.engine import Database


def register(commands: Any) -> None:
    db = commands.add_parser("db", help="database maintenance")
    actions = db.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    for name, help_text, handler, creates in (
        ("upgrade", "create or upgrade the schema", _upgrade, True),
        ("current", "print the schema revision of the database", _current, False),
        ("check", "check the schema and the rows against the rules", _check, False),
    ):
        action = actions.add_parser(name, help=help_text, description=help_text)
        add_config_args(action)
        action.set_defaults(handler=_with_database(handler, creates=creates))


def _with_database(
    handler: Callable[[Database], int], *, creates: bool
) -> Callable[[argparse.Namespace], int]:
    """``handler`` run on the configured database; unless it ``creates`` the database, a
    missing SQLite file is reported instead of made."""

    def run(args: argparse.Namespace) -> int:
        from sqlalchemy.exc import OperationalError

        from metalwire.db.engine import Database
        from metalwire.errors import MetalwireError

        try:
            config = load(args)
            missing = None if creates else _missing_sqlite_file(config.database_url())
            if missing is not None:
                print(
                    f"metalwire: no database at {missing}: the file does not exist (check "
                    "--data-dir, --database or --config; 'metalwire db upgrade' creates it)",
                    file=sys.stderr,
                )
                return 1
            db = Database.configured(config.database_url(), config.database)
        except MetalwireError as exc:
            print(f"metalwire: {exc}", file=sys.stderr)
            return 2
        try:
            return handler(db)
        except OperationalError as exc:
            print(f"metalwire: cannot use the database: {exc.orig}", file=sys.stderr)
            return 2
        finally:
            db.dispose()

    return run


def _missing_sqlite_file(url: str) -> Path | None:
    """The file an SQLite ``url`` names, when it does not exist; None for any other URL."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None  # a malformed URL: Database() says what is wrong with it
    name = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or name in ("", ":memory:") or "uri" in parsed.query:
        return None
    path = Path(name)
    return None if path.exists() else path


def _where(db: Database) -> str:
    return db.engine.url.render_as_string(hide_password=True)


def _upgrade(db: Database) -> int:
    from metalwire.db import migrations

    before = migrations.current_revision(db.engine)
    migrations.upgrade(db.engine)
    after = migrations.current_revision(db.engine)
    if before == after:
        print(f"schema already at revision {after} (the newest) on {_where(db)}")
    else:
        start = "no schema" if before is None else f"revision {before}"
        print(f"schema upgraded from {start} to revision {after} on {_where(db)}")
    return 0


def _current(db: Database) -> int:
    from metalwire.db import migrations

    current = migrations.current_revision(db.engine)
    head = migrations.head_revision(db.engine)
    if current is None:
        print(f"no schema on {_where(db)}: run 'metalwire db upgrade' (newest {head})")
        return 1
    state = "the newest" if current == head else f"behind {head}: run 'metalwire db upgrade'"
    print(f"revision {current} ({state}) on {_where(db)}")
    return 0


def _check(db: Database) -> int:
    from metalwire.db import check

    findings = check.schema_findings(db.engine) or check.row_findings(db.engine)
    for finding in findings:
        print(f"problem: {finding}")
    if findings:
        print(f"{len(findings)} problem(s) on {_where(db)}", file=sys.stderr)
        return 1
    print(f"schema and rows keep every rule on {_where(db)}")
    return 0
