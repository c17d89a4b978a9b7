"""Instructions per VIF cycle, counted by Valgrind: a figure the machine's load does not move.

Timed figures (bench/fast_path.py) move 2-3x on a shared machine; the number of instructions
the server executes for one attach + list + detach cycle does not. For each source tree given
(``--tree DIR``, the directory holding the ``metalwire`` package; default: this checkout's
``src``), it starts ``metalwire serve`` (SQLite, flat interface) under
``valgrind --tool=callgrind`` with that tree first on ``PYTHONPATH`` and this venv's
interpreter, enrols ``--nodes`` nodes with four ports each (bench/run.py's shape), runs
warm-up cycles, zeroes the counters
(``callgrind_control -z``), runs ``--cycles`` cycles one after the other, on the nodes in
turn, and dumps the
counters (``callgrind_control -d``). It prints instructions per cycle, every thread of the
server counted. Work driven by a clock (the WAL checkpointer) runs less often per cycle under
Valgrind's slowdown than in real time, so this counts the request path, not background work.

    .venv/bin/python bench/instructions.py --tree /tmp/old/src --tree src --cycles 50

Needs ``valgrind`` (Debian's package); about two minutes per tree.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from procs import free_port

REPO = Path(__file__).resolve().parent.parent
VERSION = {"X-OpenStack-Ironic-API-Version": "1.67"}  # as bench/run.py asks
SERVE = "import sys; from metalwire.cli.main import main; sys.exit(main())"


def _wait_ready(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            httpx.get(url + "/", timeout=5)
            return
        except httpx.HTTPError:
            time.sleep(0.5)
    raise SystemExit(f"metalwire serve did not answer at {url} within {timeout} s")


def _dumped_instructions(out: Path) -> int:
    """The instructions of the dumps callgrind_control -d wrote (``out.N`` files)."""
    total = 0
    for dump in out.parent.glob(out.name + ".*"):
        found = re.search(r"^(?:summary|totals):\s+(\d+)", dump.read_text(), re.MULTILINE)
        if found:
            total += int(found.group(1))
    return total


def per_cycle(tree: Path, cycles: int, warmup: int, node_count: int) -> float:
    """Millions of instructions the server executes per VIF cycle."""
    with tempfile.TemporaryDirectory(prefix="instructions-") as tmp:
        work = Path(tmp)
        out = work / "callgrind.out"
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("METALWIRE_")}
        env["PYTHONPATH"] = str(tree)
        argv = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-c",
            SERVE,
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--data-dir",
            str(work),
        ]
        with (work / "server.log").open("wb") as log:
            server = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_ready(url, 300)
            with httpx.Client(base_url=url, headers=VERSION, timeout=120) as client:
                nodes = []
                for n in range(node_count):
                    node = client.post(
                        "/v1/nodes", json={"driver": "fake-hardware", "network_interface": "flat"}
                    )
                    node.raise_for_status()
                    nodes.append(node.json()["uuid"])
                    for i in range(4):
                        address = f"52:54:{n // 256:02x}:{n % 256:02x}:00:{i:02x}"
                        client.post(
                            "/v1/ports", json={"node_uuid": nodes[-1], "address": address}
                        ).raise_for_status()
                order = itertools.cycle(nodes)

                def cycle() -> None:
                    vif = str(uuid.uuid4())
                    base = f"/v1/nodes/{next(order)}/vifs"
                    for response, expected in (
                        (client.post(base, json={"id": vif}), 204),
                        (client.get(base), 200),
                        (client.delete(f"{base}/{vif}"), 204),
                    ):
                        if response.status_code != expected:
                            raise SystemExit(
                                f"{response.request.method} {response.url}: "
                                f"{response.status_code} {response.text}"
                            )

                for _ in range(warmup):
                    cycle()
                subprocess.run(
                    ["callgrind_control", "-z", str(server.pid)], check=True, capture_output=True
                )
                for _ in range(cycles):
                    cycle()
                subprocess.run(
                    ["callgrind_control", "-d", str(server.pid)], check=True, capture_output=True
                )
            deadline = time.monotonic() + 30
            while not _dumped_instructions(out) and time.monotonic() < deadline:
                time.sleep(0.5)
            return _dumped_instructions(out) / cycles / 1e6
        finally:
            server.terminate()
            server.wait(120)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tree",
        action="append",
        type=Path,
        help="a directory holding the metalwire package (repeatable)",
    )
    parser.add_argument("--cycles", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--nodes", type=int, default=50, help="nodes, four ports each")
    args = parser.parse_args()
    trees = args.tree or [REPO / "src"]
    for tree in trees:
        if not (tree / "metalwire" / "__init__.py").is_file():
            raise SystemExit(f"{tree} holds no metalwire package")
    for tree in trees:
        figure = per_cycle(tree.resolve(), args.cycles, args.warmup, args.nodes)
        print(
            f"{tree}: {figure:.3f} M instructions per VIF cycle ({args.cycles} cycles)", flush=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
