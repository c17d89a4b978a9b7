"""Runs one installed program many times, each run a fresh process forked from this one.

``python -P prefork_server.py DIRECTORY PROGRAM`` reads requests from its standard input, one
JSON object per line: ``{"id": 1, "argv": [...], "env": {...}, "cwd": dir, "stdout": path,
"stderr": path}``, and optionally ``"append": true`` (the output files are appended to, not
emptied; ``stderr`` may be ``stdout``'s path) and ``"session": true`` (the child leads a new
session, as ``Popen(start_new_session=True)``). For each it forks a child that takes ``env``
as its whole environment, ``cwd`` as its directory, ``/dev/null`` as its standard input and
the two files as its output, then runs PROGRAM as ``__main__`` with ``argv``: the program
users run, unmodified. PROGRAM is a console script's path, or ``-m`` and a module name, run
as ``python -m`` runs it (the directory first on the module path). It answers
``{"id": 1, "pid": 4242}`` at once and ``{"id": 1, "returncode": 0}`` when the child ends
(negative: the signal that ended it).

What makes it fast: each child lists the modules it imported in DIRECTORY (an empty one, which
this process removes when it ends), and this process imports them before its next fork, so the
next children start with them loaded (they would spend most of their time importing
otherwise). A child lists them when it ends and, since a server never ends by itself and dies
by the signal that stops it (no ``finally`` runs then), also while it runs: 1, 2, 4 ... 32 s
after its start. What a program works out lazily from the installed distributions, the same
in every run, is worked out here once (``_INSTALL_CACHES``). And what it has imported is
frozen out of the cyclic garbage collector's generations before each fork (``gc.freeze()``,
as the ``gc`` documentation advises for a process that forks without ``exec``): a child's
collections then pass over the inherited objects instead of writing to each, which would copy
every page of the inherited heap into the child (about 150 ms of CPU a run for the OpenStack
clients, 50 ms for the ``metalwire`` program). Standard library only; ``-P``
keeps this file's folder out of the children's module path.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import re
import runpy
import shutil
import site
import sys
import threading
import time
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


def entry_modules(program: list[str]) -> list[str]:
    """The module run as ``-m``, or those the console script imports its entry point from
    (``from X import main``)."""
    if program[0] == "-m":
        return [program[1]]
    return re.findall(r"^from (\S+) import ", Path(program[0]).read_text(), re.MULTILINE)


def preload(listed: Path, program: list[str]) -> None:
    """Import what the children listed in ``listed`` imported (in their order), skipping what
    cannot be imported again; but not the entry point's module, which each child imports as
    the program would: it may read ``sys.argv`` when imported
    (``def main(argv=sys.argv[1:])``)."""
    for modules_file in sorted(listed.iterdir()):
        if modules_file.suffix == ".partial":  # being written
            continue
        for name in modules_file.read_text().split():
            if name not in sys.modules:
                # A module made at run time cannot be imported, and some refuse a second one.
                with contextlib.suppress(BaseException):
                    importlib.import_module(name)
        modules_file.unlink()
    for name in entry_modules(program):
        sys.modules.pop(name, None)
        parent, _, child = name.rpartition(".")
        if parent in sys.modules and hasattr(sys.modules[parent], child):
            delattr(sys.modules[parent], child)


def pth_files() -> set[tuple[str, str]]:
    """The ``.pth`` files of the site directories, which the interpreter reads at its start."""
    return {
        (directory, name)
        for directory in site.getsitepackages()
        if os.path.isdir(directory)
        for name in os.listdir(directory)
        if name.endswith(".pth")
    }


_read_pth_files = pth_files()  # read by the interpreter at this process's start


def pick_up_new_installs() -> None:
    """See what was installed since, as a new interpreter would: the module finders' caches
    dropped, and the new ``.pth`` files (editable installs) read."""
    importlib.invalidate_caches()
    for directory, name in sorted(pth_files() - _read_pth_files):
        site.addpackage(directory, name, None)
        _read_pth_files.add((directory, name))


def _fill_cliff(command: Any) -> None:
    """cliff (``baremetal``, ``openstack``) maps every importable package to its distribution
    for each command's help epilog, reading every installed distribution's file list: about
    0.2 s of CPU, more than the rest of a listing run."""
    command._dists_by_mods = None
    command._get_distributions_by_modules()


def _fill_stevedore(cache: Any) -> None:
    """stevedore reads its entry-point cache, a JSON file of every installed entry point, the
    first time a program loads plugins: about 0.08 s of CPU. It keeps what it read by module
    path, and reads again for another module path."""
    cache._c._internal.clear()
    cache._c._get_data_for_path(None)


#: What a program works out lazily from the installed distributions alone, the same in every
#: run: filled here, once, before the forks, and again after an install (module, filler).
_INSTALL_CACHES = (("cliff.command", _fill_cliff), ("stevedore._cache", _fill_stevedore))
_filled_for: dict[str, tuple[int, ...]] = {}


def site_directories_state() -> tuple[int, ...]:
    """The site directories' modification times: an install or removal changes them."""
    return tuple(
        os.stat(directory).st_mtime_ns
        for directory in site.getsitepackages()
        if os.path.isdir(directory)
    )


