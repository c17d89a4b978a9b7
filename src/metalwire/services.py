"""Wires the in-process services: the database, the node locks and the conductor with its
network interfaces, behind the local RPC API.

The layers meet here, above all of them: ``api/app.py`` serves the services it is given
and calls this when it is given none; the tests build theirs here too.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from metalwire import hardware_types, metrics
from metalwire.conductor import inspection_hooks
from metalwire.conductor.audit import AuditReport
from metalwire.conductor.audit_runner import LatestAudit
from metalwire.conductor.boot import warn_about_unpaired_ramdisks
from metalwire.conductor.locks import NodeLocks, make_holder_name
from metalwire.conductor.periodic import Periodic
from metalwire.conductor.registry import Registry
from metalwire.conductor.rpcapi import ConductorAPI, LocalConductorAPI
from metalwire.conductor.tasks import Conductor
from metalwire.config import Config
from metalwire.context import RequestContext
from metalwire.db import migrations
from metalwire.db import nodes as node_db
from metalwire.db.engine import Database
from metalwire.errors import MetalwireError
from metalwire.networking.loader import NetworkInterfaces
from metalwire.networking.tbn.settings import RulesInForce, configured_rules

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkerPlace:
    """A process's place among the workers of one ``metalwire serve`` (``[api] api_workers``):
    its index, and the directory the supervisor made for what they share."""

    index: int
    shared_dir: Path

    @property
    def runs_periodic_tasks(self) -> bool:
        """The first worker runs the periodic audit and provision state check for all (one
        run per interval), and keeps the server's conductor registration (one row)."""
        return self.index == 0


@dataclass
class Services:
    """What the REST layer is given: reads from the database, writes via the RPC API."""

    config: Config
    db: Database
    rpcapi: ConductorAPI
    # This server's place in the conductor registry (GET /v1/conductors).
    registry: Registry
    # The latest drift audit of every node, for operators and the metrics endpoint.
    audit: LatestAudit = field(default_factory=LatestAudit)
    # The trait-based networking rules in force, shared with the conductor (rules None:
    # the feature is off); a reload swaps them.
    tbn: RulesInForce = field(default_factory=RulesInForce)
    # Whether this process runs the periodic audit and provision state check and keeps the
    # conductor registration: one worker of several does.
    runs_periodic_tasks: bool = True

    def audited_nodes(self, ident: str | None) -> list[str]:
        """The UUIDs of the nodes to audit: the one named (404 if none), or every node."""
        with self.db.read() as session:
            if ident is not None:
                return [node_db.get(session, ident).uuid]
            return node_db.all_uuids(session)

    def audit_everything(self, context: RequestContext) -> AuditReport:
        """Audit every node and keep the report as the latest."""
        report = self.rpcapi.audit(context, self.audited_nodes(None))
        self.audit.record(report)
        return report

    def periodic_audit(self) -> Periodic | None:
        """The periodic audit ``[conductor] audit_interval`` asks for, or None (0, or no
        enabled network interface can take part: no Neutron for ``flat`` and ``neutron``, no
        switch for ``ironic-networking``)."""
        interval = self.config.conductor.audit_interval
        if interval <= 0 or not self.runs_periodic_tasks:
            return None
        unavailable = self.rpcapi.audit_unavailable()
        if unavailable is not None:
            LOG.warning(
                "[conductor] audit_interval is %g s, but the periodic drift audit does not run: %s",
                interval,
                unavailable,
            )
            return None
        return Periodic(
            interval,
            lambda: self.audit_everything(RequestContext()),
            name="drift audit",
            thread_name="metalwire-audit",
        )

    def periodic_provision_check(self) -> Periodic | None:
        """The provision state check every ``[conductor] check_provision_state_interval``
        seconds: waits past ``deploy_callback_timeout`` / ``clean_callback_timeout``, and nodes
        an interrupted operation left in a transient state or with a power change under way.
        None in a worker that does not run the periodic jobs."""
        if not self.runs_periodic_tasks:
            return None
        return Periodic(
            self.config.conductor.check_provision_state_interval,
            self._check_provision_states,
            name="provision state check",
            thread_name="metalwire-provision-check",
        )

    def periodic_heartbeat(self) -> Periodic | None:
        """The conductor heartbeat, in the process that keeps the registration (the only
        one, or the first worker), which registers first; None in the others."""
        if not self.runs_periodic_tasks:
            return None
        self.registry.register()
        return self.registry.periodic_heartbeat()

    def resume_timed_waits(self) -> None:
        """At start, in the process that runs the provision check: go on with the timed
        ``wait`` steps this conductor's earlier process (or a conductor no longer alive)
        left waiting."""
        if not self.runs_periodic_tasks:
            return
        try:
            self.rpcapi.resume_timed_waits(RequestContext(), at_start=True)
        except MetalwireError as exc:  # the database is away: the provision check tries again
            LOG.warning("The timed wait steps left waiting do not go on now: %s", exc)

    def _check_provision_states(self) -> None:
        context = RequestContext()
        self.rpcapi.fail_expired_waits(context)
        self.rpcapi.resume_timed_waits(context, at_start=False)
        self.rpcapi.fail_stuck_nodes(context)


def build_services(
    config: Config, upgrade_schema: bool = True, worker: WorkerPlace | None = None
) -> tuple[Services, NodeLocks]:
    """The in-process services: database, conductor and its locks, behind the local RPC API.

    The caller owns what it gets: on shutdown it releases the locks and disposes of the
    database. ``upgrade_schema`` first creates or upgrades the schema (Alembic). A
    ``worker`` of several shares the latest audit with the others.
    """
    hardware_types.check_configuration(config.default)  # as Ironic's conductor refuses
    warn_about_unpaired_ramdisks(config)
    inspection_hooks.enabled_hooks(config.inspector)  # as Ironic's conductor refuses
    tbn = RulesInForce(configured_rules(config.conductor))  # an invalid file stops the start
    db = Database.configured(config.database_url(), config.database)
    try:
        return _services_on(db, config, tbn, upgrade_schema, worker)
    except BaseException:
        db.dispose()  # what the schema upgrade opened, when a later step refuses the start
        raise


def _services_on(
    db: Database,
    config: Config,
    tbn: RulesInForce,
    upgrade_schema: bool,
    worker: WorkerPlace | None,
) -> tuple[Services, NodeLocks]:
    if upgrade_schema:
        migrations.upgrade(db.engine)
    locks = NodeLocks(
        db,
        make_holder_name(config.default.host),
        config.conductor.node_lock_lease,
        config.conductor.node_lock_wait,
    )
    conductor = Conductor(
        db=db,
        config=config,
        interfaces=NetworkInterfaces(config),
        locks=locks,
        lock_waited=metrics.observe_lock_wait if config.metrics.enabled else None,
        tbn=tbn,
    )
    services = Services(
        config=config,
        db=db,
        rpcapi=LocalConductorAPI(conductor),
        registry=Registry(
            db,
            config.default.host,
            tuple(dict.fromkeys(config.default.enabled_hardware_types)),
            config.conductor.heartbeat_interval,
            config.conductor.heartbeat_timeout,
        ),
        audit=LatestAudit(worker.shared_dir / "latest-audit.json" if worker else None),
        tbn=tbn,
        runs_periodic_tasks=worker is None or worker.runs_periodic_tasks,
    )
    return services, locks
