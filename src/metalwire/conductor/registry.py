"""The conductor registry: this server's row in ``conductors``, as Ironic's conductors keep
theirs.

Every ``metalwire serve`` is a whole conductor; the workers of one share its ``[DEFAULT]
host`` and one row, which the first worker keeps (``services.WorkerPlace``). At start the
server registers the host with the hardware types it enables; every ``[conductor]
heartbeat_interval`` seconds it touches the row; a clean stop marks it offline. A conductor
is alive while its row is online and its last heartbeat is younger than ``[conductor]
heartbeat_timeout`` (``db/conductors.py: is_alive``): one killed shows ``alive: false`` once
the timeout has passed.

A server that finds its host's row online at start takes the row over and says so, as
Ironic's conductor does: either the last run did not stop cleanly, or another server runs
with the same host (a mistake: they then share one row, and whichever stops marks both
offline until the other's next heartbeat).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from metalwire.conductor.periodic import Periodic
from metalwire.db import conductors as conductor_db
from metalwire.db import outage
from metalwire.db.conductors import Previous
from metalwire.db.engine import Database
from metalwire.db.models import Conductor
from metalwire.errors import MetalwireError

LOG = logging.getLogger(__name__)

Clock = Callable[[], dt.datetime]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass(frozen=True)
class Registry:
    """This server's registration: its host, its hardware types and conductor group."""

    db: Database
    hostname: str
    drivers: tuple[str, ...]
    heartbeat_interval: float
    heartbeat_timeout: float
    group: str = ""
    clock: Clock = utcnow

    def register(self) -> None:
        """Record this server as running; a row found online is taken over, with a warning
        saying whether another server may be running under the same host."""
        now = self.clock()

        def register() -> Previous | None:
            with self.db.writing() as work:
                return work.conductors.register(self.hostname, self.drivers, self.group, now)

        previous = outage.retrying(register)  # servers starting together may deadlock
        if previous is None or not previous.online:
            LOG.info("Registered as conductor %s (%s)", self.hostname, ", ".join(self.drivers))
            return
        age = None if previous.updated_at is None else (now - previous.updated_at).total_seconds()
        if age is not None and age <= self.heartbeat_timeout:
            LOG.warning(
                "Conductor %s was registered and alive (last heartbeat %.0f s ago): another "
                "server may be running with [DEFAULT] host %s; this one takes over the "
                "registration, and both now keep one row. Give each server its own host.",
                self.hostname,
                age,
                self.hostname,
            )
        else:
            LOG.warning(
                "Conductor %s was registered and did not stop cleanly; updating its registration",
                self.hostname,
            )

    def heartbeat(self) -> None:
        """Touch this server's row; register again if the row is gone (deleted by hand)."""

        def touch() -> bool:
            with self.db.writing() as work:
                return work.conductors.touch(self.hostname, self.clock())

        try:
            touched = outage.retrying(touch)
        except MetalwireError as exc:  # the database is away: the next heartbeat tries again
            LOG.warning("Conductor %s could not write its heartbeat: %s", self.hostname, exc)
            return
        if not touched:
            LOG.warning("Conductor %s had no registration; registering again", self.hostname)
            self.register()

    def unregister(self) -> None:
        """Mark this server stopped (a clean stop); a failure is logged, not raised."""
        try:
            with self.db.writing() as work:
                work.conductors.unregister(self.hostname, self.clock())
        except MetalwireError as exc:
            LOG.warning("Conductor %s could not mark itself offline: %s", self.hostname, exc)
            return
        LOG.info("Conductor %s is offline", self.hostname)

    def periodic_heartbeat(self) -> Periodic:
        return Periodic(
            self.heartbeat_interval,
            self.heartbeat,
            name="conductor heartbeat",
            thread_name="metalwire-heartbeat",
        )

    def is_alive(self, row: Conductor) -> bool:
        return conductor_db.is_alive(row, self.clock(), self.heartbeat_timeout)

    def serving(self, rows: Sequence[Conductor]) -> Serving:
        """Who serves which hardware type, from the registered ``rows``: the alive ones, and
        this server, which is answering, with the hardware types it enables."""
        by_driver: dict[str, set[str]] = {driver: {self.hostname} for driver in self.drivers}
        for row in rows:
            if row.hostname != self.hostname and self.is_alive(row):
                for driver in row.drivers:
                    by_driver.setdefault(str(driver), set()).add(row.hostname)
        return Serving(
            self.hostname, {driver: tuple(sorted(hosts)) for driver, hosts in by_driver.items()}
        )


@dataclass(frozen=True)
class Serving:
    """The alive conductors of each hardware type, as the server answering sees them.

    metalwire has no hash ring: whichever server a request reaches does the work, on any
    node of a hardware type it enables. So a node's ``conductor`` is the server answering
    when it enables the node's hardware type, else the first alive conductor (by host name)
    that does, else none (:meth:`conductor_of`); the node list's ``conductor`` filter keeps
    the nodes whose ``conductor`` that is (:meth:`drivers_of`).
    """

    hostname: str  # the server answering
    by_driver: dict[str, tuple[str, ...]]  # hardware type -> alive hosts enabling it, sorted

    @property
    def drivers(self) -> list[str]:
        """The hardware types some alive conductor enables: this server's in its order, then
        the others'."""
        return list(self.by_driver)

    def hosts(self, driver: str) -> list[str]:
        return list(self.by_driver.get(driver, ()))

    def conductor_of(self, driver: str) -> str | None:
        """The conductor a node of hardware type ``driver`` is served by (see above)."""
        hosts = self.by_driver.get(driver, ())
        if self.hostname in hosts:
            return self.hostname
        return hosts[0] if hosts else None

    def drivers_of(self, hostname: str) -> list[str]:
        """The hardware types whose nodes ``hostname`` serves (see above)."""
        return [driver for driver in self.by_driver if self.conductor_of(driver) == hostname]
