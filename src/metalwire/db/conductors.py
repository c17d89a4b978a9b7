"""The conductor registry's repository: every statement on the ``conductors`` table.

Each ``metalwire serve`` (all the workers of one) keeps one row under its ``[DEFAULT] host``:
it registers at start, touches the row every ``[conductor] heartbeat_interval`` and marks it
offline when it stops cleanly. Whether a conductor is alive is decided by the reader, from
``online`` and the age of ``updated_at`` (:func:`is_alive`): the table holds a few rows, read
whole.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import select, true, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metalwire.db.models import Conductor
from metalwire.db.pagination import Page, paginate
from metalwire.errors import ConductorNotFound, InvalidParameterValue

# As Ironic: a list sorts by a column; ``alive`` and ``drivers`` are no sort keys.
SORTABLE = frozenset({"id", "hostname", "conductor_group", "online", "created_at", "updated_at"})
UNSORTABLE = frozenset({"alive", "drivers"})

SessionScope = Callable[[], contextlib.AbstractContextManager[Session]]


def aware(moment: dt.datetime) -> dt.datetime:
    """``moment`` in UTC (SQLite gives back the stored time without its zone)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def is_alive(row: Conductor, now: dt.datetime, timeout: float) -> bool:
    """Running, as Ironic decides it: not stopped cleanly, and a heartbeat within ``timeout``
    seconds of ``now``."""
    if not row.online or row.updated_at is None:
        return False
    return now - aware(row.updated_at) <= dt.timedelta(seconds=timeout)


def get(session: Session, hostname: str) -> Conductor:
    """The conductor registered as ``hostname``, alive or not; ConductorNotFound (404)."""
    row = session.scalars(select(Conductor).where(Conductor.hostname == hostname)).one_or_none()
    if row is None:
        raise ConductorNotFound(hostname)
    return row


def list_conductors(session: Session, page: Page) -> list[Conductor]:
    """One page of the conductors, alive or not; the marker is a host name."""
    if page.sort_key in UNSORTABLE:
        raise InvalidParameterValue(
            f"The sort_key value {page.sort_key} is an invalid field for sorting"
        )
    rows: list[Conductor] = paginate(
        session,
        select(Conductor),
        Conductor,
        page,
        set(SORTABLE),
        ConductorNotFound,
        marker_column=Conductor.hostname,
    )
    return rows


def all_conductors(session: Session) -> Sequence[Conductor]:
    """Every registered conductor, by host name."""
    return session.scalars(select(Conductor).order_by(Conductor.hostname)).all()


@dataclass(frozen=True)
class Previous:
    """What a registration found in the host's row before it: whether the row said the
    conductor was running, and its last heartbeat."""

    online: bool
    updated_at: dt.datetime | None


class Conductors:
    """The conductors table, bound to a unit of work's session."""

    def __init__(self, session: SessionScope) -> None:
        self._session = session

    def register(
        self, hostname: str, drivers: Sequence[str], group: str, now: dt.datetime
    ) -> Previous | None:
        """Record ``hostname`` as running now with ``drivers``, creating its row or taking
        over the one there (as Ironic does, also from a conductor that did not stop); what
        the row said before, None for a new one."""
        with self._session() as session:
            query = select(Conductor).where(Conductor.hostname == hostname).with_for_update()
            row = session.scalars(query).one_or_none()
            if row is None:
                new = Conductor(
                    hostname=hostname,
                    conductor_group=group,
                    drivers=list(drivers),
                    online=True,
                    created_at=now,
                    updated_at=now,
                )
                try:
                    with session.begin_nested():
                        session.add(new)
                    return None
                except IntegrityError:  # another server registered the host meanwhile
                    row = session.scalars(query).one()
            heartbeat = None if row.updated_at is None else aware(row.updated_at)
            previous = Previous(row.online, heartbeat)
            row.drivers = list(drivers)
            row.conductor_group = group
            row.online = True
            row.updated_at = now
            return previous

    def alive(self, now: dt.datetime, timeout: float) -> set[str]:
        """The host names of the conductors alive at ``now`` (:func:`is_alive`)."""
        with self._session() as session:
            return {row.hostname for row in all_conductors(session) if is_alive(row, now, timeout)}

    def touch(self, hostname: str, now: dt.datetime) -> bool:
        """The heartbeat: ``hostname`` runs at ``now``. False if it has no row."""
        with self._session() as session:
            statement = (
                update(Conductor)
                .where(Conductor.hostname == hostname)
                .values(updated_at=now, online=True)
                .execution_options(synchronize_session=False)
            )
            return bool(session.execute(statement).rowcount)  # type: ignore[attr-defined]

    def unregister(self, hostname: str, now: dt.datetime) -> bool:
        """Mark ``hostname`` stopped (a clean stop). False if it had no row online."""
        with self._session() as session:
            statement = (
                update(Conductor)
                .where(Conductor.hostname == hostname, Conductor.online == true())
                .values(online=False, updated_at=now)
                .execution_options(synchronize_session=False)
            )
            return bool(session.execute(statement).rowcount)  # type: ignore[attr-defined]
