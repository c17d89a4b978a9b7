"""``/v1/deploy_templates`` (from API version 1.55): the deploy steps a flavor's trait adds.

A template is named by a trait (``CUSTOM_HYPERTHREADING_ON``) and holds deploy steps; a
deploy whose node's ``instance_info/traits`` names the template runs its steps too
(``conductor/deploy_templates.py``). It shares the list, show and patch flows of nodes,
ports, portgroups and chassis (:mod:`metalwire.api.routes.resource`); its policy rules
(``baremetal:deploy_template:*``) are decided before the template is looked up, as Ironic 39
decides them. Below 1.55 the path does not exist: a GET is 404, any other method 405, in
Ironic's words. A step's arguments are shown with their secrets masked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api import steps as step_checks
from metalwire.api import validation
from metalwire.api.fields import DEPLOY_TEMPLATE_FIELDS, DEPLOY_TEMPLATE_LIST_FIELDS, LINK_FIELDS
from metalwire.api.route_docs import FIELDS, item_docs, listing, lists
from metalwire.api.routes import authz
from metalwire.api.routes.before_body import patch_allowed
from metalwire.api.routes.common import (
    Call,
    JsonBody,
    call,
    list_filters,
    named,
    require_resource,
)
from metalwire.api.routes.resource import Resource
from metalwire.api.routes.traits import check_trait
from metalwire.api.views import as_json, links
from metalwire.db import deploy_templates as template_db
from metalwire.db.models import DeployTemplate
from metalwire.errors import (
    InvalidParameterValue,
    MissingParameterValue,
)
from metalwire.identifiers import is_uuid_like
from metalwire.redact import masked

router = APIRouter(prefix="/v1/deploy_templates")

_NOT_SERVED = "The API version does not allow deploy templates"
_HOLDER = "deploy template"
#: Taken by a create as Ironic 39 takes it, and not kept: its templates have no description.
_IGNORED = "description"


def _served(request: Request) -> Call:
    """The call, once its version serves templates (:func:`_gate`)."""
    c = call(request)
    _gate(c)
    return c


def _gate(c: Call) -> None:
    require_resource(c, mv.DEPLOY_TEMPLATES, _NOT_SERVED)


def _authorize_before_read(c: Call, action: str) -> None:
    _gate(c)  # a PATCH's policy is decided before its body is read: the gate comes first
    _authorize(c, action)


def uuid_or_name(ident: str) -> str:
    """A deploy template or a runbook is named by its UUID (in any spelling Ironic takes) or
    its name; anything else is a 400, in Ironic's words."""
    if is_uuid_like(ident):
        return validation.uuid_value(ident, "uuid")
    try:
        return validation.logical_name(ident, "name", mv.Version(mv.DEPLOY_TEMPLATES))
    except InvalidParameterValue:
        raise InvalidParameterValue(
            f"Expected a logical name or UUID but received {ident}."
        ) from None


def _read(session: Session, ident: str) -> DeployTemplate:
    return template_db.get(session, uuid_or_name(ident))


def _authorize(c: Call, action: str) -> None:
    authz.policy(c).authorize(f"baremetal:deploy_template:{action}", authz.identity(c))


def _list_scope(c: Call, _kind: str) -> str | None:
    """Templates are listed whole to whoever ``baremetal:deploy_template:get`` allows."""
    _authorize(c, "get")
    return None


def normalize(values: dict[str, Any]) -> dict[str, Any]:
    """The values of a create or a patch, checked and ready to store."""
    out = dict(values)
    if out.get("uuid") is not None:
        out["uuid"] = validation.uuid_value(out["uuid"], "uuid")
    if "name" in out:
        if out["name"] is None:
            raise MissingParameterValue("Field name cannot be null or removed.")
        _check_name(out["name"])
    if "steps" in out:
        out["steps"] = step_checks.checked_step_set(
            step_checks.DEPLOY, out["steps"], _HOLDER, "deploy step"
        )
    if "extra" in out and out["extra"] is None:
        out["extra"] = {}
    validation.check_lengths(out, DeployTemplate.__table__)
    return out


def _check_name(name: Any) -> None:
    try:
        check_trait(name)
    except InvalidParameterValue as exc:
        raise InvalidParameterValue(f"Invalid deploy template name: {exc}") from None


def _view(c: Call, row: DeployTemplate, fields: list[str]) -> dict[str, Any]:
    values = {
        "uuid": row.uuid,
        "name": row.name,
        "steps": [{**step, "args": masked(step.get("args") or {})} for step in row.steps],
        "extra": row.extra,
        "created_at": as_json(row.created_at),
        "updated_at": as_json(row.updated_at),
    }
    body = {name: values[name] for name in fields if name not in LINK_FIELDS}
    body["links"] = links(c.base, "deploy_templates", row.uuid)
    return body


