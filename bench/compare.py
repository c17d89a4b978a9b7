"""Benchmark metalwire against the FastAPI+SQLite baseline and upstream Ironic.

Each round starts every server afresh (new data directory), runs bench/run.py
against it, and stops it; servers take turns (baseline, Ironic, metalwire, then
metalwire, Ironic, baseline: :func:`turn_order`) so that drifting machine load, and
whatever the run before leaves behind, hits all of them alike. One JSON summary goes
to stdout; every run's full output and server log stay in .bench/compare-<time>/.

    python bench/compare.py                      # everything, 2 rounds, 10 s levels
    python bench/compare.py --skip-ironic
    python bench/compare.py --metalwire-url http://127.0.0.1:6385   # already running
    python bench/compare.py --database postgresql --targets baseline,metalwire
    python bench/compare.py --database mariadb --targets baseline,kept,metalwire

With ``--database postgresql`` one throwaway PostgreSQL cluster (durable: fsync and
synchronous commit on) serves the whole run; each run gets a database of its own, the
baseline reaching it through psycopg 3's asynchronous pool, metalwire through its own engine.
``--database mariadb`` is the same with one throwaway MariaDB server (durable: InnoDB flushes
its log at every commit), the baseline reaching it through PyMySQL connections on worker
threads, the driver metalwire uses.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import httpx
from procs import LOOPBACK, Process, free_port, log
from upstream_ironic import DEFAULT_VENV, IRONIC_VERSION, IronicServer, ensure_installed

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
TARGETS = ("baseline", "kept", "kept-function", "ironic", "metalwire", "before")

# (key, description, how to combine rounds)
METRICS: list[tuple[str, str, str]] = [
    ("cycles_c1", "attach+list+detach cycles/s, 1 client", "median"),
    ("cycles_c8", "attach+list+detach cycles/s, 8 clients", "median"),
    ("cycles_c32", "attach+list+detach cycles/s, 32 clients", "median"),
    ("get_vifs_c8", "GET vifs/s, 8 clients", "median"),
    ("burst4_ms", "4 VIFs on one node at once: ms until all attached (median)", "max"),
    ("burst8_ms", "8 VIFs on one node at once: ms until all attached (median)", "max"),
    ("burst8_409", "409 answers seen during the bursts of 8", "sum"),
    ("burst8_retries", "client retries during the bursts of 8", "sum"),
    # Where the machine's CPU went at 8 clients: the bench's server, PostgreSQL, and the load
    # generator, per cycle, and the cores left idle (none: the CPU set the pace).
    ("server_cpu_ms_c8", "server CPU ms per cycle (its workers too), 8 clients", "median"),
    ("database_cpu_ms_c8", "database server CPU ms per cycle, 8 clients", "median"),
    ("client_cpu_ms_c8", "load generator CPU ms per cycle, 8 clients", "median"),
    ("idle_cores_c8", "cores idle while 8 clients ran", "median"),
    ("server_cpu_ms_c1", "server CPU ms per cycle, 1 client", "median"),
]


class Started(NamedTuple):
    """A server a round runs against: where it answers, how to stop it, its process (whose
    CPU time, with its children's, the bench reads; None when it runs elsewhere)."""

    url: str
    stop: Callable[[], None]
    pid: int | None


def turn_order(targets: list[str], rnd: int) -> list[str]:
    """The order of round ``rnd`` (from 1): as given, then reversed, and so on. The first
    server of a round runs after a different one each time (in one run of two servers taking
    turns, 6 rounds of 8 clients, the first of each round ran 0.2-24 % slower, 7.5 % by the
    median, whichever server it was)."""
    return list(targets) if rnd % 2 else list(reversed(targets))


class Unavailable(Exception):
    """A server could not be started; the comparison goes on without it."""


def dig(data: dict[str, Any], *keys: str) -> Any:
    cur: Any = data
    for key in keys:
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur


def figures(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "cycles_c1": dig(result, "cycles", "1", "cycles_per_s"),
        "cycles_c8": dig(result, "cycles", "8", "cycles_per_s"),
        "cycles_c32": dig(result, "cycles", "32", "cycles_per_s"),
        "get_vifs_c8": dig(result, "get_vifs", "gets_per_s"),
        "burst4_ms": dig(result, "burst", "4", "all_attached_ms_median"),
        "burst8_ms": dig(result, "burst", "8", "all_attached_ms_median"),
        "burst8_409": dig(result, "burst", "8", "seen_409"),
        "burst8_retries": dig(result, "burst", "8", "retries"),
        "server_cpu_ms_c8": dig(result, "cycles", "8", "server_cpu_ms_per_cycle"),
        "database_cpu_ms_c8": dig(result, "cycles", "8", "database_cpu_ms_per_cycle"),
        "client_cpu_ms_c8": dig(result, "cycles", "8", "client_cpu_ms_per_cycle"),
        "idle_cores_c8": dig(result, "cycles", "8", "idle_cores"),
        "server_cpu_ms_c1": dig(result, "cycles", "1", "server_cpu_ms_per_cycle"),
    }


def verify_report(result: dict[str, Any]) -> list[str]:
    """Every verification outcome that is neither ok nor the noop skip."""
    found: list[str] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            status = node.get("status")
            if isinstance(status, str) and status.startswith("failed"):
                found.append(f"{where}: {status} {node.get('problems', [])[:3]}")
            mismatches = node.get("list_mismatches")
            if isinstance(mismatches, int) and mismatches:
                found.append(f"{where}: {mismatches} VIF lists differed from what was attached")
            for key, value in node.items():
                walk(value, f"{where}.{key}" if where else key)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")

    walk(result, "")
    return found


def request_errors(result: dict[str, Any]) -> int:
    total = 0

    def walk(node: Any) -> None:
        nonlocal total
        if isinstance(node, dict):
            if "errors" in node and isinstance(node["errors"], int) and "p50_ms" in node:
                total += node["errors"]
            if isinstance(node.get("failed_requests"), int):
                total += node["failed_requests"]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(result)
    return total


def combine(values: list[Any], how: str) -> float | None:
    nums = [float(v) for v in values if isinstance(v, int | float)]
    if not nums:
        return None
    if how == "sum":
        return sum(nums)
    if how == "max":
        return max(nums)
    return round(statistics.median(nums), 2)


def spread(values: list[Any]) -> list[float] | None:
    nums = [float(v) for v in values if isinstance(v, int | float)]
    return [min(nums), max(nums)] if nums else None


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return round(a / b, 3)


class Runner:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        default = REPO / ".bench" / time.strftime("compare-%Y%m%d-%H%M%S")
        self.outdir = Path(args.workdir or default).resolve()
        self.outdir.mkdir(parents=True, exist_ok=True)
        self.notes: dict[str, str] = {}
        # tests.support's PostgresServer or MariaDBServer; None on SQLite
        self.database: Any = None

    # -- databases ------------------------------------------------------------------

    def start_database(self) -> None:
        sys.path.insert(0, str(REPO))
        if self.args.database == "postgresql":
            from tests.support.postgres import PostgresServer

            durable = {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}
            self.database = PostgresServer(settings=durable).start()
            log(f"PostgreSQL (fsync on) on port {self.database.port}")
        elif self.args.database == "mariadb":
            from tests.support.mariadb import MariaDBServer

            self.database = MariaDBServer(durable=True).start()
            log(f"MariaDB (log flushed at every commit) on port {self.database.port}")

    def fresh_database(self, tag: str, for_metalwire: bool) -> list[str]:
        """A new database for one run, and the server's arguments naming it."""
        name = tag.replace("-", "_")
        self.database.drop_database(name)
        self.database.create_database(name)
        if for_metalwire:  # the server's SQLAlchemy URL (psycopg, PyMySQL)
            return ["--database", str(self.database.url(name))]
        if self.args.database == "postgresql":
            return ["--postgres", str(self.database.url(name, ""))]
        return ["--mariadb", f"mysql://root@127.0.0.1:{self.database.port}/{name}"]

    def drop_database(self, tag: str) -> None:
        if self.database is not None:
            self.database.drop_database(tag.replace("-", "_"))

    # -- servers --------------------------------------------------------------------

    def start_kept(self, tag: str) -> Started:
        """The reference server doing the database work metalwire keeps (bench/kept_work.py)."""
        return self.start_baseline(tag, work="kept")

    def start_kept_function(self, tag: str) -> Started:
        """The same work in one PostgreSQL function call a write."""
        if self.args.database != "postgresql":
            raise Unavailable("kept-function needs --database postgresql")
        return self.start_baseline(tag, work="kept-function")

    def start_baseline(self, tag: str, work: str = "minimal") -> Started:
        port = free_port()
        data = self.outdir / f"{tag}-data"
        argv = [sys.executable, str(BENCH / "baseline_app.py"), "--host", LOOPBACK]
        argv += ["--port", str(port), "--data-dir", str(data), "--work", work]
        if self.database is not None:
            argv += self.fresh_database(tag, for_metalwire=False)
            argv += ["--pool-size", str(self.args.baseline_pool_size)]
        proc = Process(
            name="baseline",
            argv=argv,
            log_path=self.outdir / f"{tag}.log",
            url=f"http://{LOOPBACK}:{port}",
        )
        proc.start()
        try:
            proc.wait_ready(timeout=30)
        except RuntimeError as exc:
            proc.stop()
            raise Unavailable(str(exc)) from exc
        except BaseException:
            proc.stop()
            raise
        return Started(proc.url, proc.stop, proc.pid)

    def start_ironic(self, tag: str) -> Started:
        workdir = self.outdir / f"{tag}-data"
        workdir.mkdir(parents=True, exist_ok=True)
        server = IronicServer(
            venv=self.args.ironic_venv, workdir=workdir, log_path=self.outdir / f"{tag}.log"
        )
        try:
            server.start(timeout=180)
        except (RuntimeError, subprocess.CalledProcessError) as exc:
            server.stop()
            raise Unavailable(f"upstream Ironic did not start: {exc}") from exc
        except BaseException:
            server.stop()
            raise
        return Started(server.url, server.stop, server.pid)

    def start_before(self, tag: str) -> Started:
        """An older checkout's metalwire (``--before-src``) on this interpreter."""
        src = Path(self.args.before_src or "").resolve()
        if not (src / "metalwire" / "cli" / "main.py").exists():
            raise Unavailable(f"no metalwire source at {src} (pass --before-src CHECKOUT/src)")
        argv = [sys.executable, "-m", "metalwire.cli.main"]
        return self.serve_metalwire(tag, argv, {**os.environ, "PYTHONPATH": str(src)})

    def start_metalwire(self, tag: str) -> Started:
        if self.args.metalwire_url:
            url = self.args.metalwire_url.rstrip("/")
            try:
                httpx.get(url + "/", timeout=5).raise_for_status()
            except httpx.HTTPError as exc:
                raise Unavailable(f"metalwire at {url} does not answer GET /: {exc}") from exc
            return Started(url, lambda: None, None)  # elsewhere, perhaps: no CPU time
        binary = Path(self.args.metalwire_bin)
        if not binary.exists():
            raise Unavailable(
                f"metalwire is not installed yet ({binary} not found); install the "
                "project into .venv, or pass --metalwire-bin PATH or --metalwire-url URL"
            )
        env = None
        if self.args.metalwire_workers > 1:
            env = {**os.environ, "METALWIRE_API_API_WORKERS": str(self.args.metalwire_workers)}
        return self.serve_metalwire(tag, [str(binary)], env)

    def serve_metalwire(self, tag: str, command: list[str], env: dict[str, str] | None) -> Started:
        port = free_port()
        data = self.outdir / f"{tag}-data"
        data.mkdir(parents=True, exist_ok=True)
        argv = [*command, "serve", "--host", LOOPBACK, "--port", str(port)]
        argv += ["--data-dir", str(data), *self.args.metalwire_arg]
        if self.database is not None:
            argv += self.fresh_database(tag, for_metalwire=True)
        proc = Process(
            name="metalwire",
            argv=argv,
            log_path=self.outdir / f"{tag}.log",
            url=f"http://{LOOPBACK}:{port}",
            cwd=data,
            env=env,
        )
        proc.start()
        try:
            proc.wait_ready(timeout=self.args.start_timeout)
        except RuntimeError as exc:
            proc.stop()
            raise Unavailable(f"metalwire did not start: {exc}") from exc
        except BaseException:
            proc.stop()
            raise
        return Started(proc.url, proc.stop, proc.pid)

    # -- runs -----------------------------------------------------------------------

    def bench(self, target: str, started: Started, tag: str) -> dict[str, Any]:
        args = self.args
        iface = args.ironic_network_interface if target == "ironic" else args.network_interface
        out = self.outdir / f"{tag}.json"
        argv = [
            sys.executable,
            str(BENCH / "run.py"),
            "--url",
            started.url,
            "--label",
            tag,
            "--nodes",
            str(args.nodes),
            "--ports",
            str(args.ports),
            "--concurrency",
            "1,8,32",
            "--duration",
            str(args.duration),
            "--warmup",
            str(args.warmup),
            "--burst-repeats",
            str(args.burst_repeats),
            "--network-interface",
            iface,
            "--api-version",
            args.api_version,
            "--output",
            str(out),
        ]
        if started.pid:
            argv += ["--server-pid", str(started.pid)]
        if self.database is not None and self.database.pid:
            argv += ["--database-pid", str(self.database.pid)]
        load = os.getloadavg()[0]
        began = time.monotonic()
        proc = subprocess.run(argv, stdout=subprocess.PIPE, text=True, check=False)
        if proc.returncode != 0:
            raise Unavailable(f"bench/run.py exited with {proc.returncode} against {target}")
        result: dict[str, Any] = json.loads(proc.stdout)
        result["_load_before"] = round(load, 2)
        result["_bench_s"] = round(time.monotonic() - began, 1)
        return result

    def run(self) -> dict[str, Any]:
        args = self.args
        targets = [
            t
            for t in args.targets
            if not (t == "ironic" and args.skip_ironic)
            and not (t == "metalwire" and args.skip_metalwire)
        ]
        if "before" in targets and not args.before_src:
            self.notes["before"] = "not run: --before-src not given"
            targets.remove("before")
        if args.database != "sqlite":
            if "ironic" in targets:
                self.notes["ironic"] = f"not run on {args.database} (its bench server is SQLite's)"
                targets.remove("ironic")
            self.start_database()
        try:
            return self.run_rounds(targets)
        finally:
            if self.database is not None:
                self.database.stop()

    def run_rounds(self, targets: list[str]) -> dict[str, Any]:
        args = self.args
        if "ironic" in targets:
            try:
                ensure_installed(args.ironic_venv, IRONIC_VERSION)
            except (OSError, RuntimeError, subprocess.CalledProcessError) as exc:
                self.notes["ironic"] = f"not installed: {exc}"
                targets.remove("ironic")
        starters = {
            "baseline": self.start_baseline,
            "kept": self.start_kept,
            "kept-function": self.start_kept_function,
            "ironic": self.start_ironic,
            "metalwire": self.start_metalwire,
            "before": self.start_before,
        }
        runs: dict[str, list[dict[str, Any]]] = {t: [] for t in targets}
        for rnd in range(1, args.rounds + 1):
            for target in turn_order(targets, rnd):
                if target in self.notes:
                    continue
                tag = f"{target}-r{rnd}"
                log(f"=== round {rnd}/{args.rounds}: {target}")
                try:
                    started = starters[target](tag)
                except Unavailable as exc:
                    log(f"!!! {target} skipped: {exc}")
                    self.notes[target] = str(exc).splitlines()[0]
                    continue
                try:
                    log(f"{target} answering on {started.url}")
                    runs[target].append(self.bench(target, started, tag))
                except Unavailable as exc:
                    log(f"!!! {exc}")
                    self.notes[tag] = str(exc)
                finally:
                    started.stop()
                    self.drop_database(tag)
                    if not args.keep_data:
                        shutil.rmtree(self.outdir / f"{tag}-data", ignore_errors=True)
        return self.summarize(targets, runs)

    # -- summary --------------------------------------------------------------------

    def summarize(
        self, targets: list[str], runs: dict[str, list[dict[str, Any]]]
    ) -> dict[str, Any]:
        per_target: dict[str, Any] = {}
        combined: dict[str, dict[str, float | None]] = {}
        for target in targets:
            results = runs.get(target, [])
            rounds = [figures(r) for r in results]
            combined[target] = {
                key: combine([r[key] for r in rounds], how) for key, _, how in METRICS
            }
            if not results:
                per_target[target] = {"status": self.notes.get(target, "no run completed")}
                continue
            failures = [f for r in results for f in verify_report(r)]
            per_target[target] = {
                "status": "ok",
                "network_interface": results[0].get("network_interface"),
                "api_version": results[0].get("api_version"),
                "figures": combined[target],
                "spread": {key: spread([r[key] for r in rounds]) for key, _, _ in METRICS},
                "rounds": rounds,
                "verification": "all ok or skipped" if not failures else failures[:10],
                "request_errors": sum(request_errors(r) for r in results),
                "load_avg_before_runs": [r.get("_load_before") for r in results],
            }
        mw = combined.get("metalwire", {})
        base = combined.get("baseline", {})
        iro = combined.get("ironic", {})
        keys = ("cycles_c1", "cycles_c8", "cycles_c32", "get_vifs_c8", "burst8_ms")
        ratios = {
            "metalwire/baseline": {k: ratio(mw.get(k), base.get(k)) for k in keys},
            "metalwire/ironic": {k: ratio(mw.get(k), iro.get(k)) for k in keys},
        }
        if "kept" in combined:
            kept = combined["kept"]
            ratios["kept/baseline"] = {k: ratio(kept.get(k), base.get(k)) for k in keys}
            ratios["metalwire/kept"] = {k: ratio(mw.get(k), kept.get(k)) for k in keys}
        if "kept-function" in combined:
            function = combined["kept-function"]
            ratios["kept-function/baseline"] = {
                k: ratio(function.get(k), base.get(k)) for k in keys
            }
        if "before" in combined:
            before = combined["before"]
            ratios["before/baseline"] = {k: ratio(before.get(k), base.get(k)) for k in keys}
            ratios["metalwire/before"] = {k: ratio(mw.get(k), before.get(k)) for k in keys}
        loads = [r["_load_before"] for rs in runs.values() for r in rs if "_load_before" in r]
        cores = os.cpu_count() or 1
        if loads and max(loads) > cores:
            self.notes["machine_load"] = (
                f"1-minute load average reached {max(loads)} on {cores} cores before a run: "
                "other processes were competing for the CPUs, so the figures are noisy; "
                "compare the rounds and rerun on a quiet machine"
            )
        return {
            "rounds": self.args.rounds,
            "cpu_count": cores,
            "duration_s": self.args.duration,
            "database": self.args.database,
            "nodes": self.args.nodes,
            "ports_per_node": self.args.ports,
            "metrics": {key: desc for key, desc, _ in METRICS},
            "targets": per_target,
            "ratios": ratios,
            "targets_check": self.targets_check(mw, base, iro),
            "notes": self.notes,
            "output_dir": str(self.outdir),
        }

    def targets_check(
        self,
        mw: dict[str, float | None],
        base: dict[str, float | None],
        iro: dict[str, float | None],
    ) -> list[dict[str, Any]]:
        def at_least(name: str, value: float | None, floor: float | None) -> dict[str, Any]:
            ok = None if value is None or floor is None else value >= floor
            return {
                "target": name,
                "metalwire": value,
                "needed": None if floor is None else round(floor, 2),
                "pass": ok,
            }

        def of_baseline(key: str, share: float, what: str) -> dict[str, Any]:
            value = base.get(key)
            floor = None if value is None else value * share
            return at_least(f"{what} >= {share:.0%} of baseline", mw.get(key), floor)

        b8_ms, b8_409 = mw.get("burst8_ms"), mw.get("burst8_409")
        burst_ok = None if b8_ms is None or b8_409 is None else b8_ms <= 100.0 and b8_409 == 0
        burst = {
            "target": "burst of 8 on one node within 100 ms with zero 409",
            "metalwire": {"ms": b8_ms, "seen_409": b8_409},
            "needed": {"ms": 100.0, "seen_409": 0},
            "pass": burst_ok,
        }
        if self.args.database != "sqlite":  # #24's targets, PostgreSQL's and MariaDB's
            return [
                of_baseline("cycles_c1", 0.7, "cycles/s at c1"),
                of_baseline("cycles_c8", 0.8, "cycles/s at c8"),
                of_baseline("cycles_c32", 0.8, "cycles/s at c32"),
                burst,
            ]
        c8_ironic = iro.get("cycles_c8")
        return [
            of_baseline("cycles_c8", 0.9, "cycles/s at c8"),
            of_baseline("cycles_c32", 0.9, "cycles/s at c32"),
            at_least(
                "cycles/s at c8 >= 20x Ironic",
                mw.get("cycles_c8"),
                None if c8_ironic is None else c8_ironic * 20.0,
            ),
            burst,
            of_baseline("get_vifs_c8", 0.7, "GET vifs/s at c8"),
        ]


def main() -> int:
    p = argparse.ArgumentParser(description="metalwire vs baseline vs upstream Ironic")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--duration", type=float, default=10.0, help="seconds per measured level")
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--nodes", type=int, default=50)
    p.add_argument("--ports", type=int, default=4)
    p.add_argument("--burst-repeats", type=int, default=3)
    p.add_argument("--api-version", default="1.67")
    p.add_argument("--network-interface", default="flat", help="for baseline and metalwire")
    p.add_argument(
        "--database",
        choices=("sqlite", "postgresql", "mariadb"),
        default="sqlite",
        help="the baseline's and metalwire's database (postgresql, mariadb: a throwaway server)",
    )
    p.add_argument(
        "--baseline-pool-size", type=int, default=10, help="PostgreSQL and MariaDB modes"
    )
    p.add_argument(
        "--ironic-network-interface",
        default="noop",
        help="Ironic's flat interface needs a Neutron, so noop by default",
    )
    p.add_argument(
        "--targets",
        type=lambda text: [t for t in text.split(",") if t],
        default=["baseline", "ironic", "metalwire"],
        help="which servers, in turn order (default baseline,ironic,metalwire; also kept and"
        " kept-function, the baseline doing the database work metalwire keeps, and before)",
    )
    p.add_argument("--skip-ironic", action="store_true")
    p.add_argument("--skip-metalwire", action="store_true")
    p.add_argument("--ironic-venv", type=Path, default=DEFAULT_VENV)
    p.add_argument("--metalwire-bin", default=str(REPO / ".venv" / "bin" / "metalwire"))
    p.add_argument(
        "--metalwire-arg",
        action="append",
        default=[],
        help="extra argument for `metalwire serve` (repeatable)",
    )
    p.add_argument(
        "--metalwire-workers",
        type=int,
        default=1,
        help="[api] api_workers of the target 'metalwire' only (the target 'before' keeps "
        "its default: --before-src pointing at this checkout compares worker counts)",
    )
    p.add_argument("--metalwire-url", help="use this running metalwire instead of starting one")
    p.add_argument(
        "--before-src",
        help="the src/ directory of an older checkout, served as the target 'before' "
        "(e.g. git worktree add /tmp/old COMMIT; --before-src /tmp/old/src)",
    )
    p.add_argument("--start-timeout", type=float, default=60.0)
    p.add_argument("--workdir", help="where runs, logs and data go (default .bench/compare-*)")
    p.add_argument("--keep-data", action="store_true", help="keep each server's data dir")
    args = p.parse_args()
    unknown = set(args.targets) - set(TARGETS)
    if unknown:
        p.error(f"unknown targets: {', '.join(sorted(unknown))}")
    args.ironic_venv = args.ironic_venv.resolve()

    def interrupted(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    # SIGTERM unwinds like Ctrl-C, so the server of the current run is stopped.
    signal.signal(signal.SIGTERM, interrupted)
    summary = Runner(args).run()
    text = json.dumps(summary, indent=2)
    (Path(summary["output_dir"]) / "summary.json").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
