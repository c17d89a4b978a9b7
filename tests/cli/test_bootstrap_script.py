"""``scripts/bootstrap`` (what ``scripts/serve`` and ``scripts/test`` install with) installs
only when the venv lacks the install: missing, or made from another ``pyproject.toml``.

The script runs as it is in the repository, from a copy of the repository's layout, with a
stand-in Python (``PYTHON``) that logs each ``venv`` and ``pip`` call instead of reaching a
package index; a real install from a fresh clone is what the README's ``scripts/serve`` does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bootstrap"

# Logs its arguments; as ``-m venv DIR`` makes DIR/bin/python (itself), as ``-m pip`` writes
# the venv's ``metalwire`` command, unless FAKE_PIP_FAILS is set.
FAKE_PYTHON = """#!/bin/sh
echo "$*" >>"$FAKE_PYTHON_LOG"
if [ "$1" = -m ] && [ "$2" = venv ]; then
    mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0
fi
[ -z "${FAKE_PIP_FAILS:-}" ] || exit 1
printf '#!/bin/sh\\n' >"$(dirname "$0")/metalwire" && chmod +x "$(dirname "$0")/metalwire"
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copy2(SCRIPT, root / "scripts" / "bootstrap")
    (root / "pyproject.toml").write_text('[project]\nname = "metalwire"\ndependencies = []\n')
    python = tmp_path / "python3"
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    return root


def bootstrap(repo: Path, *args: str, **env: str) -> list[str]:
    """Run the script; the stand-in Python's calls it made."""
    log = repo.parent / "calls.log"
    log.unlink(missing_ok=True)
    base = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(repo.parent)}
    done = subprocess.run(
        [str(repo / "scripts" / "bootstrap"), *args],
        env={
            **base,
            "PYTHON": str(repo.parent / "python3"),
            "FAKE_PYTHON_LOG": str(log),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    if env.get("FAKE_PIP_FAILS"):
        assert done.returncode != 0, done.stderr
    else:
        assert done.returncode == 0, done.stderr
    return calls


INSTALL = "-m pip install --quiet --no-compile -e ."


def test_a_fresh_checkout_installs_and_the_next_start_does_not(repo: Path) -> None:
    calls = bootstrap(repo)
    assert calls == [
        "-m venv .venv",
        "-m pip install --quiet --upgrade pip",
        INSTALL,
    ]
    assert bootstrap(repo) == []
    assert bootstrap(repo) == []


def test_a_changed_pyproject_installs_again(repo: Path) -> None:
    bootstrap(repo)
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[]", '["pyyaml>=6"]'))
    assert bootstrap(repo) == [INSTALL]
    assert bootstrap(repo) == []


def test_an_extra_is_installed_once_and_covers_the_plain_install(repo: Path) -> None:
    bootstrap(repo)
    assert bootstrap(repo, "test") == [f"{INSTALL}[test]"]
    assert bootstrap(repo, "test") == []
    assert bootstrap(repo) == []


def test_a_failed_install_is_tried_again(repo: Path) -> None:
    bootstrap(repo)
    (repo / "pyproject.toml").write_text('[project]\nname = "metalwire"\nversion = "2"\n')
    assert bootstrap(repo, FAKE_PIP_FAILS="1") == [INSTALL]
    assert bootstrap(repo) == [INSTALL]
    assert bootstrap(repo) == []


def test_a_venv_without_metalwire_or_the_reinstall_switch_installs(repo: Path) -> None:
    bootstrap(repo)
    (repo / ".venv" / "bin" / "metalwire").unlink()
    assert bootstrap(repo) == [INSTALL]
    assert bootstrap(repo, METALWIRE_REINSTALL="1") == [INSTALL]
    assert bootstrap(repo) == []
