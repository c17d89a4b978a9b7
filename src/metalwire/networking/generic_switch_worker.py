"""Runs networking-generic-switch device operations in a process of its own.

networking-generic-switch loads oslo.service's eventlet backend and keeps oslo.config state:
inside metalwire's threaded server its SSH calls hang, so
:class:`~metalwire.networking.generic_switch.GenericSwitchDevice` starts this module with the
same interpreter for every operation. It reads one JSON object on stdin, ``{"device": {...},
"name": ...}`` and one of:

- ``"method": ..., "args": [...], "kwargs": {...}``: calls the device method, prints
  ``{"output": ...}``;
- ``"render": [{"method": ..., "args": [...], "kwargs": {...}}, ...]``: calls each method with
  the device's sending replaced, so nothing connects, and prints ``{"commands": [[...], ...]}``,
  the commands each call would have sent;
- ``"show": ["<command>", ...]``: sends each read-only command over one SSH connection and
  prints ``{"outputs": [...]}``.

Any failure prints ``{"error": "<class>: <text>"}``.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def _device(request: dict[str, Any]) -> Any:
    from networking_generic_switch import config as ngs_config
    from networking_generic_switch import devices

    ngs_config.CONF([], project="networking_generic_switch", default_config_files=[])
    return devices.device_manager(dict(request["device"]), request["name"])


def _render(device: Any, calls: list[dict[str, Any]]) -> list[list[str]]:
    if not callable(getattr(device, "send_commands_to_device", None)):
        raise TypeError(f"{type(device).__name__} sends no command templates to render")
    sent: list[str] = []

    def capture(cmd_set: list[str]) -> None:
        sent.extend(cmd_set or [])

    def refuse_connection(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("rendering commands opens no connection")

    device.send_commands_to_device = capture
    device._get_connection = refuse_connection
    rendered = []
    for call in calls:
        sent.clear()
        getattr(device, call["method"])(*call.get("args", []), **call.get("kwargs", {}))
        rendered.append(list(sent))
    return rendered


def _show(device: Any, commands: list[str]) -> list[str]:
    with device._get_connection() as connection:
        return [str(connection.send_command(command)) for command in commands]


def run(request: dict[str, Any]) -> dict[str, Any]:
    try:
        device = _device(request)
        if "render" in request:
            return {"commands": _render(device, request["render"])}
        if "show" in request:
            return {"outputs": _show(device, request["show"])}
        output = getattr(device, request["method"])(*request["args"], **request["kwargs"])
    except Exception as error:  # the parent names every failure, with its class
        return {"error": f"{type(error).__name__}: {error}"}
    return {"output": output if isinstance(output, str) or output is None else repr(output)}


if __name__ == "__main__":
    json.dump(run(json.load(sys.stdin)), sys.stdout)
