"""Drift audit at scale: 10,000 nodes x 2 ports, N VIFs whose ports live in a real Neutron.

Starts the test suite's real Neutron (``tests/support/neutron.py``, with its PostgreSQL),
creates the VIFs' ports there with Neutron's bulk ``POST /v2.0/ports`` (chunks of 200),
seeds the inventory and the attachments straight into a fresh SQLite file (as
``bench/scale.py`` does), plants drift (a deleted port, a changed MAC, a baremetal port bound
to a node that no attachment has), starts ``metalwire serve`` on it and runs the audit through
the API (``GET /v1/metalwire/audit``) ``--runs`` times. Prints one JSON summary: per run the
wall time, the Neutron calls and the seconds spent in them (from the server's ``/metrics``),
the server's RSS before and after, the findings by kind; and the medians with the spread
(min, max). Creating 2,000 ports takes the test Neutron about 3 minutes.

    METALWIRE_NEUTRON_VENV=... python bench/audit_scale.py [--nodes 10000] [--vifs 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from procs import log
from scale import node_row, rss_mb
from sqlalchemy import insert

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metalwire.db import migrations  # noqa: E402
from metalwire.db.engine import Database  # noqa: E402
from metalwire.db.models import Node, Port, VifAttachment, utcnow  # noqa: E402
from tests.support.neutron import ADMIN_HEADERS, DEFAULT_SWITCHES, NeutronServer  # noqa: E402
from tests.support.postgres import PostgresServer  # noqa: E402
from tests.support.server import MetalwireServer  # noqa: E402

Json = dict[str, Any]
AUDIT = "/v1/metalwire/audit"
PROJECT = "audit-scale"
CREATE_CHUNK = 200
SWITCH = DEFAULT_SWITCHES[0]
NEUTRON_CALLS = "metalwire_neutron_request_duration_seconds_count"
NEUTRON_SECONDS = "metalwire_neutron_request_duration_seconds_sum"


def mac(node: int, port: int) -> str:
    return f"52:{node >> 16 & 255:02x}:{node >> 8 & 255:02x}:{node & 255:02x}:00:{port:02x}"


def create_ports(neutron: httpx.Client, network: str, macs: list[str]) -> list[str]:
    """Neutron ports with these MACs, by bulk create; their ids in the same order."""
    ids: list[str] = []
    for start in range(0, len(macs), CREATE_CHUNK):
        body = {
            "ports": [
                {"network_id": network, "project_id": PROJECT, "mac_address": m}
                for m in macs[start : start + CREATE_CHUNK]
            ]
        }
        response = neutron.post("/ports", json=body)
        if response.status_code != 201:
            raise RuntimeError(f"bulk port create: HTTP {response.status_code} {response.text}")
        ids += [p["id"] for p in response.json()["ports"]]
    return ids


def seed(data_dir: Path, nodes: int, vif_ids: list[str]) -> list[str]:
    """10,000 neutron nodes x 2 ports, the first port of the first nodes carrying the VIFs;
    the node UUIDs."""
    db = Database(f"sqlite:///{data_dir / 'metalwire.db'}")
    migrations.upgrade(db.engine)
    now = utcnow()
    uuids = [str(uuid.uuid4()) for _ in range(nodes)]
    node_rows = [
        node_row(uuids[i], f"audit-{i:05d}", "neutron", "available", now) for i in range(nodes)
    ]
    with db.engine.begin() as conn:
        conn.execute(insert(Node), node_rows)
        node_ids = [row.id for row in conn.execute(Node.__table__.select().order_by(Node.id))]
        port_rows = [
            {
                "uuid": str(uuid.uuid4()),
                "node_id": node_id,
                "pxe_enabled": p == 0,
                "address": mac(n, p),
                "physical_network": "physnet1",
                "local_link_connection": {
                    "switch_id": SWITCH.mac_address,
                    "port_id": f"Ethernet{n}/{p}",
                    "switch_info": SWITCH.name,
                },
                "is_smartnic": False,
                "extra": {},
                "internal_info": {},
                "created_at": now,
            }
            for n, node_id in enumerate(node_ids)
            for p in range(2)
        ]
        conn.execute(insert(Port), port_rows)
        first_ports = {
            row.node_id: row.id
            for row in conn.execute(
                Port.__table__.select().where(Port.pxe_enabled.is_(True)).order_by(Port.id)
            )
        }
        attachments = [
            {
                "vif_id": vif,
                "node_id": node_ids[i],
                "port_id": first_ports[node_ids[i]],
                "source": "api",
                "pending": False,
                "info": {},
                "created_at": now,
            }
            for i, vif in enumerate(vif_ids)
        ]
        conn.execute(insert(VifAttachment), attachments)
    db.dispose()
    return uuids


def plant_drift(neutron: httpx.Client, network: str, vif_ids: list[str], node: str) -> None:
    """A deleted VIF port, a changed MAC, and an orphan bound to ``node``."""
    neutron.delete(f"/ports/{vif_ids[1]}").raise_for_status()
    moved = {"port": {"mac_address": "52:ff:ff:ff:00:99"}}
    neutron.put(f"/ports/{vif_ids[2]}", json=moved).raise_for_status()
    orphan = {
        "network_id": network,
        "project_id": PROJECT,
        "binding:host_id": node,
        "binding:vnic_type": "baremetal",
        "binding:profile": {
            "local_link_information": [{"switch_id": SWITCH.mac_address, "port_id": "Ethernet0/1"}]
        },
    }
    neutron.post("/ports", json={"port": orphan}).raise_for_status()


def neutron_totals(server: MetalwireServer) -> tuple[float, float]:
    """(Neutron calls made, seconds spent in them) so far, from the server's /metrics."""
    text = httpx.get(server.url + "/metrics", timeout=60).text
    calls = seconds = 0.0
    for line in text.splitlines():
        if line.startswith(NEUTRON_CALLS):
            calls += float(line.rsplit(" ", 1)[1])
        elif line.startswith(NEUTRON_SECONDS):
            seconds += float(line.rsplit(" ", 1)[1])
    return calls, seconds


