"""Upstream Ironic 39 for the differential tests: where its venv is, and how to start it.

The server itself is ``bench/upstream_ironic.py``'s ``IronicServer`` (the single ``ironic``
process, SQLite, noauth, fake-hardware, the noop and flat network interfaces), so the bench
and the tests run the same configuration. Ironic comes from the venv made by
``scripts/install-ironic`` (``.venv-ironic`` in the repository, or ``$METALWIRE_IRONIC_VENV``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
INSTALL_SCRIPT = "scripts/install-ironic"
VENV_ENV_VAR = "METALWIRE_IRONIC_VENV"

if str(REPO / "bench") not in sys.path:
    sys.path.insert(0, str(REPO / "bench"))

from upstream_ironic import IRONIC_VERSION, IronicServer, installed_version  # noqa: E402

__all__ = ["IRONIC_VERSION", "IronicServer", "default_venv", "ironic_installed"]


def default_venv() -> Path:
    return Path(os.environ.get(VENV_ENV_VAR) or REPO / ".venv-ironic")


def ironic_installed(venv: Path) -> bool:
    return installed_version(venv) == IRONIC_VERSION
