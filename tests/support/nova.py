"""The real Nova ironic driver in its own venv, driven over a line protocol.

:class:`NovaDriver` starts ``tests/nova/nova_driver.py`` with the Nova venv's Python
(``$METALWIRE_NOVA_VENV`` or ``.venv-nova``, made by scripts/install-nova) and sends it one
JSON command per call; the driver makes its Bare Metal API calls over HTTP to the server.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from types import TracebackType
from typing import Any

REPO = Path(__file__).resolve().parents[2]
VENV_ENV_VAR = "METALWIRE_NOVA_VENV"
SCRIPT = REPO / "tests" / "nova" / "nova_driver.py"


def nova_python() -> Path | None:
    venv = Path(os.environ.get(VENV_ENV_VAR) or REPO / ".venv-nova")
    python = venv / "bin" / "python"
    return python if python.exists() else None


class NovaError(Exception):
    """The driver raised: ``error`` is the exception's class name."""

    def __init__(self, error: str, message: str, trace: str) -> None:
        super().__init__(f"{error}: {message}\n{trace}")
        self.error = error
        self.message = message


class NovaDriver:
    def __init__(
        self,
        python: Path,
        url: str,
        host: str,
        log: Path,
        shard: str | None = None,
        conductor_group: str | None = None,
    ) -> None:
        """``shard`` and ``conductor_group``: Nova's ``[ironic] shard`` and ``conductor_group``,
        which limit the nodes this compute service manages."""
        self._log = log.open("ab")
        group = [] if conductor_group is None else [conductor_group]
        self._process = subprocess.Popen(
            [
                str(python),
                str(SCRIPT),
                url,
                host,
                *([shard or ""] if shard or group else []),
                *group,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        ready = self._read()
        assert ready == {"ok": True, "result": "ready"}, ready

    def _read(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the Nova driver process exited ({self._process.poll()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def call(self, op: str, **args: Any) -> Any:
        """Run one driver operation; raise NovaError with the driver's exception if it fails."""
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self._process.stdin.flush()
        answer = self._read()
        if not answer["ok"]:
            raise NovaError(answer["error"], answer["message"], answer["traceback"])
        return answer["result"]

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(20)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(5)
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._log.close()

    def __enter__(self) -> NovaDriver:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
