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

Versions: the coverage phase fills the headers it does not vary with their first value, and
the generic header, which the server reads first, was ``baremetal 1.1``: every version it
tried through ``X-OpenStack-Ironic-API-Version`` was served at 1.1, and so was nearly every
other case, where each route added later answers 404 whatever its path names.
``choose_version`` now sends the coverage case that varies a version header with that
header alone, and gives the others, and any request without a version header, the newest
version; one in ``MISSING_SHARE`` of each keeps what was generated (chosen by a checksum of
the request, so that the run stays deterministic): both headers at once and 1.1 stay
covered. The versions the fuzzing and stateful phases generate are left as they are.

Path parameters: a made-up ``{ident}`` names nothing, and the request stops at the 404. The
test seeds resources before the run (``seed.py``) and names the file listing them in
``METALWIRE_FUZZ_SEEDED``; ``name_seeded_resources`` points the generated requests of the
examples, coverage and fuzzing phases at them:

- a ``DELETE /v1/<collection>/{ident}`` names that phase's spare of the collection (and
  ``DELETE /v1/nodes/{ident}/allocation`` a spare node with an allocation), which nothing
  else names: its first accepted request deletes it (and checks the 204), the
  others answer 404. The kept resources thus stay for every other operation, whatever
  order the phases try them in.
- every other path parameter names the kept resource of its kind (``seed.py``): a node's
  sub-resources (its trait, VIF, indicator, history entry) under ``/v1/nodes/{ident}``,
  the runbook's trait under ``/v1/runbooks/{ident}``. What a request changes on them (a
  provision state, maintenance, a detached VIF, a removed trait) the next requests see: a
  node that moves through its states reaches more of the handlers than one that stays.
- 404 stays covered: the coverage phase's cases that vary a path parameter keep their
  generated value, and so does one request in ``MISSING_SHARE`` of the others. A parameter
  with nothing seeded for it (a BIOS setting: fake hardware has none) keeps its generated
  value too.

The stateful phase follows the document's links from the resources it created itself: only
the version applies to it.
"""

from __future__ import annotations

import functools
import json
import os
import zlib
from pathlib import Path
from typing import Any

import schemathesis
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.case import Case

from metalwire.api.microversion import (
    GENERIC_HEADER,
    IRONIC_HEADER,
    MAX_VERSION,
    MIN_VERSION,
    SERVICE_TYPE,
)
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


#: One generated request in this many keeps its made-up path parameters (and gets its 404),
#: and one (another) no version header.
MISSING_SHARE = 10
SEEDED_ENV = "METALWIRE_FUZZ_SEEDED"
VERSION_HEADERS = (IRONIC_HEADER, GENERIC_HEADER)
#: The kept resource a path's first parameter names, by the collection it follows.
FIRST_PARAMETER = {
    "nodes": "node",
    "ports": "port",
    "portgroups": "portgroup",
    "chassis": "chassis",
    "deploy_templates": "deploy_template",
    "allocations": "allocation",
    "runbooks": "runbook",
    "volume/connectors": "volume_connector",
    "volume/targets": "volume_target",
    "conductors": "conductor",
}
#: The kept resource a second path parameter names, by the collection and its name.
SECOND_PARAMETER = {
    ("nodes", "uuid"): "history",
    ("nodes", "trait"): "trait",
    ("nodes", "vif"): "vif",
    ("nodes", "indicator"): "indicator",
    ("runbooks", "trait"): "runbook_trait",
}


@functools.cache
def seeded() -> dict[str, Any]:
    """What ``seed.py`` made, as the test wrote it (nothing when run without it)."""
    path = os.environ.get(SEEDED_ENV)
    return dict(json.loads(Path(path).read_text())) if path else {"kept": {}, "spares": {}}


def seeded_names(method: str, path: str, phase: str) -> dict[str, str]:
    """The seeded value of each path parameter of ``method path`` it has one for."""
    collection, _, rest = path.removeprefix("/v1/").partition("/{")
    parameters = [part.partition("}")[0] for part in ("{" + rest).split("{")[1:]]
    if not parameters:
        return {}
    first, *others = parameters
    if method == "DELETE" and path in seeded()["spares"].get(phase, {}):
        return {first: seeded()["spares"][phase][path]}
    kept: dict[str, str] = seeded()["kept"]
    keys = {first: FIRST_PARAMETER.get(collection)}
    keys.update({name: SECOND_PARAMETER.get((collection, name)) for name in others})
    return {name: kept[key] for name, key in keys.items() if key in kept}


def one_in(share: int, case: Case, rule: str) -> bool:
    """Whether ``case`` is among the one in ``share`` that ``rule`` leaves as generated."""
    request = repr((rule, case.method, case.path, case.path_parameters, case.query, case.body))
    return zlib.crc32(request.encode()) % share == 0


def varied(case: Case, location: ParameterLocation) -> str | None:
    """The name of the parameter at ``location`` a coverage case varies ("" for none named)."""
    meta = case.meta
    if meta is None or meta.phase.data.parameter_location is not location:
        return None
    return meta.phase.data.parameter or ""


def name_seeded_resources(case: Case, phase: str) -> None:
    names = seeded_names(case.method.upper(), case.path, phase)
    if varied(case, ParameterLocation.PATH) is not None or one_in(MISSING_SHARE, case, "path"):
        return
    case.path_parameters.update(names)


def choose_version(case: Case, phase: str) -> None:
    if one_in(MISSING_SHARE, case, "version"):
        return
    header = varied(case, ParameterLocation.HEADER)
    if header in VERSION_HEADERS:
        case.headers.pop(GENERIC_HEADER if header == IRONIC_HEADER else IRONIC_HEADER, None)
        return
    if phase != "coverage" and any(name in case.headers for name in VERSION_HEADERS):
        return
    case.headers.pop(GENERIC_HEADER, None)
    case.headers[IRONIC_HEADER] = str(MAX_VERSION)


@schemathesis.hook("map_case")
def point_at_what_exists(context: Any, case: Case) -> Case:
    phase = case.meta.phase.name.value if case.meta is not None else "stateful"
    choose_version(case, phase)
    if phase != "stateful":
        name_seeded_resources(case, phase)
    return case