def _views(
    c: Call, _session: Session, rows: Sequence[DeployTemplate], fields: list[str], _sub: bool
) -> list[dict[str, Any]]:
    return [_view(c, row, fields) for row in rows]


def _current(_c: Call, _session: Session, row: DeployTemplate) -> dict[str, Any]:
    return {"uuid": row.uuid, "name": row.name, "steps": row.steps, "extra": row.extra}


DEPLOY_TEMPLATES = Resource[DeployTemplate](
    json_suffix=True,
    kind="deploy_template",
    collection="deploy_templates",
    fields=DEPLOY_TEMPLATE_FIELDS,
    list_fields=DEPLOY_TEMPLATE_LIST_FIELDS,
    mandatory=("name", "steps"),
    read=_read,
    list_rows=lambda session, _filters, page: template_db.list_templates(session, page),
    views=_views,
    filters=lambda c, _parent: list_filters(c, ()),
    # decided before the row is read (authorize_before_read): they depend on no row
    authorize_get=lambda _c, _session, _row, _ident: None,
    authorize_patch=lambda _c, _session, _row, _ident, _patch: None,
    authorize_before_read=_authorize_before_read,
    current=_current,
    update=lambda c, uuid, changes, expected: c.services.rpcapi.update_deploy_template(
        c.context, uuid, changes, expected
    ),
    prepare=lambda _c, _row, changes: normalize(changes),
    list_scope=_list_scope,
)


# Ironic 39 has no /detail list of templates: ``detail`` there names a template (404).
_LIST, _ = lists(
    "listDeployTemplates",
    "deploy templates",
    "deploy_templates",
    "DeployTemplateList",
    listing((), set(template_db.SORTABLE)),
    since=mv.DEPLOY_TEMPLATES,
)
_DOCS = item_docs(
    "DeployTemplate",
    "deploy template",
    "deploy_templates",
    FIELDS,
    create_headers=bodies.LOCATION,
    links=bodies.DEPLOY_TEMPLATE_LINKS,
    since=mv.DEPLOY_TEMPLATES,
    write_errors=(405,),  # below 1.55
)


@router.get("", openapi_extra=_LIST)
@router.get("/", openapi_extra=_LIST)
def list_deploy_templates(request: Request) -> dict[str, Any]:
    return DEPLOY_TEMPLATES.list_view(_served(request), detail_path=False)


@router.get("/{ident}", openapi_extra=_DOCS.show)
def get_deploy_template(request: Request, ident: str) -> dict[str, Any]:
    return DEPLOY_TEMPLATES.get(_served(request), ident)


@router.post("", status_code=201, openapi_extra=_DOCS.create)
def create_deploy_template(
    request: Request, response: Response, body: JsonBody = None
) -> dict[str, Any]:
    c = _served(request)
    _authorize(c, "create")
    given = dict(body) if isinstance(body, dict) else body
    if isinstance(given, dict) and _IGNORED in given:
        _check_description(given.pop(_IGNORED))
    values = validation.check_create_body(given, DEPLOY_TEMPLATE_FIELDS, c.version, ())
    for name in ("name", "steps"):
        if name not in values:
            raise MissingParameterValue(f"Mandatory field missing: {name}.")
    created = c.services.rpcapi.create_deploy_template(c.context, normalize(values))
    response.headers["Location"] = f"{c.base}/v1/deploy_templates/{created.uuid}"
    return DEPLOY_TEMPLATES.show(c, created)


def _check_description(value: Any) -> None:
    if value is not None and (not isinstance(value, str) or len(value) > 255):
        raise InvalidParameterValue(
            "Invalid description: a string of at most 255 characters, or null."
        )


@router.patch("/{ident}", openapi_extra=_DOCS.patch)
def patch_deploy_template(
    request: Request,
    ident: str,
    _allowed: Annotated[None, patch_allowed(DEPLOY_TEMPLATES, "ident")],
    body: JsonBody = None,
) -> dict[str, Any]:
    c = _served(request)
    updated, _changes = DEPLOY_TEMPLATES.patch(c, ident, body)
    return DEPLOY_TEMPLATES.show(c, updated)


@router.delete("/{ident}", status_code=204, openapi_extra=_DOCS.delete)
def delete_deploy_template(request: Request, ident: str) -> Response:
    c = _served(request)
    _authorize(c, "delete")
    with c.services.db.read() as session:
        uuid = _read(session, named(c, ident, _read)).uuid
    c.services.rpcapi.delete_deploy_template(c.context, uuid)
    return Response(status_code=204)
