"""Upstream Ironic 39 for the differential tests: where its venv is, and how to start it.

The server itself is ``bench/upstream_ironic.py``'s ``IronicServer`` (the single ``ironic``
process, SQLite, noauth, fake-hardware, the noop and flat network interfaces), so the bench
and the tests run the same configuration. Ironic comes from the venv made by
``scripts/install-ironic`` (``.venv-ironic`` in the repository, or ``$METALWIRE_IRONIC_VENV``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
INSTALL_SCRIPT = "scripts/install-ironic"
VENV_ENV_VAR = "METALWIRE_IRONIC_VENV"

if str(REPO / "bench") not in sys.path:
    sys.path.insert(0, str(REPO / "bench"))

from upstream_ironic import CONFIG as IRONIC_CONFIG  # noqa: E402
from upstream_ironic import IRONIC_VERSION, IronicServer, installed_version  # noqa: E402

__all__ = [
    "IRONIC_CONFIG",
    "IRONIC_VERSION",
    "IronicServer",
    "default_venv",
    "ironic_installed",
    "run_in_ironic",
]


def default_venv() -> Path:
    return Path(os.environ.get(VENV_ENV_VAR) or REPO / ".venv-ironic")


def ironic_installed(venv: Path) -> bool:
    return installed_version(venv) == IRONIC_VERSION


def run_in_ironic(script: str, given: Any = None) -> Any:
    """What ``script`` prints as JSON, run by the Ironic venv's Python with ``given`` as JSON
    on its standard input: Ironic's own code as the reference of a rule. Skips (fails in CI)
    when Ironic is not installed."""
    from tests.support.helpers import skip_or_fail

    venv = default_venv()
    if not ironic_installed(venv):
        skip_or_fail(
            f"Ironic is not installed in {venv}: run {INSTALL_SCRIPT} first "
            f"(or point {VENV_ENV_VAR} at a venv it made)"
        )
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script],
        input=json.dumps(given),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout)
