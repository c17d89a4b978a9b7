"""What every handler needs: the request's version, base URL, context and services."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar
from urllib.parse import urlencode

from fastapi import Depends, Request, Response

from metalwire.api import json_body as json_body_parser
from metalwire.api import microversion as mv
from metalwire.api.fields import Filter
from metalwire.api.middleware import JSON_SUFFIX
from metalwire.api.validation import uuid_value
from metalwire.context import RequestContext
from metalwire.db.pagination import Page
from metalwire.errors import (
    InvalidParameterValue,
    MethodNotServed,
    MissingParameterValue,
    NotAcceptable,
    NotFound,
    RouteNotFound,
    StaleUpdate,
)
from metalwire.services import Services

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

T = TypeVar("T")


@dataclass(frozen=True)
class Call:
    version: mv.Version
    base: str
    context: RequestContext
    services: Services
    request: Request

    def require(self, minor: int, *, by_handler: bool = False) -> None:
        """Resources newer than the request's version do not exist for it (404), refused as
        by Ironic's router or, ``by_handler``, by the resource's handler
        (:func:`~metalwire.api.microversion.require`)."""
        mv.require(self.version, minor, by_handler=by_handler)


def _suffixed(c: Call, ident: str) -> tuple[str, ...]:
    """``ident`` with the ``.json`` suffix the request's path lost (stripped by the request
    pipeline below 1.91), or nothing when it lost none: the second name Ironic looks a node,
    portgroup, allocation or deploy template up by."""
    return (ident + ".json",) if c.request.scope["state"].get(JSON_SUFFIX) else ()


def read_suffixed(c: Call, session: Session, ident: str, read: Callable[[Session, str], T]) -> T:
    """``read(session, ident)``, or the row ``ident`` names with its stripped ``.json`` suffix
    when only that names one (:func:`_suffixed`). Raises the first NotFound when neither does."""
    try:
        return read(session, ident)
    except NotFound:
        for candidate in _suffixed(c, ident):
            with contextlib.suppress(NotFound):
                return read(session, candidate)
        raise


def named(c: Call, ident: str, read: Callable[[Session, str], Any]) -> str:
    """The ident to hand on (to a delete) for ``ident``: with its stripped ``.json`` suffix
    when only that names one (:func:`_suffixed`)."""
    others = _suffixed(c, ident)
    if not others:
        return ident
    with c.services.db.read() as session:
        for candidate in (ident, *others):
            with contextlib.suppress(NotFound):
                read(session, candidate)
                return candidate
    return ident


def call(request: Request) -> Call:
    services: Services = request.app.state.services
    base = services.config.api.public_endpoint.rstrip("/") or str(request.base_url).rstrip("/")
    return Call(
        version=request.state.api_version,
        base=base,
        context=request.state.context,  # built once per request by the middleware
        services=services,
        request=request,
    )


def flag(value: str | None, name: str) -> bool | None:
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on", "t", "y"):
        return True
    if lowered in ("0", "false", "no", "off", "f", "n"):
        return False
    raise InvalidParameterValue(f"Invalid value for {name}: {value!r}; expected a boolean.")


def request_fields(
    body: Any, what: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The body of a request that takes these fields (``what`` names the request): a JSON
    object (400), with no other field (400) and every required one (MissingParameterValue)."""
    keys = (*required, *optional)
    if not isinstance(body, dict):
        raise InvalidParameterValue(
            f"The request body must be a JSON object with {' and '.join(required)}."
        )
    unknown = sorted(set(body) - set(keys))
    if unknown:
        raise InvalidParameterValue(
            f"Unknown field(s) {', '.join(unknown)}; {what} takes {', '.join(keys)}."
        )
    missing = [key for key in required if key not in body]
    if missing:
        raise MissingParameterValue(f"Missing field(s) {', '.join(missing)}.")
    return body


