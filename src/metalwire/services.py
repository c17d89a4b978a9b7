"""Wires the in-process services: the database, the node locks and the conductor with its
network interfaces, behind the local RPC API.

The layers meet here, above all of them: ``api/app.py`` serves the services it is given
and calls this when it is given none; the tests build theirs here too.
"""

from __future__ import annotations

from metalwire import metrics
from metalwire.api.app_services import Services
from metalwire.conductor.locks import NodeLocks, make_holder_name
from metalwire.conductor.rpcapi import LocalConductorAPI
from metalwire.conductor.tasks import Conductor
from metalwire.config import Config
from metalwire.db import migrations
from metalwire.db.engine import Database
from metalwire.networking.loader import NetworkInterfaces


def build_services(config: Config, upgrade_schema: bool = True) -> tuple[Services, NodeLocks]:
    """The in-process services: database, conductor and its locks, behind the local RPC API.

    The caller owns what it gets: on shutdown it releases the locks and disposes of the
    database. ``upgrade_schema`` first creates or upgrades the schema (Alembic).
    """
    db = Database(config.database_url(), config.database.pool_size)
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
    )
    return Services(config=config, db=db, rpcapi=LocalConductorAPI(conductor)), locks
