"""Runs networking-generic-switch device operations against one switch, timing each.

This script runs under the interpreter of a venv that holds networking-generic-switch (the
Neutron venv of ``scripts/install-neutron``), not the project's: ``GenericSwitchRunner`` in
``tests/support/generic_switch.py`` starts it. It reads one JSON object on stdin::

    {"device": {"device_type": "netmiko_ovs_linux", "ip": ..., ...},
     "operations": [{"method": "plug_port_to_network", "args": ["swp1", 100], "kwargs": {}}]}

builds the device with ``networking_generic_switch.devices.device_manager`` (as Ironic's
generic-switch driver does), calls each method in order and prints one JSON list on stdout:
``[{"method": ..., "seconds": 2.1, "output": "..."}]``, with ``"error"`` (the exception's class
and text) instead of ``"output"`` for an operation that raised; it stops at the first error.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def run(request: dict[str, Any]) -> list[dict[str, Any]]:
    from networking_generic_switch import config as ngs_config
    from networking_generic_switch import devices

    ngs_config.CONF([], project="networking_generic_switch", default_config_files=[])
    device = devices.device_manager(dict(request["device"]), request.get("name", "switch"))
    results: list[dict[str, Any]] = []
    for operation in request["operations"]:
        method = getattr(device, operation["method"])
        started = time.monotonic()
        result: dict[str, Any] = {"method": operation["method"]}
        try:
            output = method(*operation.get("args", []), **operation.get("kwargs", {}))
        except Exception as error:  # the caller sees every failure, with its class
            result["error"] = f"{type(error).__name__}: {error}"
        else:
            result["output"] = output if isinstance(output, str) or output is None else repr(output)
        result["seconds"] = round(time.monotonic() - started, 3)
        results.append(result)
        if "error" in result:
            break
    return results


if __name__ == "__main__":
    json.dump(run(json.load(sys.stdin)), sys.stdout)
