"""A unit of work: one database transaction, with the repositories bound to it.

The conductor and the network interfaces never hold a connection, session or cursor. They get
a :class:`Work` from :meth:`metalwire.db.engine.Database.reading` or
:meth:`~metalwire.db.engine.Database.writing`, or, inside an operation on a node, use the
task's repositories, which open one. Each repository (``db/<noun>.py``) owns its statements:
the hot ones run on the DBAPI connection (:mod:`metalwire.db.statements`), inventory writes
through an ORM session joined to the same transaction, so both kinds commit or roll back
together.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from metalwire.db import volumes
from metalwire.db.allocations import Allocations
from metalwire.db.chassis import ChassisRows
from metalwire.db.conductors import Conductors
from metalwire.db.deploy_templates import DeployTemplates
from metalwire.db.history import History
from metalwire.db.inspection_data import InspectionRecords
from metalwire.db.models import VolumeConnector, VolumeTarget
from metalwire.db.node_inventory import NodeInventories
from metalwire.db.node_locks import NodeLockRows
from metalwire.db.nodes import Nodes
from metalwire.db.portgroups import Portgroups
from metalwire.db.ports import Ports
from metalwire.db.runbooks import Runbooks
from metalwire.db.statements import Sql
from metalwire.db.vifs import Attachments

# Opens an ORM session that joins the connection's transaction and flushes at the end.
SessionOn = Callable[[Connection], contextlib.AbstractContextManager[Session]]


class Work:
    """One transaction; its repositories are the only way to read or write through it."""

    def __init__(self, connection: Connection, session_on: SessionOn) -> None:
        self._connection = connection
        self._session_on = session_on
        self._sql = Sql(connection)

    # Each repository is made on first use: a unit of work uses one or two of them.
    @functools.cached_property
    def nodes(self) -> Nodes:
        return Nodes(self._sql, self._session)

    @functools.cached_property
    def ports(self) -> Ports:
        return Ports(self._sql, self._session)

    @functools.cached_property
    def portgroups(self) -> Portgroups:
        return Portgroups(self._sql, self._session)

    @functools.cached_property
    def attachments(self) -> Attachments:
        return Attachments(self._sql, self._session)

    @functools.cached_property
    def history(self) -> History:
        return History(self._sql, self._session)

    @functools.cached_property
    def node_inventories(self) -> NodeInventories:
        return NodeInventories(self._sql, self._session)

    @functools.cached_property
    def inspection_data(self) -> InspectionRecords:
        return InspectionRecords(self._sql, self._session)

    @functools.cached_property
    def node_locks(self) -> NodeLockRows:
        return NodeLockRows(self._sql, self._session)

    @functools.cached_property
    def chassis(self) -> ChassisRows:
        return ChassisRows(self._session)

    @functools.cached_property
    def deploy_templates(self) -> DeployTemplates:
        return DeployTemplates(self._session)

    @functools.cached_property
    def runbooks(self) -> Runbooks:
        return Runbooks(self._session)

    @functools.cached_property
    def allocations(self) -> Allocations:
        return Allocations(self._session)

    @functools.cached_property
    def conductors(self) -> Conductors:
        return Conductors(self._session)

    @functools.cached_property
    def volume_connectors(self) -> volumes.VolumeRepository[VolumeConnector]:
        return volumes.VolumeRepository(self._session, volumes.CONNECTORS)

    @functools.cached_property
    def volume_targets(self) -> volumes.VolumeRepository[VolumeTarget]:
        return volumes.VolumeRepository(self._session, volumes.TARGETS)

    @contextlib.contextmanager
    def _session(self) -> Iterator[Session]:
        self._sql.flush()  # the session's statements come after the writes held back
        with self._session_on(self._connection) as session:
            yield session

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[Any]:
        """Undo the block's writes if it raises, keeping the transaction usable."""
        self._sql.flush()
        with self._connection.begin_nested() as nested:
            try:
                yield nested
                self._sql.flush()
            except BaseException:
                self._sql.discard()  # the block's writes not sent yet go with the rest
                raise

    def before_commit(self) -> None:
        """Send the writes held back, with the COMMIT where the driver can (one round trip):
        the unit of work's last step before its transaction commits."""
        self._sql.send_with_commit()

    def flush(self) -> None:
        """Send the writes held back, now."""
        self._sql.flush()
