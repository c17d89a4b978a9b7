"""Drive an ``EmulatedSwitch`` with networking-generic-switch's real device classes.

networking-generic-switch imports ``neutron_lib`` and pins its own dependencies, so the tests
use the copy in the Neutron venv (``scripts/install-neutron`` installs
networking-generic-switch 10.2.0 there): ``GenericSwitchRunner.run`` sends the operations to
``tests/support/generic_switch_runner.py`` running under that venv's interpreter, which builds
the device from the switch's SSH address and key and calls each method in turn.

Usage::

    runner = GenericSwitchRunner()
    device = device_config(load_switch_file(path)["tor-1"])  # metalwire.networking
    results = runner.run(device, [Operation("plug_port_to_network", ("swp1", 100))])
    results[0].seconds    # how long the SSH round trip took
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from metalwire.networking.generic_switch_workers import WORKER
from tests.support.neutron import INSTALL_SCRIPT, default_venv

__all__ = [
    "GenericSwitchRunner",
    "Operation",
    "OperationResult",
    "generic_switch_installed",
    "worker_servers",
]

_RUNNER = Path(__file__).resolve().parent / "generic_switch_runner.py"
NGS_VERSION = "10.2.0"


@dataclass(frozen=True)
class Operation:
    """One call of a networking-generic-switch device method."""

    method: str
    args: Sequence[Any] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OperationResult:
    method: str
    seconds: float
    output: str | None
    error: str | None


def generic_switch_installed(venv: Path) -> bool:
    """Whether ``venv`` holds networking-generic-switch at the release the tests expect."""
    found = venv.glob(
        f"lib/python3*/site-packages/networking_generic_switch-{NGS_VERSION}.dist-info"
    )
    return (venv / "bin" / "python").is_file() and any(found)


class GenericSwitchRunner:
    """Runs device operations with the networking-generic-switch of a venv."""

    def __init__(self, venv: Path | None = None) -> None:
        self.venv = venv or default_venv()

    @property
    def missing(self) -> str | None:
        """Why operations cannot run here, or None."""
        if generic_switch_installed(self.venv):
            return None
        return (
            f"networking-generic-switch {NGS_VERSION} is not in {self.venv}: "
            f"run {INSTALL_SCRIPT} (or point METALWIRE_NEUTRON_VENV at its venv)"
        )

    def run(
        self, device: Mapping[str, str], operations: Sequence[Operation], timeout: float = 120
    ) -> list[OperationResult]:
        """Call the operations in order on one device; stops after the first that raises."""
        request = {
            "device": dict(device),
            "operations": [
                {"method": op.method, "args": list(op.args), "kwargs": dict(op.kwargs)}
                for op in operations
            ],
        }
        completed = subprocess.run(
            [str(self.venv / "bin" / "python"), str(_RUNNER)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if completed.returncode != 0:
            raise RuntimeError(
                f"networking-generic-switch runner exited with {completed.returncode}:\n"
                f"{completed.stderr[-4000:]}"
            )
        return [
            OperationResult(
                method=item["method"],
                seconds=float(item["seconds"]),
                output=item.get("output"),
                error=item.get("error"),
            )
            for item in json.loads(completed.stdout)
        ]


def worker_servers(parent: int, under: Path) -> list[psutil.Process]:
    """The running switch worker servers (``generic_switch_worker.py serve SOCKET``) that are
    children of process ``parent`` and have their socket under ``under``."""
    return [
        child
        for child in psutil.Process(parent).children()
        if child.status() != psutil.STATUS_ZOMBIE
        and str(WORKER) in (cmdline := child.cmdline())
        and cmdline[-1].startswith(f"{under}/")
    ]
