"""VIF cycles/s of noauth, keystone and keystonemiddleware with a cached token, in one run.

Starts a real Keystone (``tests/support/keystone.py``), one server per mode on fresh SQLite
files and a system-admin token, then runs ``bench/run.py`` against them in alternation
(noauth, keystone, keystonemiddleware, noauth, ...) so that the machine's drift hits all:

- ``noauth``: ``metalwire serve`` without authentication;
- ``keystone``: ``metalwire serve`` with ``auth_strategy = keystone`` (metalwire's own cached
  validator, policy enforced);
- ``keystonemiddleware``: the same configuration served by ``bench/serve_with_bridge.py``,
  where keystonemiddleware's ``auth_token`` filter validates the token behind a WSGI hop
  (its in-process cache; policy enforced).

Before the rounds each authenticating server must answer 401 to a bad token. Prints a table
(median cycles/s, min-max over the rounds, ratio of the medians to noauth) on stderr, JSON on
stdout.

    METALWIRE_KEYSTONE_VENV=... python bench/auth_compare.py --rounds 3 --duration 8
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from procs import Process, free_port  # noqa: E402

from tests.support.keystone import KeystoneServer  # noqa: E402
from tests.support.server import MetalwireServer  # noqa: E402

PASSWORD = "bench-secret"
MODES = ("noauth", "keystone", "keystonemiddleware")
BAD_TOKEN = "not-a-token-keystone-issued"


def _cycles(url: str, token: str, args: argparse.Namespace, label: str) -> float:
    command = [sys.executable, str(ROOT / "bench" / "run.py"), "--url", url, "--label", label]
    command += ["--nodes", str(args.nodes), "--concurrency", str(args.concurrency)]
    command += ["--duration", str(args.duration), "--phases", "setup,cycles,cleanup"]
    command += ["--name-prefix", f"bench-{label}"]
    if token:
        command += ["--token", token]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    summary = json.loads(done.stdout)
    return float(summary["cycles"][str(args.concurrency)]["cycles_per_s"])


@contextlib.contextmanager
def bridged_server(data_dir: Path, env: dict[str, str]) -> Iterator[str]:
    """``bench/serve_with_bridge.py serve`` on a free loopback port; yields its URL."""
    data_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    argv = [sys.executable, str(ROOT / "bench" / "serve_with_bridge.py"), "serve"]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)]
    argv += ["--log-level", "warning"]
    server = Process(
        name="metalwire (keystonemiddleware bridge)",
        argv=argv,
        log_path=data_dir / "server.log",
        url=f"http://127.0.0.1:{port}",
        env={**{k: v for k, v in os.environ.items() if not k.startswith("METALWIRE_")}, **env},
    )
    server.start()
    try:
        server.wait_ready(timeout=60)
        yield server.url
    finally:
        server.stop()


def check_refuses_bad_token(mode: str, url: str) -> None:
    """A bad token must get 401 with a Keystone challenge, or the figures mean nothing."""
    resp = httpx.get(f"{url}/v1/nodes", headers={"X-Auth-Token": BAD_TOKEN}, timeout=30)
    challenge = resp.headers.get("www-authenticate", "")
    if resp.status_code != 401 or not challenge.startswith("Keystone"):
        raise SystemExit(
            f"{mode} answered {resp.status_code} (WWW-Authenticate {challenge!r}) to a bad "
            f"token, not 401: {resp.text[:300]}"
        )
    print(f"{mode}: a bad token gets 401 ({resp.text[:120]})", file=sys.stderr, flush=True)


def summarise(figures: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    medians = {mode: statistics.median(values) for mode, values in figures.items()}
    base = medians.get("noauth")
    return {
        mode: {
            "median": round(medians[mode], 1),
            "min": round(min(values), 1),
            "max": round(max(values), 1),
            **({"over_noauth": round(medians[mode] / base, 3)} if base else {}),
        }
        for mode, values in figures.items()
    }


def table(summary: dict[str, dict[str, float]], concurrency: int) -> str:
    lines = [
        f"{'mode':<20} {'cycles/s c' + str(concurrency):>14} {'min-max':>15} {'/noauth':>8}",
    ]
    for mode, row in summary.items():
        spread = f"{row['min']:.1f}-{row['max']:.1f}"
        ratio = f"{row['over_noauth']:.3f}" if "over_noauth" in row else "-"
        lines.append(f"{mode:<20} {row['median']:>14.1f} {spread:>15} {ratio:>8}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument(
        "--modes",
        default=",".join(MODES),
        help=f"comma-separated, in the order of each round (default {','.join(MODES)})",
    )
    args = parser.parse_args()
    modes = [mode for mode in args.modes.split(",") if mode]
    unknown = sorted(set(modes) - set(MODES))
    if unknown:
        parser.error(f"--modes: unknown {', '.join(unknown)}; choose from {', '.join(MODES)}")
    root = Path(tempfile.mkdtemp(prefix="metalwire-auth-bench-"))
    figures: dict[str, list[float]] = {mode: [] for mode in modes}
    with KeystoneServer() as keystone:
        project = keystone.project("service")
        service_user = keystone.user("metalwire", PASSWORD)
        keystone.grant(service_user, "service", project)
        admin = keystone.user("bench-admin", PASSWORD)
        keystone.grant(admin, "admin")
        token = keystone.token("bench-admin", PASSWORD, system=True)
        keystone_env = {
            "METALWIRE_AUTH_STRATEGY": "keystone",
            "METALWIRE_KEYSTONE_AUTHTOKEN_AUTH_URL": keystone.url,
            "METALWIRE_KEYSTONE_AUTHTOKEN_USERNAME": "metalwire",
            "METALWIRE_KEYSTONE_AUTHTOKEN_PASSWORD": PASSWORD,
            "METALWIRE_KEYSTONE_AUTHTOKEN_PROJECT_NAME": "service",
        }
        quiet = {"METALWIRE_CONDUCTOR_NODE_LOCK_WAIT": "30"}
        with contextlib.ExitStack() as servers:
            urls: dict[str, str] = {}
            if "noauth" in modes:
                urls["noauth"] = servers.enter_context(
                    MetalwireServer(root / "noauth", env=quiet)
                ).url
            if "keystone" in modes:
                urls["keystone"] = servers.enter_context(
                    MetalwireServer(root / "keystone", env={**quiet, **keystone_env})
                ).url
            if "keystonemiddleware" in modes:
                urls["keystonemiddleware"] = servers.enter_context(
                    bridged_server(root / "keystonemiddleware", {**quiet, **keystone_env})
                )
            for mode in modes:
                if mode != "noauth":
                    check_refuses_bad_token(mode, urls[mode])
            for round_ in range(args.rounds):
                for mode in modes:
                    sent = "" if mode == "noauth" else token
                    figures[mode].append(_cycles(urls[mode], sent, args, f"{mode}{round_}"))
                done = ", ".join(f"{mode} {figures[mode][-1]:.1f}" for mode in modes)
                print(f"round {round_ + 1}: {done} cycles/s", file=sys.stderr, flush=True)
    summary = summarise(figures)
    print(table(summary, args.concurrency), file=sys.stderr, flush=True)
    result: dict[str, Any] = {
        "concurrency": args.concurrency,
        "duration_s": args.duration,
        "rounds": figures,
        "median_cycles_per_s": {mode: row["median"] for mode, row in summary.items()},
        "spread_cycles_per_s": {mode: [row["min"], row["max"]] for mode, row in summary.items()},
        "over_noauth": {
            mode: row["over_noauth"]
            for mode, row in summary.items()
            if mode != "noauth" and "over_noauth" in row
        },
        "load_avg_1min_at_end": round(os.getloadavg()[0], 2),
    }
    if "keystone" in result["over_noauth"]:  # the name earlier runs printed
        result["keystone_over_noauth"] = result["over_noauth"]["keystone"]
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
