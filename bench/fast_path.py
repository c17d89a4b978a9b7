"""Does a switch cost or pay? A boolean option on and off, taking turns, in one run.

By default the switch is ``[conductor] event_loop_vif_calls`` (does running VIF calls on the
event loop pay on SQLite?); ``--switch METALWIRE_METRICS_ENABLED`` measures what the
Prometheus metrics cost. Starts ``metalwire serve`` with the option on and off in
alternating rounds, runs ``bench/run.py`` (attach/list/detach cycles) against each, and prints
the median and spread of cycles/s, of the attach p50 and of the server's CPU time per cycle
(from /proc: less moved by other work on the machine than throughput) per concurrency level,
and the on/off ratios of rounds that ran next to each other. With
``--pin`` the server runs on CPU 0 and the load on CPU 1 (``taskset``), so the two do not
take turns on one core; without it the scheduler places them.

With ``--against BIN`` it compares two builds instead of an option: mode ``on`` runs
``--metalwire-bin`` (this tree), ``off`` runs BIN (e.g. the ``metalwire`` of a venv installed
from an older commit), both with their defaults.

    .venv/bin/python bench/fast_path.py --rounds 4 --duration 8 --pin
    .venv/bin/python bench/fast_path.py --against /tmp/old/.venv/bin/metalwire
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from procs import Process, free_port

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SWITCH = "METALWIRE_CONDUCTOR_EVENT_LOOP_VIF_CALLS"
MODES = {"on": "true", "off": "false"}


def pinned(argv: list[str], cpu: int | None) -> list[str]:
    taskset = shutil.which("taskset")
    if cpu is None or taskset is None:
        return argv
    return [taskset, "-c", str(cpu), *argv]


def one_round(args: argparse.Namespace, mode: str, workdir: Path) -> dict[str, Any]:
    port = free_port()
    data = workdir / "data"
    data.mkdir(parents=True)
    binary = str(Path(args.against if args.against and mode == "off" else args.metalwire_bin))
    argv = [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALWIRE_")}
    if not args.against:
        env[args.switch] = MODES[mode]
    server = Process(
        name=f"metalwire ({mode})",
        argv=pinned(argv, 0 if args.pin else None),
        log_path=workdir / "server.log",
        url=f"http://127.0.0.1:{port}",
        cwd=data,
        env=env,
    )
    server.start()
    try:
        server.wait_ready(timeout=60)
        out = workdir / "run.json"
        load = [
            sys.executable,
            str(BENCH / "run.py"),
            "--url",
            server.url,
            "--concurrency",
            args.concurrency,
            "--duration",
            str(args.duration),
            "--phases",
            "setup,cycles,cleanup",
            "--network-interface",
            "flat",
            "--label",
            mode,
            "--output",
            str(out),
            "--server-pid",
            str(server.pid),
        ]
        subprocess.run(
            pinned(load, 1 if args.pin else None),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        result: dict[str, Any] = json.loads(out.read_text())
        return result
    finally:
        server.stop()


def spread(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def spread3(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4, help="rounds per mode (alternating)")
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per level")
    parser.add_argument("--concurrency", default="1,8")
    parser.add_argument("--pin", action="store_true", help="server on CPU 0, load on CPU 1")
    parser.add_argument("--metalwire-bin", default=str(REPO / ".venv" / "bin" / "metalwire"))
    parser.add_argument("--switch", default=SWITCH, help="the METALWIRE_* option to turn on/off")
    parser.add_argument("--against", help="another build's metalwire: on = this, off = that")
    args = parser.parse_args()
    levels = args.concurrency.split(",")
    cycles: dict[str, dict[str, list[float]]] = {m: {c: [] for c in levels} for m in MODES}
    attach: dict[str, dict[str, list[float]]] = {m: {c: [] for c in levels} for m in MODES}
    cpu: dict[str, dict[str, list[float]]] = {m: {c: [] for c in levels} for m in MODES}
    with tempfile.TemporaryDirectory(prefix="fast-path-") as tmp:
        for i in range(args.rounds):
            order = list(MODES) if i % 2 == 0 else list(reversed(MODES))
            for mode in order:
                workdir = Path(tmp) / f"{i}-{MODES[mode]}"
                started = time.monotonic()
                result = one_round(args, mode, workdir)
                for c in levels:
                    level = result["cycles"][c]
                    cycles[mode][c].append(float(level["cycles_per_s"]))
                    attach[mode][c].append(float(level["attach"]["p50_ms"]))
                    cpu[mode][c].append(float(level["server_cpu_ms_per_cycle"]))
                print(
                    f"round {i + 1} {mode}: "
                    + ", ".join(
                        f"c{c} {cycles[mode][c][-1]:.1f} cycles/s, "
                        f"server {cpu[mode][c][-1]:.3f} ms CPU/cycle"
                        for c in levels
                    )
                    + f" ({time.monotonic() - started:.0f} s)",
                    flush=True,
                )
    print(
        f"\n{'pinned' if args.pin else 'unpinned'}, {args.rounds} rounds per mode, "
        f"{args.duration:.0f} s per level; median (min-max)"
    )
    for mode in MODES:
        for c in levels:
            print(
                f"  {mode:13} c{c:>2}: {spread(cycles[mode][c])} cycles/s, "
                f"attach p50 {spread(attach[mode][c])} ms, "
                f"server CPU {spread3(cpu[mode][c])} ms/cycle"
            )
    # Rounds i of the two modes ran next to each other: their ratios cancel the drift of the
    # machine between rounds better than the ratio of medians does.
    print("  on / off, per round: median (min-max)")
    for c in levels:
        through = [a / b for a, b in zip(cycles["on"][c], cycles["off"][c], strict=True)]
        cost = [a / b for a, b in zip(cpu["on"][c], cpu["off"][c], strict=True)]
        print(f"    c{c:>2}: cycles/s x{spread3(through)}, server CPU per cycle x{spread3(cost)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
