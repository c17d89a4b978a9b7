"""The resources the fuzz run's path parameters name, created through the API before it starts.

A path parameter schemathesis makes up names nothing, so a request under
``/v1/nodes/{ident}`` would stop at the 404 and never reach the checks behind it. ``seed``
creates, through HTTP at the newest microversion, one of each thing a path of the document
names, related as a deployment's are:

- the *kept* set: a chassis holding an available node with two ports (one of them in a
  portgroup), a portgroup, an attached VIF, a trait, a volume connector and target, an
  allocation that reserved the node (so ``/v1/nodes/{ident}/allocation`` names one), and a
  history entry of it; a deploy template; a runbook with a trait; the server's conductor;
  the node's first indicator;
- *spares*: for each phase that generates requests from the document (``examples``,
  ``coverage``, ``fuzzing``), one more of each kind a ``DELETE`` removes (``SPARED_DELETES``:
  ``/v1/<kind>/{ident}``, and a node with an allocation for ``/v1/nodes/{ident}/allocation``),
  which nothing else names (``hooks.py`` says which request names what).

What the run adds, changes or removes beside them is its own business: the kept resources
are only the ones its generated path parameters name.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

from metalwire.api.microversion import MAX_VERSION

#: The phases whose requests ``hooks.py`` points at the seeded resources; the stateful phase
#: follows the document's links from what it created itself.
PHASES = ("examples", "coverage", "fuzzing")
RESOURCE_CLASS = "fuzz"
STEP = {"interface": "raid", "step": "delete_configuration", "args": {}}
#: The operations that delete what their path names (a node's allocation for the last one):
#: each phase's requests to them name spares.
SPARED_DELETES = (
    "/v1/nodes/{ident}",
    "/v1/ports/{uuid}",
    "/v1/portgroups/{ident}",
    "/v1/chassis/{ident}",
    "/v1/deploy_templates/{ident}",
    "/v1/runbooks/{ident}",
    "/v1/allocations/{ident}",
    "/v1/volume/connectors/{uuid}",
    "/v1/volume/targets/{uuid}",
    "/v1/nodes/{ident}/allocation",
)


@dataclass
class Seeded:
    """What ``seed`` made: ``kept`` maps a name (``node``, ``port``...) to its identifier,
    ``spares`` a phase to a path of ``SPARED_DELETES`` to the identifier its DELETE names."""

    kept: dict[str, str] = field(default_factory=dict)
    spares: dict[str, dict[str, str]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"kept": self.kept, "spares": self.spares}


class _Api:
    def __init__(self, url: str) -> None:
        self.client = httpx.Client(
            base_url=url,
            timeout=30.0,
            headers={"X-OpenStack-Ironic-API-Version": str(MAX_VERSION)},
        )

    def call(self, method: str, path: str, body: Any = None, expect: int = 201) -> Any:
        resp = self.client.request(method, path, json=body)
        assert resp.status_code == expect, f"{method} {path}: {resp.status_code} {resp.text}"
        return resp.json() if resp.content else None

    def create(self, collection: str, body: dict[str, Any]) -> str:
        """Create a resource with a UUID of its own: the same in every run."""
        made = self.call("POST", f"/v1/{collection}", {"uuid": fixed_uuid(body), **body})
        return str(made["uuid"])

    def node(self, name: str, **fields: Any) -> str:
        return self.create("nodes", {"driver": "fake-hardware", "name": name, **fields})

    def available(self, name: str, **fields: Any) -> str:
        node = self.node(name, **fields)
        self.provision(node, "manage", "manageable")
        self.provision(node, "provide", "available")
        return node

    def provision(self, node: str, target: str, reaches: str) -> None:
        self.call("PUT", f"/v1/nodes/{node}/states/provision", {"target": target}, expect=202)
        deadline = time.monotonic() + 30
        while (state := self.call("GET", f"/v1/nodes/{node}", expect=200)["provision_state"]) != (
            reaches
        ):
            assert time.monotonic() < deadline, f"node {node} stays {state}, not {reaches}"
            time.sleep(0.05)


def fixed_uuid(body: dict[str, Any]) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, json.dumps(body, sort_keys=True)))


def _kept(api: _Api) -> dict[str, str]:
    chassis = api.create("chassis", {"description": "the fuzz run's chassis"})
    node = api.available("fuzz-node", chassis_uuid=chassis, resource_class=RESOURCE_CLASS)
    portgroup = api.create("portgroups", {"node_uuid": node, "name": "fuzz-bond"})
    port = api.create(
        "ports",
        {"node_uuid": node, "address": "52:54:00:f0:00:01", "portgroup_uuid": portgroup},
    )
    api.create("ports", {"node_uuid": node, "address": "52:54:00:f0:00:02"})
    vif = fixed_uuid({"vif": node})
    api.call("POST", f"/v1/nodes/{node}/vifs", {"id": vif}, expect=204)
    trait = "CUSTOM_FUZZ"
    api.call("PUT", f"/v1/nodes/{node}/traits/{trait}", expect=204)
    connector = api.create(
        "volume/connectors",
        {"node_uuid": node, "type": "iqn", "connector_id": "iqn.2026-12.org.example:fuzz"},
    )
    target = api.create(
        "volume/targets",
        {"node_uuid": node, "volume_type": "iscsi", "boot_index": 0, "volume_id": "fuzz-root"},
    )
    allocation = api.create("allocations", {"name": "fuzz", "resource_class": RESOURCE_CLASS})
    assert api.call("GET", f"/v1/allocations/{allocation}", expect=200)["node_uuid"] == node
    template = api.create(
        "deploy_templates", {"name": "CUSTOM_FUZZ_TEMPLATE", "steps": [{**STEP, "priority": 10}]}
    )
    runbook = api.create("runbooks", {"name": "fuzz-runbook", "steps": [{**STEP, "order": 1}]})
    runbook_trait = "CUSTOM_FUZZ_RUNBOOK"
    api.call("PUT", f"/v1/runbooks/{runbook}/traits/{runbook_trait}", expect=204)
    history = api.call("GET", f"/v1/nodes/{node}/history", expect=200)["history"]
    (conductor, *_) = api.call("GET", "/v1/conductors", expect=200)["conductors"]
    indicators = api.call("GET", f"/v1/nodes/{node}/management/indicators", expect=200)
    return {
        "chassis": chassis,
        "node": node,
        "port": port,
        "portgroup": portgroup,
        "vif": vif,
        "trait": trait,
        "volume_connector": connector,
        "volume_target": target,
        "allocation": allocation,
        "deploy_template": template,
        "runbook": runbook,
        "runbook_trait": runbook_trait,
        "history": history[0]["uuid"],
        "conductor": conductor["hostname"],
        **({"indicator": _first_indicator(indicators)} if indicators.get("indicators") else {}),
    }


def _first_indicator(answer: dict[str, Any]) -> str:
    return str(answer["indicators"][0]["name"])


def _spares(api: _Api, phase: str) -> dict[str, str]:
    node = api.node(f"fuzz-spare-{phase}")
    allocated = api.available(f"fuzz-spare-allocated-{phase}", resource_class=f"spare-{phase}")
    api.create("allocations", {"resource_class": f"spare-{phase}"})
    return {
        "/v1/nodes/{ident}": api.node(f"fuzz-spare-deleted-{phase}"),
        "/v1/ports/{uuid}": api.create("ports", {"node_uuid": node, "address": _mac(phase)}),
        "/v1/portgroups/{ident}": api.create("portgroups", {"node_uuid": node}),
        "/v1/chassis/{ident}": api.create("chassis", {"description": f"spare of {phase}"}),
        "/v1/deploy_templates/{ident}": api.create(
            "deploy_templates",
            {"name": f"CUSTOM_SPARE_{phase.upper()}", "steps": [{**STEP, "priority": 10}]},
        ),
        "/v1/runbooks/{ident}": api.create(
            "runbooks", {"name": f"spare-{phase}", "steps": [{**STEP, "order": 1}]}
        ),
        # no node has its resource class: the allocation fails at once and stays, in error
        "/v1/allocations/{ident}": api.create("allocations", {"resource_class": f"none-{phase}"}),
        "/v1/volume/connectors/{uuid}": api.create(
            "volume/connectors",
            {"node_uuid": node, "type": "iqn", "connector_id": f"iqn.2026-12.org.example:{phase}"},
        ),
        "/v1/volume/targets/{uuid}": api.create(
            "volume/targets",
            {"node_uuid": node, "volume_type": "iscsi", "boot_index": 0, "volume_id": phase},
        ),
        "/v1/nodes/{ident}/allocation": allocated,
    }


def _mac(phase: str) -> str:
    return f"52:54:00:f1:00:{PHASES.index(phase):02x}"


def seed(url: str) -> Seeded:
    """Create the kept resources and the spares on the server at ``url``."""
    api = _Api(url)
    try:
        seeded = Seeded(kept=_kept(api))
        for phase in PHASES:
            seeded.spares[phase] = _spares(api, phase)
        assert all(set(spares) == set(SPARED_DELETES) for spares in seeded.spares.values())
        return seeded
    finally:
        api.client.close()
