"""``/v1/runbooks`` (from API version 1.92) and ``/v1/runbooks/{runbook}/traits`` (1.112).

A runbook is a named list of clean or service steps, each placed by its ``order``, that a
``clean`` or ``service`` verb runs in place of its own steps (``routes/states.py``). It
belongs to a project (``owner``) or to the system; a public one belongs to none and every
project sees it. Its policy rules (``baremetal:runbook:*``) are decided on its owner, as
Ironic 39 decides them: who may not see it gets 403 (not 404). Below 1.92 the path does not
exist: a GET is 404 and any other method 405. From 1.112 a runbook has a description, may be
named by any logical name, and names the node traits that approve it (its ``traits``, changed
only through the traits sub-resource); below, its name is a trait and approves it alone. It
shares the list, show and patch flows of the other resources
(:mod:`metalwire.api.routes.resource`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api import steps as step_checks
from metalwire.api import validation
from metalwire.api.fields import LINK_FIELDS, RUNBOOK_FIELDS, RUNBOOK_LIST_FIELDS
from metalwire.api.jsonpatch import operations_at
from metalwire.api.openapi_operations import WRITE
from metalwire.api.route_docs import FIELDS, doc, item_docs, listing, lists
from metalwire.api.routes import authz
from metalwire.api.routes.before_body import patch_allowed
from metalwire.api.routes.common import (
    Call,
    JsonBody,
    call,
    list_filters,
    require_resource,
    until_unchanged,
)
from metalwire.api.routes.deploy_templates import uuid_or_name
from metalwire.api.routes.resource import Resource
from metalwire.api.routes.traits import check_trait
from metalwire.api.views import as_json, links
from metalwire.db import nodes as node_db
from metalwire.db import runbooks as runbook_db
from metalwire.db.models import Runbook
from metalwire.errors import (
    Invalid,
    InvalidParameterValue,
    MissingParameterValue,
    RouteNotFound,
)
from metalwire.redact import masked

router = APIRouter(prefix="/v1/runbooks")

_NOT_SERVED = "The API version does not allow runbooks"
_NO_TRAITS = "The API version does not allow runbook traits"
#: What a PATCH may change, as Ironic 39 lists it (``description`` from 1.112).
_PATCHABLE = ("disable_ramdisk", "extra", "name", "owner", "public", "steps")
#: A runbook's name from 1.112 (and in any PATCH): RFC 3986 unreserved characters, so that a
#: URL can name it.
_NAME = re.compile(r"^[A-Za-z0-9\-._~]{1,255}$")


def _served(request: Request) -> Call:
    c = call(request)
    _gate(c)
    return c


def _gate(c: Call) -> None:
    require_resource(c, mv.RUNBOOKS, _NOT_SERVED)


def _traits_served(request: Request) -> Call:
    """The traits sub-resource exists from 1.112; below, the path names nothing (404, any
    method, below 1.92 too: Ironic 39's router looks the sub-resource up first)."""
    c = call(request)
    if not c.version.at_least(mv.RUNBOOK_TRAITS):
        raise RouteNotFound(_NO_TRAITS)
    return c


def read(session: Session, ident: str) -> Runbook:
    """The runbook a path or a provision request names; 400 for a malformed name, 404."""
    return runbook_db.get(session, uuid_or_name(ident))


def _target(row: Runbook) -> dict[str, Any]:
    return {"runbook.owner": row.owner} if row.owner else {}


def authorize(c: Call, rule: str, row: Runbook) -> None:
    """``baremetal:runbook:<rule>`` on this runbook's owner; refused, 403 naming the rule."""
    authz.policy(c).authorize(f"baremetal:runbook:{rule}", authz.identity(c), _target(row))


def _authorize_get(c: Call, row: Runbook) -> None:
    """A runbook the get rule does not allow is still shown if it is public."""
    p = authz.policy(c)
    if row.public and not p.allows("baremetal:runbook:get", authz.identity(c), _target(row)):
        return
    authorize(c, "get", row)


def _authorize_patch(c: Call, row: Runbook, patch: Any) -> None:
    """What may be patched (400), the rules of the paths patched (``/owner`` and ``/public``
    have their own, anything else the update rule; 403), then whether an owner may be set
    (400), in Ironic 39's order."""
    if not isinstance(patch, list) or not all(isinstance(op, dict) for op in patch):
        authorize(c, "update", row)  # a malformed patch is the patch flow's 400
        return
    paths = [str(op.get("path", "")) for op in patch]
    allowed = _PATCHABLE + (("description",) if c.version.at_least(mv.RUNBOOK_TRAITS) else ())
    for path in paths:
        if path.split("/")[1:2] == [] or path.split("/")[1] not in allowed:
            raise Invalid(f"Cannot patch {path}: only {', '.join(allowed)} can be changed.")
    rules = {_path_rule(path) for path in paths}
    for rule in sorted(rules or {"update"}):
        authorize(c, rule, row)
    owners = _values(patch, "/owner")
    publics = _values(patch, "/public")
    if owners and ((row.public and not publics) or (publics and publics[0])):
        raise Invalid(
            f"Cannot patch runbook {row.uuid}: a public runbook has no owner; make it "
            "non-public in the same patch to give it one."
        )


def _path_rule(path: str) -> str:
    for field in ("owner", "public"):
        if path.startswith(f"/{field}"):
            return f"update:{field}"
    return "update"


def _values(patch: list[dict[str, Any]], path: str) -> list[Any]:
    return [op["value"] for op in operations_at(patch, path) if "value" in op]


def check_name(name: Any, version: mv.Version) -> str:
    """Below 1.112 a runbook's name is a trait; from it, any logical name."""
    if version.at_least(mv.RUNBOOK_TRAITS):
        if not isinstance(name, str) or not _NAME.match(name):
            raise InvalidParameterValue(
                f"Invalid runbook name {name!r}: 1 to 255 letters, digits and '-._~'."
            )
        return name
    try:
        return check_trait(name)
    except InvalidParameterValue as exc:
        raise InvalidParameterValue(f"Invalid runbook name: {exc}") from None


def normalize(values: dict[str, Any], version: mv.Version) -> dict[str, Any]:
    """The values of a create or a patch, checked and ready to store."""
    out = dict(values)
    if out.get("uuid") is not None:
        out["uuid"] = validation.uuid_value(out["uuid"], "uuid")
    if "name" in out:
        if out["name"] is None:
            raise MissingParameterValue("Field name cannot be null or removed.")
        out["name"] = check_name(out["name"], version)
    if "steps" in out:
        out["steps"] = step_checks.checked_step_set(
            step_checks.RUNBOOK, out["steps"], "runbook", "clean or service step"
        )
    for flag in ("public", "disable_ramdisk"):
        if flag in out and out[flag] is None:
            out[flag] = False
    if "extra" in out and out["extra"] is None:
        out["extra"] = {}
    validation.check_lengths(out, Runbook.__table__)
    return out


def _check_patched_flags(_c: Call, patch: Any) -> None:
    if isinstance(patch, list):
        _check_flags(
            {
                op["path"][1:]: op["value"]
                for op in patch
                if isinstance(op, dict) and op.get("path") in _FLAGS and "value" in op
            }
        )


_FLAGS = ("/public", "/disable_ramdisk")


def _check_flags(body: Any) -> None:
    """``public`` and ``disable_ramdisk`` are JSON booleans or null, in a create or a patch,
    as Ironic 39's schemas take them (a string spelling one is 400)."""
    if not isinstance(body, dict):
        return
    for flag in ("public", "disable_ramdisk"):
        if flag in body and body[flag] is not None and not isinstance(body[flag], bool):
            raise InvalidParameterValue(
                f"Invalid {flag}: expected true, false or null, got {body[flag]!r}."
            )


def _prepare(c: Call, _row: Runbook, changes: dict[str, Any]) -> dict[str, Any]:
    out = normalize(changes, mv.Version(mv.RUNBOOK_TRAITS))  # a PATCH names as 1.112 does
    if "public" in out and "owner" not in out:
        out["owner"] = None  # a runbook made public or not loses its owner, as in Ironic 39
    return out


def _with_owner(c: Call, values: dict[str, Any]) -> dict[str, Any]:
    """A requester who is not system scoped creates its own project's runbook, never a
    public one (400), as Ironic 39. Without a policy (``noauth``) the requester, as Ironic's,
    is of no project and not system scoped: it creates runbooks without an owner."""
    p, who = authz.policy(c), authz.identity(c)
    if p.enabled and who.system_scope == "all":
        return values
    project = who.project_id if p.enabled else None
    owner = values.get("owner")
    if owner and owner != project:
        raise Invalid(
            f"Cannot create a runbook owned by {owner!r} as a requester of project "
            f"{project!r}: the owner must be your own project."
        )
    if project and values.get("public"):
        raise Invalid("Cannot create a public runbook as a project scoped requester.")
    return {**values, "owner": project}


def _step_view(step: dict[str, Any]) -> dict[str, Any]:
    return {
        "interface": step["interface"],
        "step": step["step"],
        "args": masked(step.get("args") or {}),
        "order": step["order"],
    }


def _view(c: Call, row: Runbook, fields: list[str]) -> dict[str, Any]:
    values = {
        "uuid": row.uuid,
        "name": row.name,
        "description": row.description,
        "steps": [_step_view(step) for step in row.steps],
        "traits": sorted(row.traits),
        "disable_ramdisk": row.disable_ramdisk,
        "public": row.public,
        "owner": row.owner,
        "extra": row.extra,
        "created_at": as_json(row.created_at),
        "updated_at": as_json(row.updated_at),
    }
    body = {name: values[name] for name in fields if name not in LINK_FIELDS}
    body["links"] = links(c.base, "runbooks", row.uuid)
    return body


def _views(
    c: Call, _session: Session, rows: Sequence[Runbook], fields: list[str], _sub: bool
) -> list[dict[str, Any]]:
    return [_view(c, row, fields) for row in rows]


def _current(_c: Call, _session: Session, row: Runbook) -> dict[str, Any]:
    return {
        "uuid": row.uuid,
        "name": row.name,
        "description": row.description,
        "steps": row.steps,
        "disable_ramdisk": row.disable_ramdisk,
        "public": row.public,
        "owner": row.owner,
        "extra": row.extra,
    }


RUNBOOKS = Resource[Runbook](
    kind="runbook",
    collection="runbooks",
    fields=RUNBOOK_FIELDS,
    list_fields=RUNBOOK_LIST_FIELDS,
    mandatory=("name", "steps"),
    read=read,
    list_rows=lambda session, filters, page: runbook_db.list_runbooks(
        session, filters.get("owner"), page
    ),
    views=_views,
    filters=lambda c, _parent: list_filters(c, ()),
    authorize_get=lambda c, _session, row, _ident: _authorize_get(c, row),
    authorize_patch=lambda c, _session, row, _ident, patch: _authorize_patch(c, row, patch),
    patch_rules_read_body=True,
    check_patch=_check_patched_flags,
    current=_current,
    update=lambda c, uuid, changes, expected: c.services.rpcapi.update_runbook(
        c.context, uuid, changes, expected
    ),
    prepare=_prepare,
    project_filter="owner",
    authorize_before_read=lambda c, _action: _gate(c),
)


# As Ironic 39, no /detail list: ``detail`` there names a runbook.
_LIST, _ = lists(
    "listRunbooks",
    "runbooks",
    "runbooks",
    "RunbookList",
    listing((), set(runbook_db.SORTABLE)),
    since=mv.RUNBOOKS,
)
_DOCS = item_docs(
    "Runbook",
    "runbook",
    "runbooks",
    FIELDS,
    create_headers=bodies.LOCATION,
    links=bodies.RUNBOOK_LINKS,
    since=mv.RUNBOOKS,
    write_errors=(405,),  # below 1.92
)


@router.get("", openapi_extra=_LIST)
@router.get("/", openapi_extra=_LIST)
def list_runbooks(request: Request) -> dict[str, Any]:
    return RUNBOOKS.list_view(_served(request), detail_path=False)


@router.get("/{ident}", openapi_extra=_DOCS.show)
def get_runbook(request: Request, ident: str) -> dict[str, Any]:
    return RUNBOOKS.get(_served(request), ident)


@router.post("", status_code=201, openapi_extra=_DOCS.create)
def create_runbook(request: Request, response: Response, body: JsonBody = None) -> dict[str, Any]:
    c = _served(request)
    authz.policy(c).authorize("baremetal:runbook:create", authz.identity(c))
    _check_flags(body)
    values = validation.check_create_body(body, RUNBOOK_FIELDS, c.version, ())
    for name in ("name", "steps"):
        if name not in values:
            raise MissingParameterValue(f"Mandatory field missing: {name}.")
    stored = _with_owner(c, normalize(values, c.version))
    created = c.services.rpcapi.create_runbook(c.context, stored)
    response.headers["Location"] = f"{c.base}/v1/runbooks/{created.uuid}"
    return RUNBOOKS.show(c, created)


@router.patch("/{ident}", openapi_extra=_DOCS.patch)
def patch_runbook(
    request: Request,
    ident: str,
    _allowed: Annotated[None, patch_allowed(RUNBOOKS, "ident")],
    body: JsonBody = None,
) -> dict[str, Any]:
    c = _served(request)
    updated, _changes = RUNBOOKS.patch(c, ident, body)
    return RUNBOOKS.show(c, updated)


@router.delete("/{ident}", status_code=204, openapi_extra=_DOCS.delete)
def delete_runbook(request: Request, ident: str) -> Response:
    c = _served(request)
    with c.services.db.read() as session:
        row = read(session, ident)
    authorize(c, "delete", row)
    c.services.rpcapi.delete_runbook(c.context, row.uuid)
    return Response(status_code=204)


# -- a clean or service by runbook (1.92) -----------------------------------------------------

#: The verbs whose steps a runbook gives, and the key of those steps in the request.
RUNBOOK_VERBS = {"clean": "clean_steps", "service": "service_steps"}


def with_runbook_steps(c: Call, node_ident: str, verb: str, body: dict[str, Any]) -> RunbookUse:
    """The provision request with the steps of the runbook it names in place of its own, as
    Ironic 39 takes it: from 1.92 (406 below); the runbook found (400 for a malformed name,
    404) and ``baremetal:runbook:use`` allowed on it (403); approved for the node (400): from
    1.112 the node has one of the runbook's traits, below its name is one of the node's
    traits; no steps of the verb's own besides (400). Its ``disable_ramdisk``, true or false,
    replaces the request's, and is checked as a request's would be (so a verb other than
    clean and service is then refused)."""
    ident = body["runbook"]
    if not isinstance(ident, str):  # at any version, as Ironic 39 reads its arguments first
        raise InvalidParameterValue(
            f"Invalid runbook: expected a runbook's UUID or name, got {ident!r}."
        )
    if not c.version.at_least(mv.RUNBOOKS):
        raise mv.too_old("A runbook", mv.RUNBOOKS, c.version)
    with c.services.db.read() as session:
        row = read(session, ident)
        node = node_db.get(session, node_ident)
    authorize(c, "use", row)
    _check_approved(c, row, node.uuid, set(node_db.field_value(node, "traits") or []))
    key = RUNBOOK_VERBS.get(verb)
    if key is None:
        return RunbookUse(body, row.disable_ramdisk)
    if body.get(key):
        raise InvalidParameterValue(f'Give either "{key}" or a runbook, not both.')
    steps = [
        {"interface": s["interface"], "step": s["step"], "args": s["args"], "order": s["order"]}
        for s in row.steps
    ]
    return RunbookUse({**body, key: steps}, row.disable_ramdisk)


@dataclass(frozen=True)
class RunbookUse:
    """A provision request with a runbook's steps, and whether the runbook boots no ramdisk."""

    body: dict[str, Any]
    disable_ramdisk: bool


def _check_approved(c: Call, row: Runbook, node: str, node_traits: set[str]) -> None:
    if not c.version.at_least(mv.RUNBOOK_TRAITS):
        if row.name not in node_traits:
            raise InvalidParameterValue(
                f"Runbook {row.name} is not approved for node {node}: the node's traits do "
                "not include the runbook's name; an administrator may add it to them."
            )
        return
    if not row.traits:
        raise InvalidParameterValue(
            f"Runbook {row.uuid} approves no node: it has no traits; an administrator may add "
            "some to it."
        )
    if not set(row.traits) & node_traits:
        raise InvalidParameterValue(
            f"Runbook {row.name} is not approved for node {node}: the node has none of the "
            f"runbook's traits {sorted(row.traits)}; an administrator may add one to the node."
        )


# -- /v1/runbooks/{runbook}/traits (1.112) ----------------------------------------------------


def _found(c: Call, ident: str, rule: str) -> Runbook:
    with c.services.db.read() as session:
        row = read(session, ident)
    authorize(c, rule, row)
    return row


def _change_traits(c: Call, ident: str, change: Callable[[list[str]], list[str]]) -> None:
    """Apply ``change`` to the runbook's traits, again if they change meanwhile."""

    def attempt() -> None:
        row = _found(c, ident, "update")
        current = list(row.traits)
        c.services.rpcapi.update_runbook(
            c.context, row.uuid, {"traits": change(current)}, {"traits": current}
        )

    until_unchanged(attempt)


@router.get(
    "/{ident}/traits",
    openapi_extra=doc(
        "listRunbookTraits",
        "The node traits that approve a runbook.",
        "runbooks",
        ok="The traits.",
        returns=bodies.TRAIT_LIST,
        since=mv.RUNBOOK_TRAITS,
    ),
)
def list_runbook_traits(request: Request, ident: str) -> dict[str, Any]:
    c = _traits_served(request)
    return {"traits": sorted(_found(c, ident, "get").traits)}


@router.put(
    "/{ident}/traits",
    status_code=204,
    openapi_extra=doc(
        "setRunbookTraits",
        "Replace the node traits that approve a runbook.",
        "runbooks",
        ok="Replaced.",
        errors=WRITE,
        body=bodies.TRAITS,
        since=mv.RUNBOOK_TRAITS,
    ),
)
def set_runbook_traits(request: Request, ident: str, body: JsonBody = None) -> Response:
    c = _traits_served(request)
    if (
        not isinstance(body, dict)
        or set(body) != {"traits"}
        or not isinstance(body["traits"], list)
    ):
        raise Invalid(
            'Replace a runbook\'s traits with a body {"traits": [...]}, or add one with '
            "PUT /v1/runbooks/{runbook}/traits/{trait} and no body."
        )
    traits = sorted({check_trait(t) for t in body["traits"]})
    _change_traits(c, ident, lambda _current: traits)
    return Response(status_code=204)


@router.put(
    "/{ident}/traits/{trait}",
    status_code=204,
    openapi_extra=doc(
        "addRunbookTrait",
        "Add a node trait that approves a runbook.",
        "runbooks",
        ok="Added.",
        errors=WRITE,
        headers=bodies.LOCATION,
        since=mv.RUNBOOK_TRAITS,
    ),
)
def add_runbook_trait(request: Request, ident: str, trait: str, body: JsonBody = None) -> Response:
    c = _traits_served(request)
    check_trait(trait)
    if body:
        raise Invalid(f"Adding the trait {trait} takes no request body.")
    _change_traits(c, ident, lambda current: sorted({*current, trait}))
    location = f"{c.base}/v1/runbooks/{ident}/traits/{trait}"
    return Response(status_code=204, headers={"Location": location})


@router.delete(
    "/{ident}/traits",
    status_code=204,
    openapi_extra=doc(
        "removeRunbookTraits",
        "Remove every trait of a runbook.",
        "runbooks",
        ok="Removed.",
        errors=WRITE,
        since=mv.RUNBOOK_TRAITS,
    ),
)
def remove_runbook_traits(request: Request, ident: str) -> Response:
    c = _traits_served(request)
    _change_traits(c, ident, lambda _current: [])
    return Response(status_code=204)


@router.delete(
    "/{ident}/traits/{trait}",
    status_code=204,
    openapi_extra=doc(
        "removeRunbookTrait",
        "Remove a trait of a runbook (a trait it does not have is no error).",
        "runbooks",
        ok="Removed.",
        errors=WRITE,
        since=mv.RUNBOOK_TRAITS,
    ),
)
def remove_runbook_trait(request: Request, ident: str, trait: str) -> Response:
    c = _traits_served(request)
    _change_traits(c, ident, lambda current: [t for t in current if t != trait])
    return Response(status_code=204)
