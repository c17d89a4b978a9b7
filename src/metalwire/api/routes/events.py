"""``POST /v1/events`` (from API version 1.54): what Neutron tells of its bare-metal ports.

The body is checked as Ironic 39's schema checks it, each refusal a 400 naming the member
(``events/0/port_id``); what is done with the events is the conductor's
(``conductor/network_events.py``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api.route_docs import doc
from metalwire.api.routes import authz
from metalwire.api.routes.common import JsonBody, call
from metalwire.api.validation import mac_address, uuid_value
from metalwire.conductor.network_events import EVENT_NAMES, NetworkEvent
from metalwire.errors import InvalidParameterValue, MissingParameterValue

router = APIRouter(prefix="/v1/events")

_REQUIRED = ("event", "port_id", "mac_address", "status")
_OPTIONAL = ("device_id", "binding:host_id", "binding:vnic_type")


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidParameterValue(
            f"Invalid {where} {value!r}: expected a string, not {type(value).__name__}."
        )
    return value


def _uuid(value: Any, where: str) -> str:
    return uuid_value(_string(value, where), where)


def _uuid_or_null(value: Any, where: str) -> str | None:
    return None if value is None else _uuid(value, where)


def _event(value: Any, where: str) -> NetworkEvent:
    if not isinstance(value, dict):
        raise InvalidParameterValue(f"Invalid {where}: expected a JSON object, not {value!r}.")
    unknown = sorted(set(value) - {*_REQUIRED, *_OPTIONAL})
    if unknown:
        raise InvalidParameterValue(
            f"Unknown member(s) {', '.join(unknown)} in {where}; an event takes "
            f"{', '.join((*_REQUIRED, *_OPTIONAL))}."
        )
    missing = [key for key in _REQUIRED if key not in value]
    if missing:
        raise MissingParameterValue(f"Missing member(s) {', '.join(missing)} in {where}.")
    name = _string(value["event"], f"{where}/event")
    if name not in EVENT_NAMES:
        raise InvalidParameterValue(
            f"Unknown event {name!r} in {where}/event; the events are {', '.join(EVENT_NAMES)}."
        )
    vnic_type = value.get("binding:vnic_type")
    return NetworkEvent(
        event=name,
        port_id=_uuid(value["port_id"], f"{where}/port_id"),
        mac_address=mac_address(
            _string(value["mac_address"], f"{where}/mac_address"), f"{where}/mac_address"
        ),
        status=_string(value["status"], f"{where}/status"),
        device_id=_uuid_or_null(value.get("device_id"), f"{where}/device_id"),
        host_id=_uuid_or_null(value.get("binding:host_id"), f"{where}/binding:host_id"),
        vnic_type=None if vnic_type is None else _string(vnic_type, f"{where}/binding:vnic_type"),
    )


def network_events(body: Any) -> list[NetworkEvent]:
    """The events of a request body: ``{"events": [...]}``, at least one, each checked."""
    if not isinstance(body, dict):
        raise InvalidParameterValue('The request body must be a JSON object with "events".')
    unknown = sorted(set(body) - {"events"})
    if unknown:
        raise InvalidParameterValue(
            f"Unknown member(s) {', '.join(unknown)}; the request body takes events only."
        )
    if "events" not in body:
        raise MissingParameterValue("Missing member events: the list of events.")
    events = body["events"]
    if not isinstance(events, list) or not events:
        raise InvalidParameterValue(
            f"Invalid events {events!r}: expected a list of at least one event."
        )
    return [_event(event, f"events/{index}") for index, event in enumerate(events)]


@router.post(
    "",
    status_code=204,
    openapi_extra=doc(
        "postNetworkEvents",
        "Tell of bare-metal ports Neutron bound, unbound or deleted (Neutron's ironic "
        "notifier); each event is logged, never acted on.",
        "events",
        ok="Received.",
        errors=(400, 403, 404, 406),
        body=bodies.NETWORK_EVENTS,
        since=mv.EVENTS,
    ),
)
def post_events(request: Request, body: JsonBody = None) -> Response:
    c = call(request)
    c.require(mv.EVENTS, by_handler=True)
    authz.policy(c).authorize("baremetal:events:post", authz.identity(c))
    c.services.rpcapi.network_events(c.context, network_events(body))
    return Response(status_code=204)
