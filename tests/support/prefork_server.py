"""Runs one installed program many times, each run a fresh process forked from this one.

``python -P prefork_server.py PROGRAM`` reads requests from its standard input, one JSON
object per line: ``{"id": 1, "argv": [...], "env": {...}, "stdout": path, "stderr": path}``.
For each it forks a child that takes ``env`` as its whole environment, ``/dev/null`` as its
standard input and the two files as its output, then runs PROGRAM's console script as
``__main__`` with ``argv``: the program users run, unmodified. It answers
``{"id": 1, "pid": 4242}`` at once and ``{"id": 1, "returncode": 0}`` when the child ends
(negative: the signal that ended it).

What makes it fast: after the first child ends, this process imports the modules that child
imported, so the next children start with them loaded (they would spend most of their time
importing otherwise). Standard library only; ``-P`` keeps this file's folder out of the
children's module path.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
import runpy
import sys
import threading
from pathlib import Path
from typing import Any

_write_lock = threading.Lock()
_children: dict[int, int] = {}
_children_changed = threading.Condition()


def answer(message: dict[str, Any]) -> None:
    with _write_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def reap() -> None:
    """Answer each child's exit status as it ends."""
    while True:
        with _children_changed:
            while not _children:
                _children_changed.wait()
        pid, status = os.waitpid(-1, 0)
        with _children_changed:
            request_id = _children.pop(pid, None)
        if request_id is not None:
            answer({"id": request_id, "returncode": os.waitstatus_to_exitcode(status)})


def entry_modules(program: str) -> list[str]:
    """The modules the console script imports its entry point from (``from X import main``)."""
    return re.findall(r"^from (\S+) import ", Path(program).read_text(), re.MULTILINE)


def preload(modules_file: Path, program: str) -> None:
    """Import what a child imported (in its order), skipping what cannot be imported again;
    but not the entry point's module, which each child imports as the script would: it may
    read ``sys.argv`` when imported (``def main(argv=sys.argv[1:])``)."""
    try:
        names = modules_file.read_text().split()
    except OSError:
        return
    for name in names:
        if name not in sys.modules:
            # A module made at run time cannot be imported, and some refuse a second import.
            with contextlib.suppress(BaseException):
                importlib.import_module(name)
    for name in entry_modules(program):
        sys.modules.pop(name, None)
        parent, _, child = name.rpartition(".")
        if parent in sys.modules and hasattr(sys.modules[parent], child):
            delattr(sys.modules[parent], child)


def become_child(request: dict[str, Any], program: str, modules_file: Path | None) -> None:
    """In the forked child: the request's environment, files and arguments; then the program."""
    os.environ.clear()
    os.environ.update(request["env"])
    stdin = os.open(os.devnull, os.O_RDONLY)
    stdout = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    stderr = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for descriptor, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(descriptor, target)
        os.close(descriptor)
    sys.argv = list(request["argv"])
    try:
        runpy.run_path(program, run_name="__main__")
    finally:
        if modules_file is not None:
            modules_file.write_text("\n".join(list(sys.modules)))


def serve(program: str) -> dict[str, Any] | None:
    """Fork a child per request; in a child, return its request (the caller then runs it)."""
    threading.Thread(target=reap, daemon=True).start()
    modules_file: Path | None = Path(os.environ.get("TMPDIR", "/tmp")) / f"prefork-{os.getpid()}"
    for line in sys.stdin:
        request = json.loads(line)
        if modules_file is not None and modules_file.exists() and not _children:
            preload(modules_file, program)  # the first child has ended: its modules are listed
            modules_file.unlink()
            modules_file = None
        with _children_changed, _write_lock:  # no answer half-written in a child's stdout
            pid = os.fork()
            if pid == 0:
                become_child(request, program, modules_file if _children == {} else None)
                return None
            _children[pid] = request["id"]
            _children_changed.notify()
        answer({"id": request["id"], "pid": pid})
    return None


if __name__ == "__main__":
    program = sys.argv[1]
    sys.argv = [program]  # what a module that reads it when imported would see, in a child
    serve(program)
