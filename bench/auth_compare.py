"""VIF cycles/s of noauth against keystone with a cached token (policy enforced), in one run.

Starts a real Keystone (``tests/support/keystone.py``), one ``metalwire serve`` per strategy
on fresh SQLite files, a system-admin token, then runs ``bench/run.py`` against the two in
alternation (noauth, keystone, noauth, keystone, ...) so that the machine's drift hits both.

    METALWIRE_KEYSTONE_VENV=... python bench/auth_compare.py --rounds 3 --duration 8
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.keystone import KeystoneServer  # noqa: E402
from tests.support.server import MetalwireServer  # noqa: E402

PASSWORD = "bench-secret"


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--nodes", type=int, default=20)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="metalwire-auth-bench-"))
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
        with (
            MetalwireServer(root / "noauth", env=quiet) as noauth,
            MetalwireServer(root / "keystone", env={**quiet, **keystone_env}) as keyed,
        ):
            figures: dict[str, list[float]] = {"noauth": [], "keystone": []}
            for round_ in range(args.rounds):
                figures["noauth"].append(_cycles(noauth.url, "", args, f"noauth{round_}"))
                figures["keystone"].append(_cycles(keyed.url, token, args, f"keystone{round_}"))
                print(
                    f"round {round_ + 1}: noauth {figures['noauth'][-1]:.1f} cycles/s, "
                    f"keystone {figures['keystone'][-1]:.1f} cycles/s",
                    file=sys.stderr,
                    flush=True,
                )
    medians = {name: statistics.median(values) for name, values in figures.items()}
    result = {
        "concurrency": args.concurrency,
        "duration_s": args.duration,
        "rounds": figures,
        "median_cycles_per_s": medians,
        "keystone_over_noauth": round(medians["keystone"] / medians["noauth"], 3),
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
