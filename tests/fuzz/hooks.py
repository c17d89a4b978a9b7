"""schemathesis hooks of the fuzz run (loaded through ``SCHEMATHESIS_HOOKS``).

The document says what any metalwire server accepts: ``driver`` (and a driver's name in a
``/v1/drivers`` path) is any enabled hardware type.
The server under test runs with the default configuration, so its enabled names are known:
narrowing the loaded copy to them lets generated creates succeed, and the stateful phase then
reaches the node's own operations instead of stopping at a 400.
"""

from __future__ import annotations

from typing import Any

import schemathesis

from metalwire.config import DefaultOptions

DEFAULTS = DefaultOptions()


@schemathesis.hook
def before_load_schema(context: Any, raw_schema: dict[str, Any]) -> None:
    node = raw_schema["components"]["schemas"]["NodeCreate"]["properties"]
    node["driver"] = {"enum": DEFAULTS.enabled_hardware_types}
    node["network_interface"] = {"enum": DEFAULTS.enabled_network_interfaces}
    for item in raw_schema["paths"].values():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("name") == "driver_name":
                    parameter["schema"] = {"enum": DEFAULTS.enabled_hardware_types}