def one_audit(server: MetalwireServer) -> Json:
    assert server.process is not None
    rss_before = rss_mb(server.process.pid)
    calls_before, seconds_before = neutron_totals(server)
    started = time.perf_counter()
    response = httpx.get(server.url + AUDIT, timeout=600)
    wall = time.perf_counter() - started
    response.raise_for_status()
    report = response.json()
    calls, seconds = neutron_totals(server)
    return {
        "wall_s": round(wall, 2),
        "neutron_calls": int(calls - calls_before),
        "neutron_s": round(seconds - seconds_before, 2),
        "rss_before_mb": round(rss_before, 1),
        "rss_after_mb": round(rss_mb(server.process.pid), 1),
        "nodes_checked": report["nodes_checked"],
        "findings": dict(Counter(f["kind"] for f in report["findings"])),
    }


def spread(runs: list[Json], key: str) -> Json:
    values = [float(r[key]) for r in runs]
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--vifs", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="metalwire-audit-scale-"))
    (root / "neutron").mkdir()
    with (
        PostgresServer() as postgres,
        NeutronServer(postgres, base_dir=root / "neutron") as neutron_server,
        httpx.Client(
            base_url=f"{neutron_server.endpoint}/v2.0", headers=dict(ADMIN_HEADERS), timeout=600
        ) as neutron,
    ):
        body = {
            "name": "audit-scale",
            "project_id": PROJECT,
            "provider:network_type": "vlan",
            "provider:physical_network": "physnet1",
        }
        # Neutron's default quota is 500 ports per project.
        quota = {"quota": {"port": -1}}
        neutron.put(f"/quotas/{PROJECT}", json=quota).raise_for_status()
        response = neutron.post("/networks", json={"network": body})
        response.raise_for_status()
        network = response.json()["network"]["id"]
        started = time.perf_counter()
        vif_ids = create_ports(neutron, network, [mac(n, 0) for n in range(args.vifs)])
        create_s = time.perf_counter() - started
        log(f"{args.vifs} Neutron ports created in {create_s:.1f} s")
        data_dir = root / "metalwire"
        data_dir.mkdir()
        started = time.perf_counter()
        node_uuids = seed(data_dir, args.nodes, vif_ids)
        log(f"{args.nodes} nodes seeded in {time.perf_counter() - started:.1f} s")
        plant_drift(neutron, network, vif_ids, node_uuids[-1])
        env = {"METALWIRE_NEUTRON_URL": neutron_server.endpoint}
        with MetalwireServer(data_dir, env=env) as server:
            runs = []
            for n in range(args.runs):
                runs.append(one_audit(server))
                log(f"run {n + 1}: {runs[-1]}")
    print(
        json.dumps(
            {
                "nodes": args.nodes,
                "ports_per_node": 2,
                "vifs": args.vifs,
                "neutron_bulk_create_s": round(create_s, 1),
                "runs": runs,
                "wall_s": spread(runs, "wall_s"),
                "neutron_calls": spread(runs, "neutron_calls"),
                "neutron_s": spread(runs, "neutron_s"),
                "rss_after_mb": spread(runs, "rss_after_mb"),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
