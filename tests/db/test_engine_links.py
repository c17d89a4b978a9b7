"""How a connection to a database server gives up on a server that stops answering."""

from __future__ import annotations

import uuid

import pytest

from metalwire.db.engine import PG_LINK_TIMEOUTS, make_engine
from tests.support.postgres import PostgresServer

pytestmark = pytest.mark.postgresql


def _link_parameters(url: str) -> dict[str, str]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            raw = connection.connection.dbapi_connection
            assert raw is not None
            parameters: dict[str, str] = raw.info.get_parameters()
    finally:
        engine.dispose()
    return {k: v for k, v in parameters.items() if k in PG_LINK_TIMEOUTS}


def test_a_postgresql_connection_gives_up_on_a_silent_server_after_about_ten_seconds(
    postgres_server: PostgresServer,
) -> None:
    name = f"links_{uuid.uuid4().hex[:8]}"
    url = postgres_server.create_database(name, driver="psycopg2")  # Ironic's spelling
    assert _link_parameters(url) == {k: str(v) for k, v in PG_LINK_TIMEOUTS.items()}


def test_the_urls_own_link_settings_win(postgres_server: PostgresServer) -> None:
    url = postgres_server.create_database(f"links_{uuid.uuid4().hex[:8]}")
    url += "?keepalives_idle=30&tcp_user_timeout=2000"
    found = _link_parameters(url)
    assert found["keepalives_idle"] == "30" and found["tcp_user_timeout"] == "2000"
    assert found["keepalives_count"] == str(PG_LINK_TIMEOUTS["keepalives_count"])
