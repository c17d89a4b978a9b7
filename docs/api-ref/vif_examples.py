"""The examples of vifs.md: attaching and detaching on node-1 to node-4, the answers when a
VIF cannot be attached, changes refused to a port that carries one, and extra/vif_port_id."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from example_objects import (
    BOND,
    NODE_1,
    NODE_4,
    PORT_1,
    PORT_2,
    PORT_4,
    PORT_LEGACY,
    STANDALONE,
    VIF_1,
    VIF_2,
    VIF_3,
    VIF_4,
    VIF_5,
    VIF_6,
    VIF_LEGACY,
)
from example_recorder import Recorder


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
