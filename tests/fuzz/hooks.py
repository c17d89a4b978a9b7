"""schemathesis hooks of the fuzz run (loaded through ``SCHEMATHESIS_HOOKS``).

The document says what any metalwire server accepts: ``driver`` (and a driver's name in a
``/v1/drivers`` path) is any enabled hardware type.
The server under test runs with the default configuration, so its enabled names are known:
narrowing the loaded copy to them lets generated creates succeed, and the stateful phase then
reaches the node's own operations instead of stopping at a 400.

The coverage phase sends every value of an enumerated header to every operation. Both version
headers name every served microversion, and both become the one version every gate reads
(``metalwire.api.microversion.from_headers``): every version is tried through
``X-OpenStack-Ironic-API-Version``, and the generic ``OpenStack-API-Version`` with the lowest,
the highest and a middle one, which covers its own parsing without sending each version a
second time (about a third of the run's requests).
"""

from __future__ import annotations

from typing import Any

import schemathesis

from metalwire.api.microversion import GENERIC_HEADER, MAX_VERSION, MIN_VERSION, SERVICE_TYPE
from metalwire.config import DefaultOptions

DEFAULTS = DefaultOptions()
GENERIC_VERSIONS = [
    f"{SERVICE_TYPE} 1.{minor}"
    for minor in (
        MIN_VERSION.minor,
        (MIN_VERSION.minor + MAX_VERSION.minor) // 2,
        MAX_VERSION.minor,
    )
]


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
    generic = raw_schema["components"]["parameters"]["OpenStackApiVersion"]
    assert generic["name"] == GENERIC_HEADER and len(generic["schema"]["enum"]) > 3
    generic["schema"] = {"enum": GENERIC_VERSIONS}
