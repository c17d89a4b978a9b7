"""Runs one networking-generic-switch device operation in a process of its own.

networking-generic-switch loads oslo.service's eventlet backend and keeps oslo.config state:
inside metalwire's threaded server its SSH calls hang, so
:class:`~metalwire.networking.generic_switch.GenericSwitchDevice` starts this module with the
same interpreter for every operation. It reads ``{"device": {...}, "name": ..., "method":
..., "args": [...], "kwargs": {...}}`` on stdin and prints ``{"output": ...}`` or
``{"error": "<class>: <text>"}``.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def run(request: dict[str, Any]) -> dict[str, Any]:
    from networking_generic_switch import config as ngs_config
    from networking_generic_switch import devices

    ngs_config.CONF([], project="networking_generic_switch", default_config_files=[])
    device = devices.device_manager(dict(request["device"]), request["name"])
    try:
        output = getattr(device, request["method"])(*request["args"], **request["kwargs"])
    except Exception as error:  # the parent names every failure, with its class
        return {"error": f"{type(error).__name__}: {error}"}
    return {"output": output if isinstance(output, str) or output is None else repr(output)}


if __name__ == "__main__":
    json.dump(run(json.load(sys.stdin)), sys.stdout)
