"""Operations that go on after the request that started them has been answered.

A provision verb on a node whose network interface calls an external service can take long:
a switch's login and its commands, Neutron's bindings. As Ironic does, the request is
answered (202) once the verb is accepted, i.e. its checks passed and the node shows the
verb's transient state (``deploying``, ``cleaning``, ...); the rest runs in a thread of its
own that keeps holding the node's lease. A step that fails then moves the node to the verb's
failed state with ``last_error``, as it would have inside the request.

At shutdown the service waits for these operations, ``[DEFAULT] graceful_shutdown_timeout``
seconds at most; one still running then is cut short with its process. Its lease is not
released but left to run out (no other process takes the node while the thread may still
write), and then the provision check (``conductor/stuck_states.py``) fails its node.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable

from metalwire.errors import MetalwireError, NoFreeConductorWorker

LOG = logging.getLogger(__name__)

#: An operation run in the background: it calls its argument once it is accepted.
Operation = Callable[[Callable[[], None]], None]


class BackgroundOperations:
    """The operations of this process still running after their request was answered."""

    def __init__(self, limit: int = 300) -> None:
        self._guard = threading.Lock()
        self._running: dict[threading.Thread, str] = {}
        self._limit = limit  # [conductor] workers_pool_size
        self._stopping = threading.Event()

    def start(self, name: str, operation: Operation) -> None:
        """Run ``operation(accept)`` in a thread of its own and return when it calls
        ``accept`` or ends, whichever comes first. An error raised before ``accept`` is
        raised here (the request fails with it); one raised after is logged. The thread
        keeps the caller's context (the request id of its log lines). Refused with
        :class:`NoFreeConductorWorker`, nothing run, when ``limit`` operations are under way
        or no thread can be started."""
        accepted = threading.Event()
        refused: list[BaseException] = []

        def run() -> None:
            try:
                operation(accepted.set)
            except BaseException as exc:
                if not accepted.is_set():
                    refused.append(exc)
                elif isinstance(exc, MetalwireError):  # says what happened; no traceback
                    LOG.error("%s failed after it was accepted: %s", name, exc)
                else:
                    LOG.exception("%s failed after it was accepted", name)
            finally:
                with self._guard:
                    del self._running[thread]
                accepted.set()

        context = contextvars.copy_context()
        thread = threading.Thread(target=context.run, args=(run,), name=name, daemon=True)
        with self._guard:
            if len(self._running) >= self._limit:
                raise NoFreeConductorWorker(
                    f"Cannot run {name} now: this process already runs {self._limit} "
                    "operations ([conductor] workers_pool_size); retry later."
                )
            self._running[thread] = name  # before it starts: it removes itself when it ends
        try:
            thread.start()
        except RuntimeError as exc:  # no thread to be had: the request fails, nothing runs
            with self._guard:
                del self._running[thread]
            LOG.warning("No thread for %s: %s", name, exc)
            raise NoFreeConductorWorker(
                f"Cannot run {name} now: no thread could be started for it ({exc}); retry later."
            ) from exc
        except BaseException:
            with self._guard:
                del self._running[thread]
            raise
        accepted.wait()
        if refused:
            raise refused[0]

    def pause(self, seconds: float) -> bool:
        """Sleep ``seconds`` in an operation's thread (a ``wait`` step); False if the process
        began to stop meanwhile, which ends the pause at once: the operation then goes no
        further, and the stop need not wait for the pause to run out."""
        return not self._stopping.wait(seconds)

    def running(self) -> list[str]:
        """The names of the operations under way."""
        with self._guard:
            return sorted(self._running.values())

    def wait(self, timeout: float) -> list[str]:
        """Wait for the operations under way to end, ``timeout`` seconds at most (0: without
        end); the names of those still running then. Pauses under way end now (:meth:`pause`)."""
        self._stopping.set()
        deadline = None if timeout == 0 else time.monotonic() + timeout
        while True:
            with self._guard:
                threads = list(self._running)
            if not threads:
                return []
            if deadline is None:
                threads[0].join()
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                left = self.running()
                if not left:
                    return []
                LOG.warning(
                    "Still under way after %g s, cut short: %s; the provision check fails "
                    "their nodes once their leases run out",
                    timeout,
                    "; ".join(left),
                )
                return left
            threads[0].join(remaining)