def fields_and_detail(
    c: Call,
    noun: str,
    known: tuple[str, ...],
    check_fields: Callable[[list[str]], None] | None = None,
) -> tuple[list[str] | None, bool | None]:
    """Ironic's checks of a node sub-resource list's query, each a 400 naming what is wrong:
    only ``fields`` (comma-separated, each one of ``known``, then ``check_fields``) and
    ``detail`` (a boolean), not both. Returns the fields asked for and ``detail``."""
    params = c.request.query_params
    unknown = sorted(set(params) - {"fields", "detail"})
    if unknown:
        raise InvalidParameterValue(
            f"Unknown query parameter(s) {', '.join(unknown)}; this list takes detail, fields."
        )
    detail = flag(params.get("detail"), "detail")
    raw = params.get("fields")
    if raw is None:
        return None, detail
    wanted = [name.strip() for name in raw.split(",") if name.strip()]
    strangers = [name for name in wanted if name not in known]
    if strangers:
        raise InvalidParameterValue(
            f"Unknown {noun} field(s) {', '.join(strangers)}; the fields are {', '.join(known)}."
        )
    if check_fields is not None:
        check_fields(wanted)
    if detail:
        raise InvalidParameterValue("Cannot use both the fields and detail query parameters.")
    return wanted, detail


# what every list takes besides its filters: paging, ?fields= and ?detail=
LIST_PARAMETERS = frozenset({"limit", "marker", "sort_key", "sort_dir", "fields", "detail"})


def list_filters(c: Call, declared: tuple[Filter, ...]) -> dict[str, Any]:
    """The declared filters the query gives, parsed; one below its version is refused (406),
    a query parameter the list does not take (400) as Ironic refuses it, rather than list
    everything."""
    params = c.request.query_params
    unknown = sorted(set(params) - LIST_PARAMETERS - {f.name for f in declared})
    if unknown:
        known = sorted(LIST_PARAMETERS | {f.name for f in declared})
        raise InvalidParameterValue(
            f"Unknown query parameter(s) {', '.join(unknown)}; this list takes {', '.join(known)}."
        )
    out: dict[str, Any] = {}
    for declared_filter in declared:
        raw = params.get(declared_filter.name)
        if raw is None:
            continue
        if declared_filter.gated and not c.version.at_least(declared_filter.since):
            raise NotAcceptable(declared_filter.refusal_message(c.version))
        if declared_filter.kind == "bool":
            out[declared_filter.name] = flag(raw, declared_filter.name)
        elif declared_filter.kind == "list":
            values = [value.strip() for value in raw.split(",") if value.strip()]
            if values or declared_filter.empty_lists_none:
                out[declared_filter.name] = values
        else:
            out[declared_filter.name] = raw
    return out


def refuse_unknown_parameters(c: Call, allowed: frozenset[str]) -> None:
    """A query parameter the request does not take is a 400 naming it, rather than ignored."""
    unknown = sorted(set(c.request.query_params) - allowed)
    if unknown:
        raise InvalidParameterValue(
            f"Unknown query parameter(s) {', '.join(unknown)}; this request takes "
            f"{', '.join(sorted(allowed)) or 'none'}."
        )


def page(c: Call, default_sort: str = "id", uuid_marker: bool = True) -> Page:
    """The paging the query asks for; the marker is a UUID unless ``uuid_marker`` is false
    (a conductor is named by its host name)."""
    params = c.request.query_params
    raw = params.get("limit")
    limit = c.services.config.api.max_limit
    if raw is not None:
        try:
            asked = int(raw)
        except ValueError:
            raise InvalidParameterValue(f"Invalid limit {raw!r}: expected an integer.") from None
        if asked <= 0:
            # Ironic's words, for 0 as for negative values.
            raise InvalidParameterValue("Limit must be positive")
        limit = min(asked, limit)
    marker = params.get("marker")
    return Page(
        limit=limit,
        marker=marker if marker is None or not uuid_marker else uuid_value(marker, "marker"),
        sort_key=params.get("sort_key", default_sort),
        sort_dir=params.get("sort_dir", "asc"),
    )


