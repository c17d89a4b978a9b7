"""schemathesis against a real ``metalwire serve``, on SQLite and on PostgreSQL.

Every operation of ``/openapi.json`` is tried with generated requests (its examples, the
coverage phase's boundary and invalid values, random fuzzing, and stateful sequences that follow
the document's links: create a node, then show, patch, delete it, put ports on it...). Each
response must not be a 5xx and must conform to the document: a documented status code, the
documented content type, headers and body schema. The run is deterministic (the same requests
every time) and bounded by the number of examples per operation.

Before it starts, ``seed.py`` creates a resource of each kind the document's paths name, and
``hooks.py`` points most generated path parameters at them, so that the requests reach the
checks behind the 404 (which requests name what, and how the deleting ones are kept from the
others: ``hooks.py``).
"""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz.hooks import SEEDED_ENV
from tests.fuzz.seed import seed
from tests.support.postgres import PostgresServer
from tests.support.server import MetalwireServer

ROOT = Path(__file__).resolve().parents[2]
CONFIG = Path(__file__).with_name("schemathesis.toml")
CHECKS = ",".join(
    (
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
    )
)
# Examples per operation and phase: about 30,000 requests in all (most of them the coverage
# phase's, which is not bounded by it), two to four minutes per database here.
MAX_EXAMPLES = 25
TIMEOUT = 600
_ACCESS = re.compile(r"metalwire\.api\.access \S+ \S+ (\d{3}) ")


def run_schemathesis(server: MetalwireServer, work_dir: Path) -> None:
    seeded = work_dir / "seeded.json"
    seeded.write_text(json.dumps(seed(server.url).as_json()))
    seeding_log = len(server.log())
    command = [
        *(sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "--no-color"),
        *("run", f"{server.url}/openapi.json", "--checks", CHECKS),
        *("--max-examples", str(MAX_EXAMPLES), "--generation-deterministic"),
        # NUL characters are refused (400) before anything else is checked: without them the
        # generated values reach the rules behind.
        *("--generation-allow-x00", "false"),
        *("--workers", "1", "--max-failures", "20"),
    ]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join((str(ROOT / "src"), str(ROOT))),
        "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks",
        SEEDED_ENV: str(seeded),
        "PYTHONIOENCODING": "utf-8",
        "COLUMNS": "120",
    }
    result = subprocess.run(
        command, cwd=work_dir, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    statuses = collections.Counter(m[1] for m in _ACCESS.finditer(server.log()[seeding_log:]))
    summary = ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items()))
    print(f"\nschemathesis sent {statuses.total()} requests: {summary}")
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not [s for s in statuses if s.startswith("5")], summary
    assert statuses.total() > 1000, "the run sent too few requests to matter"


@pytest.mark.server
@pytest.mark.slow
def test_schemathesis_finds_nothing_on_sqlite(tmp_path: Path) -> None:
    with MetalwireServer(tmp_path / "data") as server:
        run_schemathesis(server, tmp_path)


@pytest.mark.server
@pytest.mark.slow
@pytest.mark.postgresql
def test_schemathesis_finds_nothing_on_postgresql(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    url = postgres_server.create_database("metalwire_fuzz")
    with MetalwireServer(tmp_path / "data", database=url) as server:
        run_schemathesis(server, tmp_path)
