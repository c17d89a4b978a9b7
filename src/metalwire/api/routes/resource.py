"""The flows nodes, ports, portgroups, chassis, deploy templates, allocations and runbooks
share: list, show, get, and patch.

Each of ``routes/{nodes,ports,portgroups,chassis,deploy_templates,allocations,runbooks}.py``
declares one
:class:`Resource`: its fields, its repository's read and list, its views, its policy checks
and its RPC update. What is a resource's own (a node's parent and secrets, a port's legacy
``extra/vif_port_id``) comes in as the hooks below; the order of the checks, and so which
error a request gets when several apply, is the flows' and the same for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy.orm import Session

from metalwire.api import validation
from metalwire.api.fields import Field
from metalwire.api.jsonpatch import apply_patch
from metalwire.api.routes import authz
from metalwire.api.routes.common import (
    Call,
    collection,
    detail_requested,
    fields_param,
    page,
    read_suffixed,
    until_unchanged,
)
from metalwire.api.views import check_sort_key, selected_fields
from metalwire.db.models import (
    Allocation,
    Chassis,
    DeployTemplate,
    Node,
    Port,
    Portgroup,
    Runbook,
)
from metalwire.db.pagination import Page

Row = TypeVar("Row", Node, Port, Portgroup, Chassis, DeployTemplate, Allocation, Runbook)

# Narrows a list to one node's or one portgroup's members: reads the owner (404 when the
# requester cannot see it), returns the filter.
Scope = Callable[[Session], dict[str, Any]]

Document = dict[str, Any]

# The bodies of rows: (call, the read session, rows, field names, with sub-resource links).
Views = Callable[[Call, Session, Sequence[Row], list[str], bool], list[Document]]


def _unchanged(changes: Document, _current: Document) -> Document:
    return changes


def _no_checks(_c: Call, _found: Any, _current: Document, _changes: Document) -> None:
    return None


def _no_patch_checks(_c: Call, _patch: Any) -> None:
    return None


def _project_of_lister(c: Call, kind: str) -> str | None:
    return authz.list_project(c, kind)


def _no_rowless_checks(_c: Call, _action: str) -> None:
    return None


@dataclass(frozen=True)
class Resource(Generic[Row]):
    """One resource of the API, as its list, show, get and patch flows need it."""

    kind: str  # the noun of its policy rules: baremetal:<kind>:list
    collection: str  # the key of its list body, as the path: "nodes"
    fields: tuple[Field, ...]
    list_fields: tuple[str, ...]  # what a list shows without ?fields= or detail
    mandatory: tuple[str, ...]  # what a patch may not remove
    read: Callable[[Session, str], Row]  # by UUID or name; raises the resource's NotFound
    list_rows: Callable[[Session, dict[str, Any], Page], Sequence[Row]]
    views: Views[Row]
    # The list's filters from the query, given what a nested list is below: the filter its
    # scope stands in for ("node" below a node, "portgroup" below a portgroup, "chassis"),
    # None for a top-level list.
    filters: Callable[[Call, str | None], dict[str, Any]]
    # The policy checks of a read and of a patch (call, session, row, ident[, patch]):
    # a row the requester cannot see is its NotFound (404), a rule refused a 403.
    authorize_get: Callable[[Call, Session, Row, str], None]
    authorize_patch: Callable[[Call, Session, Row, str, Any], None]
    # The document a patch applies to, with the values the compare-and-swap expects.
    current: Callable[[Call, Session, Row], Document]
    # The RPC update: (call, UUID, changes, expected values); StaleUpdate on a race.
    update: Callable[[Call, str, Document, Document], Row]
    # The changes ready to store (formats checked and normalised), after ``expected``.
    prepare: Callable[[Call, Row, Document], Document]
    # The changes without the masks a client sent back for stored values (a node's secrets).
    unmasked: Callable[[Document, Document], Document] = _unchanged
    # Checks of the checked changes against the current document (a port's move).
    check_changes: Callable[[Call, Row, Document, Document], None] = _no_checks
    # Checks of the patch's own operations, where a value set whole has rules of its own
    # (a node's network_data).
    check_patch: Callable[[Call, Any], None] = _no_patch_checks
    # Whether the patch rules depend on the patch (a node's, by field): then only visibility
    # is decided before the body is read (:meth:`authorize_before_body`), else the patch rule.
    patch_rules_read_body: bool = False
    project_filter: str = "node_project"  # the list filter the policy's project goes in
    # Shown as UUIDs but stored as row ids: not compared for concurrent changes.
    owner_fields: frozenset[str] = frozenset()
    # The project a list is narrowed to (None: everything), after the list's policy checks
    # (call, kind): by default the ``list_all`` and ``list`` rules of ``kind``.
    list_scope: Callable[[Call, str], str | None] = _project_of_lister
    # The policy checks that need no row (call, "get" or "update"): a resource whose rules
    # are system-wide (chassis) decides them before the row is read, as Ironic does, so a
    # refused requester (403) learns nothing of which rows exist.
    authorize_before_read: Callable[[Call, str], None] = _no_rowless_checks
    # Whether a stripped ``.json`` suffix may be part of the ident (:func:`common.read_suffixed`).
    json_suffix: bool = False

    def list_view(
        self,
        c: Call,
        detail_path: bool,
        scope: Scope | None = None,
        parent: str | None = None,
    ) -> Document:
        """The body of a list: all of them, or those ``scope`` narrows to (the members of
        one ``parent``: a node's, a portgroup's or a chassis's)."""
        detail = detail_requested(c, detail_path)
        wanted = fields_param(c)
        fields = selected_fields(
            self.fields, c.version, wanted, None if detail else self.list_fields
        )
        p = page(c)
        check_sort_key(self.fields, c.version, p.sort_key)
        filters = self.filters(c, parent)
        with c.services.db.read() as session:
            if scope is not None:
                filters.update(scope(session))
            project = self.list_scope(c, self.kind)
            if project is not None:
                asked = filters.get(self.project_filter)
                if asked is not None and asked != project:
                    # Another project's nodes: only list_all may ask (Ironic's answer).
                    authz.policy(c).authorize(f"baremetal:{self.kind}:list_all", authz.identity(c))
                filters[self.project_filter] = project
            rows = self.list_rows(session, filters, p)
            views = self.views(c, session, rows, fields, detail and wanted is None)
        return collection(c, self.collection, rows, views, p.limit)

    def show(self, c: Call, row: Row) -> Document:
        """One row as the request's version and ``?fields=`` show it."""
        with c.services.db.read() as session:
            return self._shown(c, session, row)

    def _shown(self, c: Call, session: Session, row: Row) -> Document:
        wanted = fields_param(c)
        fields = selected_fields(self.fields, c.version, wanted, None)
        return self.views(c, session, [row], fields, wanted is None)[0]

    def _read(self, c: Call, session: Session, ident: str) -> Row:
        if self.json_suffix:
            return read_suffixed(c, session, ident, self.read)
        return self.read(session, ident)

    def get(self, c: Call, ident: str) -> Document:
        self.authorize_before_read(c, "get")
        with c.services.db.read() as session:  # the row and what its view reads: one read
            row = self._read(c, session, ident)
            self.authorize_get(c, session, row, ident)
            return self._shown(c, session, row)

    def authorize_before_body(self, c: Call, ident: str) -> None:
        """What a patch of ``ident`` is refused for before its body is read: the row must be
        visible (404) and, where the rule does not depend on the patch, allowed (403). The
        patch flow checks again with the patch in hand. Free when the policy is off."""
        if not authz.policy(c).enabled:
            return
        self.authorize_before_read(c, "update")
        with c.services.db.read() as session:
            row = self._read(c, session, ident)
            if self.patch_rules_read_body:
                self.authorize_get(c, session, row, ident)  # who may see it
            else:
                self.authorize_patch(c, session, row, ident, None)

    def patch(self, c: Call, ident: str, body: Any) -> tuple[Row, Document]:
        """Apply a JSON patch with compare-and-swap, again while another writer gets in
        between; returns the stored row and the changes the patch made."""
        self.authorize_before_read(c, "update")

        def attempt() -> tuple[Row, Document]:
            with c.services.db.read() as session:
                row = self._read(c, session, ident)
                # Who may see it (404) and change it (403) before what the patch says (400, 406).
                self.authorize_patch(c, session, row, ident, body)
                current = self.current(c, session, row)
            self.check_patch(c, body)
            changes = apply_patch(current, body, self.fields, c.version, mandatory=self.mandatory)
            changes = validation.checked_patch(self.unmasked(changes, current), self.fields)
            if not changes:  # nothing to store (an empty patch): the row as it is, as Ironic
                return row, changes
            self.check_changes(c, row, current, changes)
            expected = {k: current[k] for k in changes if k not in self.owner_fields}
            stored = self.update(c, row.uuid, self.prepare(c, row, changes), expected)
            return stored, changes

        return until_unchanged(attempt)
