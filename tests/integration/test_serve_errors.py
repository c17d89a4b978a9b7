"""`metalwire serve` and `metalwire db upgrade` refuse a bad database clearly, without traceback."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.support import preforked
from tests.support.server import free_port


def run(*args: str, cwd: Path) -> preforked.Completed:
    """The real program, forked from a process that has imported it."""
    argv = [sys.executable, "-m", "metalwire.cli.main", *args]
    return preforked.run(argv, dict(os.environ), 60, cwd=cwd)


@pytest.mark.parametrize("command", ["serve", "db upgrade"])
def test_unknown_database_scheme(tmp_path: Path, command: str) -> None:
    result = run(*command.split(), "--database", "nonsense://x", cwd=tmp_path)
    assert result.returncode == 2
    assert "bad database URL 'nonsense://x'" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["serve", "db upgrade"])
@pytest.mark.parametrize(
    "url",
    ["nonsense://admin:db-s3cret@x/db", "postgresql+psycopg2://admin:db-s3cret@db:port/x"],
)
def test_bad_database_url_is_printed_without_its_password(
    tmp_path: Path, command: str, url: str
) -> None:
    result = run(*command.split(), "--database", url, cwd=tmp_path)
    assert result.returncode == 2
    assert "bad database URL '" + url.replace("admin:db-s3cret@", "") in result.stderr
    assert "s3cret" not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_missing_driver_names_the_module(tmp_path: Path) -> None:
    url = "postgresql+pg8000://u@127.0.0.1/db"
    result = run("db", "upgrade", "--database", url, cwd=tmp_path)
    assert result.returncode == 2
    assert "needs the Python module 'pg8000'" in result.stderr


@pytest.mark.parametrize(
    ("url", "said"),
    [
        # the [mysql] extra installs PyMySQL, which a plain mysql:// does not name
        (
            "mysql://u@127.0.0.1/db",
            "needs the Python module 'MySQLdb' (mysqlclient), which is not installed: "
            "pip install mysqlclient, or name PyMySQL, which metalwire's [mysql] extra "
            "installs: mysql+pymysql://",
        ),
        ("mariadb://u@127.0.0.1/db", "extra installs: mariadb+pymysql://"),
        # libpq's and many a provider's spelling, which SQLAlchemy does not take
        ("postgres://u@127.0.0.1/db", "bad database URL 'postgres://127.0.0.1/db': "),
        ("postgres://u@127.0.0.1/db", "write postgresql:// for PostgreSQL"),
    ],
)
def test_a_url_naming_a_driver_metalwire_does_not_install_says_what_to_write(
    tmp_path: Path, url: str, said: str
) -> None:
    result = run("db", "upgrade", "--database", url, cwd=tmp_path)
    assert result.returncode == 2
    assert said in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("scheme", ["postgresql", "postgresql+psycopg2", "postgresql+psycopg"])
def test_unreachable_database(tmp_path: Path, scheme: str) -> None:
    # psycopg2 is not installed: Ironic's spelling is served through psycopg 3
    url = f"{scheme}://u@127.0.0.1:{free_port()}/db"
    result = run("serve", "--port", str(free_port()), "--database", url, cwd=tmp_path)
    assert result.returncode == 2
    assert "cannot use the database" in result.stderr and "refused" in result.stderr
    assert "Traceback" not in result.stderr
