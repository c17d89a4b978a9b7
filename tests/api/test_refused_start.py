"""A start refused after the schema upgrade leaves no connection to the database open."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from metalwire.config import load_config
from metalwire.errors import Invalid
from metalwire.services import build_services
from tests.support.postgres import PostgresServer


def _connections_to(server: PostgresServer, database: str) -> int:
    """The connections open to ``database``, but the one asking."""
    with server.connect(database) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.postgresql
def test_an_interface_that_is_not_installed_closes_what_the_upgrade_opened(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    name = f"refused_{secrets.token_hex(4)}"
    url = postgres_server.create_database(name)
    config = load_config(
        environ={},
        overrides={("DEFAULT", "data_dir"): str(tmp_path), ("database", "connection"): url},
    )
    config.default.enabled_network_interfaces = ["noop", "not-installed"]
    config.default.default_network_interface = "noop"  # a configuration that passes its checks
    try:
        with pytest.raises(Invalid, match="'not-installed', which is not installed"):
            build_services(config)  # upgrades the schema first, then loads the interfaces
        assert _connections_to(postgres_server, name) == 0
    finally:
        postgres_server.drop_database(name)
