"""The API reference's examples (``docs/api-ref/examples``) are what this server answers: each
exchange is made again against a real ``metalwire serve`` and compared with its recorded file,
request ids, timestamps and generated UUIDs aside. A change that alters an answer the
reference shows fails here until ``docs/api-ref/generate_examples.py`` records it again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_example_of_the_api_reference_is_still_answered_as_recorded() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "api-ref" / "generate_examples.py"), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr[-4000:]
    assert result.stdout.strip().endswith("examples as recorded")
