"""A column widened by an upgrade while a metalwire process serves, through a real ``metalwire
serve`` on PostgreSQL: the statements the process prepared before read the old type, and
PostgreSQL refuses them ("cached plan must not change result type"). The operation is run
again on statements prepared anew; no client sees the change, whatever the language of the
server's messages."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest

from tests.support.postgres import PostgresServer
from tests.support.server import MetalwireServer

pytestmark = pytest.mark.postgresql

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.78"}
# What an upgrade might widen: a port's address (InfiniBand GUIDs are longer than a MAC) and
# a node's name, both read by every VIF operation.
WIDENINGS = (
    "ALTER TABLE ports ALTER COLUMN address TYPE varchar(64)",
    "ALTER TABLE nodes ALTER COLUMN name TYPE varchar(300)",
)


def _cycle(client: httpx.Client, node: str) -> list[int]:
    vif = str(uuid.uuid4())
    answers = [
        client.post(f"/v1/nodes/{node}/vifs", json={"id": vif}),
        client.get(f"/v1/nodes/{node}/vifs"),
        client.get(f"/v1/nodes/{node}"),
        client.get("/v1/ports", params={"node": node}),
        client.delete(f"/v1/nodes/{node}/vifs/{vif}"),
    ]
    return [answer.status_code for answer in answers]


@pytest.mark.parametrize("cluster", ["postgres_server", "german_postgres_server"])
def test_vif_operations_go_on_when_a_column_they_read_is_widened(
    cluster: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    postgres_server: PostgresServer = request.getfixturevalue(cluster)
    name = f"widened_{uuid.uuid4().hex[:8]}"
    url = postgres_server.create_database(name)
    with (
        MetalwireServer(tmp_path, database=url) as server,
        httpx.Client(base_url=server.url, headers=HEADERS, timeout=30) as client,
    ):
        node = client.post(
            "/v1/nodes", json={"name": "w1", "driver": "fake-hardware", "network_interface": "flat"}
        )
        assert node.status_code == 201, node.text
        node_uuid = node.json()["uuid"]
        port = client.post(
            "/v1/ports", json={"node_uuid": node_uuid, "address": "52:54:00:c0:00:01"}
        )
        assert port.status_code == 201, port.text
        for _ in range(3):  # each statement run often enough to be prepared
            assert _cycle(client, node_uuid) == [204, 200, 200, 200, 204]

        for statement in WIDENINGS:
            postgres_server.execute(statement, database=name)

        for _ in range(3):
            assert _cycle(client, node_uuid) == [204, 200, 200, 200, 204]
        assert "Traceback" not in server.log_path.read_text()
