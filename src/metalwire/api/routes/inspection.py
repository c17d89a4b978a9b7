"""``POST /v1/continue_inspection``: the inspection ramdisk's report (API 1.84; also at 1.1,
as Ironic takes it there for ironic-inspector's ramdisks).

A public route, as Ironic's (the ramdisk has no credentials): the policy rule
``baremetal:driver:ipa_continue_inspection`` allows anyone by default and is checked for an
anonymous caller. The body is checked as Ironic 39's schema checks it, each refusal a 400
naming the member; the node is found and the report processed by the conductor
(``conductor/inspection.py``). The answer, 202, is the node as found and the ramdisk's
configuration (from 1.84), or only the node's UUID (1.1).
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from metalwire.api import microversion as mv
from metalwire.api import openapi_bodies as bodies
from metalwire.api import views
from metalwire.api.auth.identity import Identity
from metalwire.api.route_docs import doc
from metalwire.api.routes import authz
from metalwire.api.routes.common import JsonBody, call
from metalwire.api.validation import uuid_value
from metalwire.conductor.inspection import LookupKeys
from metalwire.errors import Forbidden, InvalidParameterValue, MissingParameterValue, NotFound
from metalwire.identifiers import normalized_mac

router = APIRouter(prefix="/v1/continue_inspection")

#: The node fields the answer shows, as Ironic's lookup answer.
_NODE_FIELDS = ["uuid", "properties", "instance_info", "driver_internal_info"]
_ADDRESSES = ("bmc_address", "bmc_v6address")


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidParameterValue(f"Invalid {where}: expected a JSON object, not {value!r}.")
    return value


def checked_report(body: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The inventory and the plugin data (every other member) of a report; raises 400
    naming the member the minimal inventory Ironic requires lacks or has wrong."""
    report = _object(body, "request body")
    if "inventory" not in report:
        raise MissingParameterValue(
            "Missing member inventory: the hardware inventory the ramdisk found."
        )
    inventory = _object(report["inventory"], "inventory")
    if "interfaces" not in inventory:
        raise MissingParameterValue(
            "Missing member inventory/interfaces: the network interfaces the ramdisk found."
        )
    interfaces = inventory["interfaces"]
    if not isinstance(interfaces, list) or not interfaces:
        raise InvalidParameterValue(
            f"Invalid inventory/interfaces {interfaces!r}: expected a list of at least one "
            "interface."
        )
    for index, interface in enumerate(interfaces):
        where = f"inventory/interfaces/{index}"
        if "mac_address" not in _object(interface, where):
            raise MissingParameterValue(f"Missing member {where}/mac_address.")
        if not isinstance(interface["mac_address"], str):
            raise InvalidParameterValue(
                f"Invalid {where}/mac_address {interface['mac_address']!r}: expected a string."
            )
    for name in _ADDRESSES:
        value = inventory.get(name)
        if value is not None and not isinstance(value, str):
            raise InvalidParameterValue(
                f"Invalid inventory/{name} {value!r}: expected a string or null."
            )
    plugin_data = {key: value for key, value in report.items() if key != "inventory"}
    return inventory, plugin_data


def lookup_keys(inventory: dict[str, Any], node_uuid: str | None) -> LookupKeys:
    """What the node is looked up by: the valid MAC addresses (others are ignored, as by
    Ironic), the BMC addresses; 400 when there is nothing to look up by."""
    macs = [normalized_mac(interface["mac_address"]) for interface in inventory["interfaces"]]
    keys = LookupKeys(
        macs=tuple(mac for mac in macs if mac is not None),
        bmc_addresses=tuple(inventory[name] for name in _ADDRESSES if inventory.get(name)),
        node_uuid=node_uuid,
    )
    if not keys.macs and not keys.bmc_addresses and node_uuid is None:
        raise InvalidParameterValue(
            "No lookup information provided: no interface has a valid MAC address, there is "
            "no BMC address and no node_uuid."
        )
    return keys


def ramdisk_config() -> dict[str, Any]:
    """What the ramdisk is told, in Ironic's keys with its defaults. metalwire serves no
    heartbeat: the token answered authorizes nothing and is not kept."""
    return {
        "metrics": {
            "backend": "noop",
            "prepend_host": False,
            "prepend_uuid": False,
            "prepend_host_reverse": True,
            "global_prefix": None,
        },
        "metrics_statsd": {"statsd_host": "localhost", "statsd_port": 8125},
        "heartbeat_timeout": 300,
        "agent_token": secrets.token_urlsafe(32),
        "agent_token_required": True,
        "agent_md5_checksum_enable": False,
        "disable_deep_image_inspection": False,
        "permitted_image_formats": ["raw", "qcow2", "iso"],
        "agent_skip_bmc_detect": False,
    }


@router.post(
    "",
    status_code=202,
    openapi_extra=doc(
        "continueInspection",
        "The inspection ramdisk's report: the node in inspect wait whose ports have the "
        "inventory's MAC addresses (or whose BMC has its BMC address) is found, its "
        "inspection ends, and the inventory is stored. Public: no credentials.",
        "nodes",
        ok="Accepted: the node as found and the ramdisk's configuration (1.1: its UUID).",
        errors=(400, 403, 404, 406, 409),
        body=bodies.CONTINUE_INSPECTION,
        query=(bodies.NODE_UUID_OF_RAMDISK,),
        since=mv.CONTINUE_INSPECTION,
    ),
)
def continue_inspection(
    request: Request, node_uuid: str | None = None, body: JsonBody = None
) -> JSONResponse:
    c = call(request)
    inventory, plugin_data = checked_report(body)
    if not c.services.config.api.enable_ramdisk_endpoints:
        raise Forbidden(f"Access was denied to the following resource: {request.url.path}")
    node = uuid_value(node_uuid, "node_uuid") if node_uuid is not None else None
    current = c.version.at_least(mv.CONTINUE_INSPECTION)
    if not (current or c.version == mv.MIN_VERSION) or (node is not None and not current):
        raise NotFound(f"API version 1.{mv.CONTINUE_INSPECTION} or newer is required")
    authz.policy(c).authorize("baremetal:driver:ipa_continue_inspection", Identity())
    keys = lookup_keys(inventory, node)
    found = c.services.rpcapi.continue_inspection(c.context, keys, inventory, plugin_data)
    if not current:
        return JSONResponse({"uuid": found.uuid}, status_code=202)
    shown = views.node_view(found, _NODE_FIELDS, c.base, c.version)
    return JSONResponse({"node": shown, "config": ramdisk_config()}, status_code=202)
