"""Record the API reference's examples from a real server.

Starts a real ``metalwire serve`` (``tests/support/server.py``) on a throwaway SQLite
database, makes every call the reference shows, checks each answered the status the reference
says, writes each exchange to ``docs/api-ref/examples/<name>.json`` and fills the
``<!-- example: <name> -->`` ... ``<!-- /example -->`` blocks of ``docs/api-ref/*.md``.

Run from the repository root::

    .venv/bin/python docs/api-ref/generate_examples.py

Request ids, timestamps and history UUIDs change from run to run; everything else is fixed.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EXAMPLES = HERE / "examples"
sys.path.insert(0, str(ROOT))

from metalwire.api_versions import MAX_MINOR  # noqa: E402
from tests.support.server import MetalwireServer  # noqa: E402

sys.path.insert(0, str(HERE))
from lifecycle_examples import record_lifecycle, record_volume  # noqa: E402

LATEST = "1.78"
IRONIC = "X-OpenStack-Ironic-API-Version"
PUBLIC_ENDPOINT = "http://127.0.0.1:6385"
# Response headers kept in the JSON files; the Markdown shows the ones in SHOWN.
KEPT = (
    "location",
    "warning",
    "allow",
    "x-openstack-ironic-api-version",
    "openstack-api-version",
    "x-openstack-ironic-api-minimum-version",
    "x-openstack-ironic-api-maximum-version",
    "x-openstack-request-id",
)
SHOWN = ("location", "warning", "allow")
VERSION_HEADERS = KEPT[3:7]

# Fixed identifiers, so the prose can name them.
NODE_1 = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
NODE_2 = "2c4e7f10-5b6a-4c8d-9e0f-1a2b3c4d5e6f"
NODE_3 = "3d5f8021-6c7b-4d9e-8f10-2b3c4d5e6f70"
NODE_4 = "4e609132-7d8c-4eaf-9021-3c4d5e6f7081"
NODE_5 = "5f71a243-8e9d-4fb0-a132-4d5e6f708192"
NODE_SPARE = "6082b354-9fae-40c1-b243-5e6f708192a3"
PORT_1 = "a1b2c3d4-0001-4000-8000-000000000001"
PORT_2 = "a1b2c3d4-0002-4000-8000-000000000002"
PORT_LEGACY = "a1b2c3d4-0003-4000-8000-000000000003"
MEMBER_1 = "b1b2c3d4-0001-4000-8000-000000000001"
MEMBER_2 = "b1b2c3d4-0002-4000-8000-000000000002"
STANDALONE = "b1b2c3d4-0003-4000-8000-000000000003"
PORT_5 = "c1b2c3d4-0001-4000-8000-000000000001"
PORT_4 = "d1b2c3d4-0001-4000-8000-000000000001"
BOND = "e1b2c3d4-0001-4000-8000-000000000001"
EMPTY_GROUP = "e1b2c3d4-0002-4000-8000-000000000002"
VIF_1 = "0a3f2c6e-0d6e-4f7e-9f0a-4d3c1f2b8e11"
VIF_2 = "1b4a3d7f-1e7f-4a8b-8a1b-5e4d2a3c9f22"
VIF_3 = "2c5b4e80-2f80-4b9c-9b2c-6f5e3b4da033"
VIF_4 = "3d6c5f91-3091-4cad-8c3d-706f4c5eb144"
VIF_5 = "4e7d60a2-41a2-4dbe-9d4e-8170506fc255"
VIF_6 = "5f8e71b3-52b3-4ecf-8e5f-92816170d366"
VIF_LEGACY = "6a9f82c4-63c4-4fd0-9f60-a39272810477"
VIF_DEPLOY = "7ba093d5-74d5-40e1-8071-b4a383921588"

_NO_BODY = object()


@dataclass
class Recorder:
    client: httpx.Client
    examples: dict[str, dict[str, Any]] = field(default_factory=dict)

    def call(
        self,
        name: str,
        method: str,
        path: str,
        body: Any = _NO_BODY,
        *,
        expect: int,
        version: str | None = LATEST,
        headers: dict[str, str] | None = None,
        raw: str | None = None,
    ) -> httpx.Response:
        """Make one call, check its status and keep it as example ``name``."""
        sent: dict[str, str] = {}
        if version is not None:
            sent[IRONIC] = version
        sent.update(headers or {})
        request: dict[str, Any] = {"method": method, "path": path}
        if raw is not None:
            sent["Content-Type"] = "application/json"
            resp = self.client.request(method, path, content=raw.encode(), headers=sent)
            request["body_text"] = raw
        elif body is _NO_BODY:
            resp = self.client.request(method, path, headers=sent)
        else:
            sent["Content-Type"] = "application/json"
            resp = self.client.request(method, path, json=body, headers=sent)
            request["body"] = body
        request["headers"] = sent
        if resp.status_code != expect:
            raise SystemExit(
                f"{name}: {method} {path} answered {resp.status_code}, expected {expect}:\n"
                f"{resp.text}"
            )
        if name in self.examples:
            raise SystemExit(f"example {name} recorded twice")
        self.examples[name] = {
            "request": request,
            "response": {
                "status": resp.status_code,
                "reason": resp.reason_phrase,
                "headers": {k: resp.headers[k] for k in KEPT if k in resp.headers},
                "body": resp.json() if resp.content else None,
            },
        }
        return resp

    def quiet(self, method: str, path: str, body: Any = _NO_BODY, expect: int = 200) -> Any:
        """A setup call that is not an example."""
        sent = {IRONIC: LATEST}
        if body is _NO_BODY:
            resp = self.client.request(method, path, headers=sent)
        else:
            resp = self.client.request(method, path, json=body, headers=sent)
        if resp.status_code != expect:
            raise SystemExit(f"setup {method} {path}: {resp.status_code} {resp.text}")
        return resp.json() if resp.content else None


def record_versions(r: Recorder) -> None:
    r.call("versions-root", "GET", "/", expect=200, version=None)
    r.call("versions-v1", "GET", "/v1/", expect=200, version="latest")
    r.call("versions-v1-default", "GET", "/v1/", expect=200, version=None)
    r.call(
        "versions-generic-header",
        "GET",
        "/v1/",
        expect=200,
        version=None,
        headers={"OpenStack-API-Version": "baremetal 1.28"},
    )
    r.call("versions-unsupported", "GET", "/v1/nodes", expect=406, version=f"1.{MAX_MINOR + 1}")
    r.call("versions-malformed", "GET", "/v1/nodes", expect=406, version="1.x")


def record_nodes(r: Recorder) -> None:
    r.call(
        "node-create",
        "POST",
        "/v1/nodes",
        {
            "uuid": NODE_1,
            "name": "node-1",
            "driver": "fake-hardware",
            "network_interface": "flat",
            "resource_class": "baremetal",
            "properties": {"cpus": 16, "memory_mb": 65536, "cpu_arch": "x86_64"},
        },
        expect=201,
    )
    for uuid, name, iface in (
        (NODE_2, "node-2", "flat"),
        (NODE_3, "node-3", "neutron"),
        (NODE_4, "node-4", "flat"),
        (NODE_5, "node-5", "flat"),
        (NODE_SPARE, "node-spare", "noop"),
    ):
        r.quiet(
            "POST",
            "/v1/nodes",
            {"uuid": uuid, "name": name, "driver": "fake-hardware", "network_interface": iface},
            expect=201,
        )
    r.call("node-show", "GET", "/v1/nodes/node-1", expect=200)
    r.call("node-show-1.1", "GET", f"/v1/nodes/{NODE_1}", expect=200, version="1.1")
    r.call("node-list", "GET", "/v1/nodes", expect=200)
    r.call(
        "node-list-fields",
        "GET",
        "/v1/nodes?fields=uuid,name,network_interface&sort_key=name&limit=2",
        expect=200,
    )
    r.call(
        "node-patch",
        "PATCH",
        "/v1/nodes/node-1",
        [
            {"op": "add", "path": "/extra/rack", "value": "r12"},
            {"op": "replace", "path": "/description", "value": "rack 12, slot 3"},
        ],
        expect=200,
    )
    r.call(
        "node-patch-read-only",
        "PATCH",
        "/v1/nodes/node-1",
        [{"op": "replace", "path": "/provision_state", "value": "active"}],
        expect=400,
    )
    r.call(
        "node-patch-escaped-key",
        "PATCH",
        "/v1/nodes/node-1",
        [{"op": "add", "path": "/extra/rack~1slot", "value": "12/3"}],
        expect=400,
        version=f"1.{MAX_MINOR}",
    )
    r.call("node-create-missing-driver", "POST", "/v1/nodes", {"name": "x"}, expect=400)
    r.call("node-create-unknown-driver", "POST", "/v1/nodes", {"driver": "idrac-wsman"}, expect=400)
    r.call(
        "node-create-interface-not-enabled",
        "POST",
        "/v1/nodes",
        {"driver": "fake-hardware", "network_interface": "audit"},
        expect=400,
    )
    r.call(
        "node-create-field-too-new",
        "POST",
        "/v1/nodes",
        {"driver": "fake-hardware", "network_interface": "flat"},
        expect=406,
        version="1.19",
    )
    r.call(
        "node-create-duplicate-name",
        "POST",
        "/v1/nodes",
        {"driver": "fake-hardware", "name": "node-1"},
        expect=409,
    )
    r.call("node-show-missing", "GET", "/v1/nodes/node-9", expect=404)
    r.quiet(
        "PATCH",
        "/v1/nodes/node-spare",
        [{"op": "add", "path": "/instance_uuid", "value": "9e1c3a4b-5d6e-4f70-8192-a3b4c5d6e7f8"}],
    )
    r.call("node-delete-in-use", "DELETE", "/v1/nodes/node-spare", expect=409)
    r.quiet(
        "PATCH",
        "/v1/nodes/node-spare",
        [
            {"op": "remove", "path": "/instance_uuid"},
            {"op": "add", "path": "/protected", "value": True},
        ],
    )
    r.call("node-delete-protected", "DELETE", "/v1/nodes/node-spare", expect=403)
    r.quiet(
        "PATCH", "/v1/nodes/node-spare", [{"op": "replace", "path": "/protected", "value": False}]
    )
    r.call("node-delete", "DELETE", "/v1/nodes/node-spare", expect=204)


def record_traits(r: Recorder) -> None:
    r.call(
        "traits-set",
        "PUT",
        "/v1/nodes/node-1/traits",
        {"traits": ["HW_CPU_X86_AVX2", "CUSTOM_GPU"]},
        expect=204,
    )
    r.call("traits-add", "PUT", "/v1/nodes/node-1/traits/CUSTOM_RAID", expect=204)
    r.call("traits-list", "GET", "/v1/nodes/node-1/traits", expect=200)
    r.call("traits-remove", "DELETE", "/v1/nodes/node-1/traits/CUSTOM_RAID", expect=204)
    r.call("traits-remove-missing", "DELETE", "/v1/nodes/node-1/traits/CUSTOM_RAID", expect=404)
    r.call("traits-invalid", "PUT", "/v1/nodes/node-1/traits/custom_raid", expect=400)
    r.call("traits-below-1.37", "GET", "/v1/nodes/node-1/traits", expect=406, version="1.36")
    r.call("traits-remove-all", "DELETE", "/v1/nodes/node-1/traits", expect=204)


def record_ports(r: Recorder) -> None:
    r.call(
        "port-create",
        "POST",
        "/v1/ports",
        {
            "uuid": PORT_1,
            "node_uuid": NODE_1,
            "address": "52:54:00:12:34:56",
            "local_link_connection": {
                "switch_id": "0a:1b:2c:3d:4e:5f",
                "port_id": "Ethernet1/1",
                "switch_info": "tor-1",
            },
            "physical_network": "physnet1",
            "pxe_enabled": True,
        },
        expect=201,
    )
    r.quiet(
        "POST",
        "/v1/ports",
        {
            "uuid": PORT_2,
            "node_uuid": NODE_1,
            "address": "52:54:00:12:34:57",
            "physical_network": "physnet1",
            "pxe_enabled": False,
        },
        expect=201,
    )
    r.call("port-list", "GET", "/v1/ports?node=node-1", expect=200)
    r.call("port-list-filter", "GET", "/v1/ports/detail?address=52:54:00:12:34:57", expect=200)
    r.call("port-show", "GET", f"/v1/ports/{PORT_1}", expect=200)
    r.call("node-ports", "GET", "/v1/nodes/node-1/ports", expect=200)
    r.call(
        "port-patch",
        "PATCH",
        f"/v1/ports/{PORT_2}",
        [{"op": "add", "path": "/extra/label", "value": "eno2"}],
        expect=200,
    )
    r.call(
        "port-create-duplicate-mac",
        "POST",
        "/v1/ports",
        {"node_uuid": NODE_1, "address": "52:54:00:12:34:56"},
        expect=409,
    )
    r.call(
        "port-create-bad-mac",
        "POST",
        "/v1/ports",
        {"node_uuid": NODE_1, "address": "52:54:00:12:34"},
        expect=400,
    )
    r.call(
        "port-create-bad-local-link",
        "POST",
        "/v1/ports",
        {
            "node_uuid": NODE_1,
            "address": "52:54:00:12:34:58",
            "local_link_connection": {"port_id": "Ethernet1/3"},
        },
        expect=400,
    )
    r.call(
        "port-create-field-too-new",
        "POST",
        "/v1/ports",
        {"node_uuid": NODE_1, "address": "52:54:00:12:34:58", "physical_network": "physnet1"},
        expect=406,
        version="1.33",
    )
    r.call("port-show-missing", "GET", "/v1/ports/52:54:00:12:34:56", expect=404)


def record_portgroups(r: Recorder) -> None:
    r.call(
        "portgroup-create",
        "POST",
        "/v1/portgroups",
        {
            "uuid": BOND,
            "node_uuid": NODE_2,
            "name": "node-2-bond0",
            "address": "52:54:00:aa:00:10",
            "mode": "802.3ad",
            "properties": {"miimon": 100},
            "standalone_ports_supported": False,
        },
        expect=201,
    )
    r.call(
        "port-create-member",
        "POST",
        "/v1/ports",
        {
            "uuid": MEMBER_1,
            "node_uuid": NODE_2,
            "pxe_enabled": False,
            "address": "52:54:00:aa:00:11",
            "portgroup_uuid": BOND,
        },
        expect=201,
    )
    r.quiet(
        "POST",
        "/v1/ports",
        {
            "uuid": MEMBER_2,
            "node_uuid": NODE_2,
            "pxe_enabled": False,
            "address": "52:54:00:aa:00:12",
            "portgroup_uuid": BOND,
        },
        expect=201,
    )
    r.quiet(
        "POST",
        "/v1/ports",
        {"uuid": STANDALONE, "node_uuid": NODE_2, "address": "52:54:00:aa:00:20"},
        expect=201,
    )
    r.quiet(
        "POST",
        "/v1/portgroups",
        {"uuid": EMPTY_GROUP, "node_uuid": NODE_2, "name": "node-2-bond1"},
        expect=201,
    )
    r.call("portgroup-list", "GET", "/v1/portgroups", expect=200)
    r.call("portgroup-show", "GET", "/v1/portgroups/node-2-bond0", expect=200)
    r.call("portgroup-ports", "GET", "/v1/portgroups/node-2-bond0/ports", expect=200)
    r.call("node-portgroups", "GET", "/v1/nodes/node-2/portgroups", expect=200)
    r.call(
        "portgroup-patch",
        "PATCH",
        "/v1/portgroups/node-2-bond0",
        [{"op": "add", "path": "/properties/xmit_hash_policy", "value": "layer3+4"}],
        expect=200,
    )
    r.call("portgroup-below-1.23", "GET", "/v1/portgroups", expect=404, version="1.22")
    r.call(
        "portgroup-create-duplicate-name",
        "POST",
        "/v1/portgroups",
        {"node_uuid": NODE_2, "name": "node-2-bond0"},
        expect=409,
    )
    r.call("portgroup-delete-with-members", "DELETE", "/v1/portgroups/node-2-bond0", expect=400)
    r.call("portgroup-delete", "DELETE", "/v1/portgroups/node-2-bond1", expect=204)


def record_vifs(r: Recorder, db_path: Path) -> None:
    # node-1: two ports on physnet1, the first PXE-enabled.
    r.call("vif-attach", "POST", "/v1/nodes/node-1/vifs", {"id": VIF_1}, expect=204)
    r.call(
        "vif-attach-port",
        "POST",
        "/v1/nodes/node-1/vifs",
        {"id": VIF_2, "port_uuid": PORT_2},
        expect=204,
        version="1.67",
    )
    r.call("vif-list", "GET", "/v1/nodes/node-1/vifs", expect=200)
    r.call("port-show-attached", "GET", f"/v1/ports/{PORT_1}?fields=uuid,internal_info", expect=200)
    r.call(
        "vif-attach-target-busy",
        "POST",
        "/v1/nodes/node-1/vifs",
        {"id": VIF_3, "port_uuid": PORT_1},
        expect=400,
    )
    r.call(
        "vif-attach-both-targets",
        "POST",
        "/v1/nodes/node-1/vifs",
        {"id": VIF_3, "port_uuid": PORT_1, "portgroup_uuid": BOND},
        expect=400,
        version="1.67",
    )
    r.call(
        "vif-attach-bad-port-uuid",
        "POST",
        "/v1/nodes/node-1/vifs",
        {"id": VIF_3, "port_uuid": "eth0"},
        expect=400,
    )
    r.call(
        "vif-attach-foreign-port",
        "POST",
        "/v1/nodes/node-1/vifs",
        {"id": VIF_3, "port_uuid": STANDALONE},
        expect=400,
    )
    r.call("vif-attach-missing-id", "POST", "/v1/nodes/node-1/vifs", {}, expect=400)
    r.call("vif-attach-bad-id", "POST", "/v1/nodes/node-1/vifs", {"id": "vif 3"}, expect=400)
    r.call("vif-attach-already-here", "POST", "/v1/nodes/node-1/vifs", {"id": VIF_1}, expect=409)
    r.call("vif-attach-other-node", "POST", "/v1/nodes/node-2/vifs", {"id": VIF_1}, expect=409)
    r.call("vif-attach-unknown-node", "POST", "/v1/nodes/node-9/vifs", {"id": VIF_3}, expect=404)
    r.call("vif-list-1.27", "GET", "/v1/nodes/node-1/vifs", expect=404, version="1.27")
    r.call("vif-detach", "DELETE", f"/v1/nodes/node-1/vifs/{VIF_2}", expect=204)
    r.call("vif-detach-not-attached", "DELETE", f"/v1/nodes/node-1/vifs/{VIF_2}", expect=400)

    # node-2: bond0 (two members, no standalone ports) and one standalone port.
    r.call(
        "vif-attach-selects-portgroup", "POST", "/v1/nodes/node-2/vifs", {"id": VIF_4}, expect=204
    )
    r.call("vif-attach-selects-port", "POST", "/v1/nodes/node-2/vifs", {"id": VIF_5}, expect=204)
    r.call("vif-attach-no-free-port", "POST", "/v1/nodes/node-2/vifs", {"id": VIF_6}, expect=400)
    r.call(
        "portgroup-show-attached",
        "GET",
        "/v1/portgroups/node-2-bond0?fields=uuid,name,internal_info",
        expect=200,
    )
    r.quiet("DELETE", f"/v1/nodes/node-2/vifs/{VIF_4}", expect=204)
    r.call(
        "vif-attach-portgroup",
        "POST",
        "/v1/nodes/node-2/vifs",
        {"id": VIF_4, "portgroup_uuid": BOND, "note": "passed to the network interface"},
        expect=204,
        version="1.67",
    )
    r.call("vif-list-node-2", "GET", "/v1/nodes/node-2/vifs", expect=200)

    # node-3: the neutron interface with no Neutron endpoint configured.
    r.call(
        "vif-attach-interface-invalid", "POST", "/v1/nodes/node-3/vifs", {"id": VIF_3}, expect=400
    )

    # node-4: a lease left in the node row by a process that died, as a crash would leave it.
    r.quiet(
        "POST",
        "/v1/ports",
        {"uuid": PORT_4, "node_uuid": NODE_4, "address": "52:54:00:40:00:01"},
        expect=201,
    )
    with sqlite3.connect(db_path) as db:
        db.execute(
            "UPDATE nodes SET reservation = ?, lock_expires_at = ? WHERE uuid = ?",
            ("conductor-2:4242:9f3e2d1c", time.time() + 3600, NODE_4),
        )
    r.call("vif-attach-node-locked", "POST", "/v1/nodes/node-4/vifs", {"id": VIF_3}, expect=409)
    with sqlite3.connect(db_path) as db:
        db.execute(
            "UPDATE nodes SET reservation = NULL, lock_expires_at = NULL WHERE uuid = ?", (NODE_4,)
        )

    # Changing a port that carries a VIF.
    r.call(
        "port-patch-physnet-with-vif",
        "PATCH",
        f"/v1/ports/{PORT_1}",
        [{"op": "replace", "path": "/physical_network", "value": "physnet2"}],
        expect=409,
    )
    r.call("port-delete-with-vif", "DELETE", f"/v1/ports/{PORT_1}", expect=409)
    r.call(
        "node-patch-interface-with-vifs",
        "PATCH",
        "/v1/nodes/node-1",
        [{"op": "replace", "path": "/network_interface", "value": "noop"}],
        expect=409,
    )

    # The deprecated extra/vif_port_id path.
    r.quiet(
        "POST",
        "/v1/ports",
        {"uuid": PORT_LEGACY, "node_uuid": NODE_1, "address": "52:54:00:12:34:59"},
        expect=201,
    )
    r.call(
        "legacy-port-patch",
        "PATCH",
        f"/v1/ports/{PORT_LEGACY}",
        [{"op": "add", "path": "/extra/vif_port_id", "value": VIF_LEGACY}],
        expect=200,
    )
    r.call("legacy-vif-list", "GET", "/v1/nodes/node-1/vifs", expect=200)
    r.call("legacy-vif-detach", "DELETE", f"/v1/nodes/node-1/vifs/{VIF_LEGACY}", expect=204)
    r.call(
        "legacy-port-show-after-detach",
        "GET",
        f"/v1/ports/{PORT_LEGACY}?fields=uuid,extra,internal_info",
        expect=200,
    )
    r.call("port-delete", "DELETE", f"/v1/ports/{PORT_LEGACY}", expect=204)


def record_states(r: Recorder) -> None:
    r.quiet(
        "POST",
        "/v1/ports",
        {"uuid": PORT_5, "node_uuid": NODE_5, "address": "52:54:00:50:00:01"},
        expect=201,
    )
    r.call("states-show", "GET", "/v1/nodes/node-5/states", expect=200)
    r.call(
        "states-manage",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "manage"},
        expect=202,
    )
    r.call(
        "states-provide",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "provide"},
        expect=202,
    )
    r.call(
        "states-wrong-state",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "provide"},
        expect=400,
    )
    r.quiet("POST", "/v1/nodes/node-5/vifs", {"id": VIF_DEPLOY}, expect=204)
    r.call(
        "states-verb-too-new",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "deploy"},
        expect=406,
        version="1.72",
    )
    r.call(
        "states-deploy",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "deploy"},
        expect=202,
    )
    r.call("states-show-active", "GET", "/v1/nodes/node-5/states", expect=200)
    r.call("node-delete-busy", "DELETE", "/v1/nodes/node-5", expect=409)
    r.call(
        "states-undeploy",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "undeploy"},
        expect=202,
    )
    r.call("states-vifs-after-undeploy", "GET", "/v1/nodes/node-5/vifs", expect=200)
    r.call(
        "states-unknown-target",
        "PUT",
        "/v1/nodes/node-5/states/provision",
        {"target": "inspect"},
        expect=400,
    )
    r.call(
        "maintenance-set",
        "PUT",
        "/v1/nodes/node-5/maintenance",
        {"reason": "replacing a DIMM"},
        expect=202,
    )
    r.call(
        "node-show-maintenance",
        "GET",
        "/v1/nodes/node-5?fields=uuid,maintenance,maintenance_reason",
        expect=200,
    )
    r.call("maintenance-unset", "DELETE", "/v1/nodes/node-5/maintenance", expect=202)


def record_history(r: Recorder) -> None:
    r.call("history-list", "GET", "/v1/nodes/node-1/history", expect=200)
    resp = r.call(
        "history-list-detail", "GET", "/v1/nodes/node-1/history?detail=true&limit=2", expect=200
    )
    first = resp.json()["history"][0]["uuid"]
    r.call("history-show", "GET", f"/v1/nodes/node-1/history/{first}", expect=200)
    r.call("history-below-1.78", "GET", "/v1/nodes/node-1/history", expect=404, version="1.77")
    r.call(
        "history-show-missing",
        "GET",
        "/v1/nodes/node-1/history/00000000-0000-4000-8000-000000000000",
        expect=404,
    )


def record_errors(r: Recorder) -> None:
    r.call("error-method-not-allowed", "PUT", "/v1/nodes", {"driver": "x"}, expect=405)
    r.call("error-unknown-path", "GET", "/v1/chassis", expect=404)
    r.call("error-malformed-json", "POST", "/v1/nodes", raw='{"driver": ', expect=400)
    r.call("error-bad-limit", "GET", "/v1/nodes?limit=ten", expect=400)
    r.call("error-bad-sort-key", "GET", "/v1/nodes?sort_key=driver_info", expect=400)
    r.call("error-detail-too-old", "GET", "/v1/nodes?detail=true", expect=400, version="1.42")


# -- Markdown ------------------------------------------------------------------------------

_BLOCK = re.compile(r"(<!-- example: ([\w.-]+) -->\n)(.*?)(<!-- /example -->)", re.DOTALL)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def render(name: str, example: dict[str, Any]) -> str:
    req, resp = example["request"], example["response"]
    lines = ["```http", f"{req['method']} {req['path']} HTTP/1.1"]
    lines += [f"{k}: {v}" for k, v in req["headers"].items()]
    if "body" in req:
        lines += ["", _json(req["body"])]
    elif "body_text" in req:
        lines += ["", req["body_text"]]
    lines += ["```", "", "```http", f"HTTP/1.1 {resp['status']} {resp['reason']}"]
    shown = SHOWN + (VERSION_HEADERS if name.startswith("versions") else ())
    lines += [f"{k}: {v}" for k, v in resp["headers"].items() if k in shown]
    if resp["body"] is not None:
        lines += ["", _json(resp["body"])]
    lines += ["```", ""]
    body = resp["body"]
    if isinstance(body, dict) and isinstance(body.get("error_message"), str):
        error = json.loads(body["error_message"])
        key = "faultstring" if "faultstring" in error else "description"
        lines += [f"`{key}`: {error[key]}", ""]
    lines += [f"Recorded in [`examples/{name}.json`](examples/{name}.json).", ""]
    return "\n".join(lines)


def fill_markdown(examples: dict[str, dict[str, Any]]) -> set[str]:
    """Fill every example block of the pages; return the names shown."""
    used: set[str] = set()
    for page in sorted(HERE.glob("*.md")):
        text = page.read_text()
        missing = [m.group(2) for m in _BLOCK.finditer(text) if m.group(2) not in examples]
        if missing:
            raise SystemExit(f"{page.name} shows examples not recorded: {', '.join(missing)}")
        used.update(m.group(2) for m in _BLOCK.finditer(text))
        new = _BLOCK.sub(
            lambda m: m.group(1) + render(m.group(2), examples[m.group(2)]) + m.group(4), text
        )
        if new != text:
            page.write_text(new)
    return used


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="metalwire-examples-") as tmp:
        data_dir = Path(tmp)
        env = {
            "METALWIRE_API_PUBLIC_ENDPOINT": PUBLIC_ENDPOINT,
            "METALWIRE_HOST": "conductor-1",
            "METALWIRE_CONDUCTOR_NODE_LOCK_WAIT": "2",
        }
        with (
            MetalwireServer(data_dir, env=env) as server,
            httpx.Client(base_url=server.url, timeout=30) as client,
        ):
            r = Recorder(client)
            try:
                record_versions(r)
                record_nodes(r)
                record_traits(r)
                record_ports(r)
                record_portgroups(r)
                record_vifs(r, data_dir / "metalwire.db")
                record_states(r)
                record_lifecycle(r)
                record_volume(r)
                record_history(r)
                record_errors(r)
            except SystemExit:
                print(server.log()[-6000:], file=sys.stderr)
                raise
    EXAMPLES.mkdir(exist_ok=True)
    for old in EXAMPLES.glob("*.json"):
        if old.stem not in r.examples:
            old.unlink()
    for name, example in r.examples.items():
        (EXAMPLES / f"{name}.json").write_text(_json(example) + "\n")
    used = fill_markdown(r.examples)
    print(f"wrote {len(r.examples)} examples to {EXAMPLES.relative_to(ROOT)}")
    unused = sorted(set(r.examples) - used)
    if unused:
        print(f"not shown in any page: {', '.join(unused)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