def fill_install_caches() -> None:
    """Fill the caches of :data:`_INSTALL_CACHES` of the modules imported here, again after
    an install changed the site directories."""
    state = site_directories_state()
    for module_name, fill in _INSTALL_CACHES:
        module = sys.modules.get(module_name)
        if module is None or _filled_for.get(module_name) == state:
            continue
        with contextlib.suppress(Exception):  # a version that keeps it otherwise fills its own
            fill(module)
        _filled_for[module_name] = state


def become_child(request: dict[str, Any], program: list[str], listed: Path) -> None:
    """In the forked child: the request's environment, session, directory, files and
    arguments; then the program."""
    if request.get("session"):
        os.setsid()
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    opened = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if request.get("append") else os.O_TRUNC)
    stdin = os.open(os.devnull, os.O_RDONLY)
    stdout = os.open(request["stdout"], opened, 0o600)
    stderr = (
        stdout
        if request["stderr"] == request["stdout"]
        else os.open(request["stderr"], opened, 0o600)
    )
    for descriptor, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(descriptor, target)
    for descriptor in {stdin, stdout, stderr}:
        os.close(descriptor)
    # This process read its requests through sys.stdin: the child's starts unread.
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.__stdin__ = sys.stdin  # type: ignore[misc]  # Final in typeshed; some programs read it
    sys.argv = list(request["argv"])
    inherited = set(sys.modules)
    listing = _ImportLister(listed, inherited)
    try:
        if program[0] == "-m":
            sys.path.insert(0, os.getcwd())  # as ``python -m`` puts it
            runpy.run_module(program[1], run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(program[0], run_name="__main__")
    finally:  # what this run imported, for the server to import before the next fork
        listing.write()


class _ImportLister:
    """Lists in ``listed`` what a child imported beyond what it inherited: when asked, and
    from a daemon thread at 1, 2, 4 ... 32 s (a server runs until a signal ends it)."""

    def __init__(self, listed: Path, inherited: set[str]) -> None:
        self.listed = listed
        self.inherited = inherited
        self.written = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._while_running, daemon=True).start()

    def _while_running(self) -> None:
        waited = 0
        for at in (1, 2, 4, 8, 16, 32):
            time.sleep(at - waited)
            waited = at
            self.write()

    def write(self) -> None:
        with self.lock:
            imported = [name for name in list(sys.modules) if name not in self.inherited]
            if len(imported) > self.written:  # the whole list again, under one name per child
                path = self.listed / str(os.getpid())
                partial = path.with_suffix(".partial")
                with contextlib.suppress(OSError):  # the server ended and removed the directory
                    partial.write_text("\n".join(imported))
                    partial.replace(path)
                    self.written = len(imported)


def serve(listed: Path, program: list[str]) -> None:
    """Fork a child per request; a child returns from here to run its request's program."""
    threading.Thread(target=reap, daemon=True).start()
    server = os.getpid()
    try:
        for line in sys.stdin:
            request = json.loads(line)
            # Before the fork, so that this process and the child see the same module path.
            pick_up_new_installs()
            preload(listed, program)  # what the children that ended imported
            fill_install_caches()
            # what the child inherits, out of its collections' walk (the docstring says why)
            gc.freeze()
            with _children_changed, _write_lock:  # no answer half-written in a child's stdout
                pid = os.fork()
                if pid == 0:
                    become_child(request, program, listed)
                    return
                _children[pid] = request["id"]
                _children_changed.notify()
            answer({"id": request["id"], "pid": pid})
    finally:
        if os.getpid() == server:  # a child ending (its program raised SystemExit) keeps it
            shutil.rmtree(listed, ignore_errors=True)


if __name__ == "__main__":
    listed, program = Path(sys.argv[1]), sys.argv[2:]
    sys.argv = [program[-1]]  # what a module that reads it when imported would see, in a child
    serve(listed, program)
