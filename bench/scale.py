"""Large-inventory check: attach latency and server memory with 10,000 nodes x 4 ports.

Seeds the inventory straight into a fresh metalwire database (creating 50,000 objects through
the API would take longer than the measurement), starts ``metalwire serve`` on it, and drives
attach+list+detach cycles with ``bench/run.py`` through the public API. The same is done with
50 nodes for reference. Prints one JSON summary: attach p50 at both sizes and their ratio,
the server's resident memory after the run, and whether the node list is paginated.

    .venv/bin/python bench/scale.py [--nodes 10000] [--ports 4] [--duration 10]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx
from procs import LOOPBACK, Process, free_port, log
from sqlalchemy import insert

from metalwire.db import migrations
from metalwire.db.engine import Database
from metalwire.db.models import Node, Port, utcnow

HERE = Path(__file__).resolve().parent
PREFIX = "scale"


def node_row(
    node_uuid: str, name: str, network_interface: str, provision_state: str, now: Any
) -> dict[str, Any]:
    """A node's columns for a bulk insert: a benchmark's inventory is made in one statement."""
    return {
        "uuid": node_uuid,
        "name": name,
        "driver": "fake-hardware",
        "network_interface": network_interface,
        "provision_state": provision_state,
        "maintenance": False,
        "conductor_group": "",
        "properties": {},
        "extra": {},
        "instance_info": {},
        "driver_info": {},
        "driver_internal_info": {},
        "attrs": {},
        "created_at": now,
    }


def seed(data_dir: Path, nodes: int, ports: int) -> None:
    db = Database(f"sqlite:///{data_dir / 'metalwire.db'}")
    migrations.upgrade(db.engine)
    now = utcnow()
    node_rows = [
        node_row(str(uuid.uuid4()), f"{PREFIX}-{i:03d}", "flat", "enroll", now)
        for i in range(nodes)
    ]
    with db.engine.begin() as conn:
        conn.execute(insert(Node), node_rows)
        ids = [row.id for row in conn.execute(Node.__table__.select().order_by(Node.id))]
        port_rows = [
            {
                "uuid": str(uuid.uuid4()),
                "node_id": node_id,
                "pxe_enabled": True,
                "address": f"52:{n >> 24 & 255:02x}:{n >> 16 & 255:02x}:{n >> 8 & 255:02x}:"
                f"{n & 255:02x}:{p:02x}",
                "local_link_connection": {},
                "is_smartnic": False,
                "extra": {},
                "internal_info": {},
                "created_at": now,
            }
            for n, node_id in enumerate(ids)
            for p in range(ports)
        ]
        conn.execute(insert(Port), port_rows)
    db.dispose()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def measure(nodes: int, ports: int, duration: float, workdir: Path) -> dict[str, Any]:
    data_dir = workdir / f"data-{nodes}"
    data_dir.mkdir(parents=True)
    log(f"seeding {nodes} nodes x {ports} ports")
    seed(data_dir, nodes, ports)
    port = free_port()
    url = f"http://{LOOPBACK}:{port}"
    server = Process(
        name=f"metalwire-{nodes}",
        argv=[
            str(Path(sys.executable).parent / "metalwire"),
            "serve",
            "--host",
            LOOPBACK,
            "--port",
            str(port),
            "--data-dir",
            str(data_dir),
            "--log-level",
            "warning",
        ],
        log_path=workdir / f"server-{nodes}.log",
        url=url,
    )
    server.start()
    try:
        server.wait_ready()
        out = workdir / f"run-{nodes}.json"
        subprocess.run(
            [
                sys.executable,
                str(HERE / "run.py"),
                "--url",
                url,
                "--skip-setup",
                "--name-prefix",
                PREFIX,
                "--nodes",
                str(nodes),
                "--ports",
                str(ports),
                "--phases",
                "cycles",
                "--concurrency",
                "1",
                "--duration",
                str(duration),
                "--burst",
                "",
                "--output",
                str(out),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        cycles = json.loads(out.read_text())["cycles"]["1"]
        page = httpx.get(
            f"{url}/v1/nodes", headers={"X-OpenStack-Ironic-API-Version": "1.78"}, timeout=60
        ).json()
        assert server.pid is not None
        return {
            "nodes": nodes,
            "attach_p50_ms": cycles["attach"]["p50_ms"],
            "attach_p95_ms": cycles["attach"]["p95_ms"],
            "cycles_per_s": cycles["cycles_per_s"],
            "server_rss_mb": round(rss_mb(server.pid), 1),
            "node_list_page_size": len(page["nodes"]),
            "node_list_has_next": "next" in page,
        }
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--ports", type=int, default=4)
    parser.add_argument("--duration", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="metalwire-scale-") as tmp:
        small = measure(50, args.ports, args.duration, Path(tmp))
        large = measure(args.nodes, args.ports, args.duration, Path(tmp))
    ratio = large["attach_p50_ms"] / small["attach_p50_ms"]
    print(
        json.dumps(
            {
                "reference": small,
                "large": large,
                "attach_p50_ratio": round(ratio, 2),
                "targets": {
                    "attach p50 within 1.5x of the 50-node figure": ratio <= 1.5,
                    "server RSS <= 250 MB": large["server_rss_mb"] <= 250,
                    "node list paginated": large["node_list_has_next"],
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
