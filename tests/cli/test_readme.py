"""The README's "Use it" commands, run as written (from the repository's root) against a real
``metalwire serve``: the ``metalwire`` program and the ``baremetal`` command it installs."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from tests.cli.conftest import clean_env
from tests.compat.clients import installed_program
from tests.support import preforked
from tests.support.server import MetalwireServer

ROOT = Path(__file__).resolve().parents[2]
README_URL = "http://127.0.0.1:6385"
pytestmark = pytest.mark.server


def use_it_commands() -> list[list[str]]:
    """Each command of the ``sh`` blocks of the README's "Use it" section, as argv."""
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Use it\n")[1].split("\n## ")[0]
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        for line in block.splitlines():
            argv = shlex.split(line, comments=True)
            if argv:
                commands.append(argv)
    return commands


@pytest.fixture
def server(tmp_path: Path) -> Iterator[MetalwireServer]:
    with MetalwireServer(tmp_path / "server") as started:
        yield started


def test_the_use_it_commands_work_as_written(server: MetalwireServer) -> None:
    env = clean_env()
    ran = []
    for argv in use_it_commands():
        argv = [arg.replace(README_URL, server.url) for arg in argv]
        program, args = argv[0], argv[1:]
        if program == "export":
            name, _, value = args[0].partition("=")
            env[name] = value
            continue
        if program == ".venv/bin/pip":
            # the package named provides the command the next line runs
            assert args[0] == "install", argv
            scripts = metadata.distribution(args[1]).entry_points.select(group="console_scripts")
            assert "baremetal" in scripts.names, argv
            continue
        if program == ".venv/bin/metalwire":
            run = [sys.executable, "-m", "metalwire.cli.main", *args]
        else:
            assert program == ".venv/bin/baremetal", argv
            run = [installed_program("baremetal"), *args]
        done = preforked.run(run, env, 60, cwd=ROOT)
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
        ran.append((args[:3], done.stdout))

    # the service is the one the README's URL names, and each step did what it says
    assert env["METALWIRE_URL"] == server.url
    said = dict((" ".join(args), out) for args, out in ran)
    assert "VIF tenant-vif-1 attached to portgroup" in said["node vif attach"]
    assert "tenant-vif-1" in said["node vif list"]
    assert "VIF tenant-vif-1 detached from" in said["node vif detach"]
    assert [args[:1] for args, _ in ran].count(["create"]) == 1