def collection(
    c: Call,
    key: str,
    items: Sequence[Any],
    views: list[dict[str, Any]],
    limit: int,
    marker_of: Callable[[Any], str] = lambda item: str(item.uuid),
) -> dict[str, Any]:
    """The list body, with a ``next`` link when the page was full (its marker the last
    item's ``marker_of``, by default its UUID)."""
    body: dict[str, Any] = {key: views}
    if items and len(items) >= limit:
        params = {k: v for k, v in c.request.query_params.items() if k != "marker"}
        params["limit"] = str(limit)
        params["marker"] = marker_of(items[-1])
        body["next"] = f"{c.base}{c.request.url.path}?{urlencode(params)}"
    return body


def detail_requested(c: Call, detail_path: bool) -> bool:
    if detail_path:
        # Ironic 39's /detail lists take neither detail= nor fields=
        if "detail" in c.request.query_params:
            raise InvalidParameterValue(
                "The detail query parameter is not taken by a /detail list: it is detailed."
            )
        if "fields" in c.request.query_params:
            raise InvalidParameterValue(
                "The fields query parameter is not taken by a /detail list, which shows every "
                "field; ask the list without /detail for some fields."
            )
        return True
    value = flag(c.request.query_params.get("detail"), "detail")
    if value is not None and not c.version.at_least(mv.DETAIL_QUERY):
        raise InvalidParameterValue("The detail query parameter requires API version 1.43.")
    if value and c.request.query_params.get("fields"):
        raise InvalidParameterValue("Cannot use both the fields and detail query parameters.")
    return bool(value)


def fields_param(c: Call) -> str | None:
    wanted = c.request.query_params.get("fields")
    if wanted is not None and not c.version.at_least(mv.FIELDS_PARAM):
        raise mv.too_old("The fields query parameter", mv.FIELDS_PARAM, c.version)
    return wanted


async def json_body(request: Request) -> Any:
    """The request body, parsed strictly (``api/json_body.py``); None when there is none."""
    return json_body_parser.parse(await request.body(), request.headers.get("content-type"))


# A request body parsed as JSON; what cannot be parsed or stored is a 400 naming where.
JsonBody = Annotated[Any, Depends(json_body)]


# How many times a read-modify-write request is tried when another request changed the
# object between the read and the write: enough for dozens of concurrent writers.
STALE_RETRIES = 30


def until_unchanged(attempt: Callable[[], T]) -> T:
    """Run a read-modify-write until no concurrent change gets in between."""
    for tries in range(STALE_RETRIES - 1):
        try:
            return attempt()
        except StaleUpdate:
            time.sleep(random.uniform(0, min(0.001 * 2**tries, 0.02)))
    return attempt()


def body_target(body: Any, what: str) -> str:
    """The ``target`` of a state change request (``{"target": ...}``); 400 without one."""
    if not isinstance(body, dict) or not isinstance(body.get("target"), str):
        raise InvalidParameterValue(
            f"The request body must be a JSON object with a 'target' {what}."
        )
    return str(body["target"])


def accepted(c: Call, ident: str, path: str = "states") -> Response:
    """202 with ``Location`` naming where the node's new state is read."""
    location = f"{c.base}/v1/nodes/{ident}/{path}"
    return Response(status_code=202, headers={"Location": location})


def require_resource(c: Call, since: int, refusal: str) -> None:
    """A resource newer than the request's version (``since``) does not exist there: a GET is
    404 and any other method 405, before anything else is checked (the policy included), as
    Ironic 39's router answers, ``refusal`` its words."""
    if not c.version.at_least(since):
        if c.request.method == "GET":
            raise RouteNotFound(refusal)
        raise MethodNotServed(refusal)
