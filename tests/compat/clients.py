"""Running the ``baremetal`` and ``openstack baremetal`` programs against a server."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support import preforked

CLI_TIMEOUT_S = 60.0


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def random_mac() -> str:
    """A locally administered unicast MAC address."""
    return ":".join(f"{b:02x}" for b in (0x02, *secrets.token_bytes(5)))


def installed_program(name: str) -> str:
    """A console script installed next to the running interpreter."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        raise FileNotFoundError(f"{name} is not installed in {path.parent}")
    return str(path)


@dataclass(frozen=True)
class CliResult:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def describe(self) -> str:
        return (
            f"$ {' '.join(self.args)}\nexit {self.returncode} after {self.seconds:.1f} s\n"
            f"--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"
        )

    def json(self) -> Any:
        assert self.returncode == 0, self.describe()
        return json.loads(self.stdout)


class Cli:
    """One client program: ``baremetal ...`` or ``openstack ... baremetal ...``.

    Global options go before the command: no authentication, the server's URL as the
    endpoint, optionally a fixed API version and any ``options`` of the program.
    """

    def __init__(
        self,
        program: str,
        endpoint: str,
        env: dict[str, str],
        api_version: str | None = None,
        options: Sequence[str] = (),
    ) -> None:
        self.program = program
        self.endpoint = endpoint
        self.env = env
        self.api_version = api_version
        self.options = tuple(options)

    def at(self, api_version: str) -> Cli:
        """The same program, asking for ``api_version`` instead of negotiating."""
        return Cli(self.program, self.endpoint, self.env, api_version, self.options)

    def argv(self, args: Sequence[str]) -> list[str]:
        argv = [installed_program(self.program), "--os-auth-type", "none"]
        argv += ["--os-endpoint", self.endpoint, *self.options]
        if self.api_version is not None:
            argv += ["--os-baremetal-api-version", self.api_version]
        if self.program == "openstack":
            argv.append("baremetal")
        return [*argv, *args]

    def run(self, *args: str) -> CliResult:
        """The program run with ``args``: a process of its own, forked from one that has
        imported the program (``tests/support/preforked.py``)."""
        argv = self.argv(args)
        started = time.monotonic()
        done = preforked.run(argv, self.env, CLI_TIMEOUT_S)
        took = time.monotonic() - started
        return CliResult(argv, done.returncode, done.stdout, done.stderr, took)

    def run_exec(self, *args: str) -> CliResult:
        """The program run with ``args`` in a new interpreter, as a shell runs it."""
        argv = self.argv(args)
        started = time.monotonic()
        done = subprocess.run(
            argv,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        took = time.monotonic() - started
        return CliResult(argv, done.returncode, done.stdout, done.stderr, took)

    def ok(self, *args: str) -> CliResult:
        result = self.run(*args)
        assert result.returncode == 0, result.describe()
        return result

    def json(self, *args: str) -> Any:
        return self.run(*args, "-f", "json").json()

    def run_all(self, *commands: Sequence[str]) -> list[CliResult]:
        """Several independent commands at once; results in the order given."""
        return run_all(*((self, command) for command in commands))


def run_all(*calls: tuple[Cli, Sequence[str]]) -> list[CliResult]:
    """Independent commands of possibly different programs, run at once, in order given."""
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(lambda call: call[0].run(*call[1]), calls))
