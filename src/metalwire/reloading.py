"""Files the server reads again without a restart: on SIGHUP, and when they change on disk.

Whoever reads a file that an operator edits under a running server (the htpasswd and
personas files, the policy file; the trait-based networking file once it exists) registers
a :class:`Reloadable`: the paths to watch and a ``load`` callable that reads them anew and
swaps the new contents in, or raises :class:`~metalwire.errors.Invalid` (or OSError) saying
why it cannot, leaving the old contents in use. The :class:`Reloader` logs what was
reloaded, or why the old contents were kept. Nothing else restarts: open connections and
requests under way go on.

Shared by every layer like :mod:`metalwire.metrics`; it imports nothing of metalwire's.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

LOG = logging.getLogger(__name__)

# What a file looks like on disk: changed when any of these change; None when it is absent.
FileState = tuple[int, int, int] | None


def _state(path: str) -> FileState:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)


@dataclass
class Reloadable:
    """``name`` as the log says it (e.g. ``[oslo_policy] policy_file /etc/...``); ``load``
    returns a short summary of what it read (``3 users``)."""

    name: str
    paths: Sequence[str]
    load: Callable[[], str]
    _seen: list[FileState] = field(default_factory=list)

    def changed(self) -> bool:
        now = [_state(path) for path in self.paths]
        if now == self._seen:
            return False
        self._seen = now
        return True


class Reloader:
    """Reloads its files on :meth:`request` (the SIGHUP handler's call) and, every
    ``interval`` seconds (0: never), those whose files changed."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._items: list[Reloadable] = []
        self._lock = threading.Lock()  # one round at a time
        self._wake = threading.Event()
        self._everything = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def register(self, item: Reloadable) -> None:
        item.changed()  # what it looks like now, as it was just read
        self._items.append(item)

    def request(self) -> None:
        """Reload every file soon, from the watching thread (safe in a signal handler)."""
        self._everything = True
        self._wake.set()

    def check(self, everything: bool = False) -> list[str]:
        """One round: reload the changed files (every file with ``everything``); the log
        lines it wrote, for the caller's interest."""
        lines: list[str] = []
        with self._lock:
            if everything and not self._items:
                lines.append("SIGHUP: no file to reload")
                LOG.info(lines[-1])
            for item in self._items:
                changed = item.changed()
                if not (changed or everything):
                    continue
                why = "on SIGHUP" if everything else "changed on disk"
                try:
                    summary = item.load()
                except Exception as exc:  # whatever the reader refuses, the old contents stay
                    lines.append(f"kept the previous {item.name} ({why}): {exc}")
                    LOG.warning(lines[-1])
                else:
                    lines.append(f"reloaded {item.name} ({why}): {summary}")
                    LOG.info(lines[-1])
        return lines

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="file-reloads", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.interval or None)
            self._wake.clear()
            if self._stop.is_set():
                return
            everything, self._everything = self._everything, False
            self.check(everything)
