"""The examples of nodes.md, ports.md and portgroups.md: the inventory of node-1 and node-2
that the VIF examples then work on, and the errors of each resource."""

from __future__ import annotations

from example_objects import (
    BOND,
    EMPTY_GROUP,
    MEMBER_1,
    MEMBER_2,
    NODE_1,
    NODE_2,
    NODE_3,
    NODE_4,
    NODE_5,
    NODE_SPARE,
    PORT_1,
    PORT_2,
    STANDALONE,
)
from example_recorder import Recorder

from metalwire.api_versions import MAX_MINOR


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
    r.quiet("PATCH", "/v1/nodes/node-spare", [{"op": "remove", "path": "/instance_uuid"}])
    # As Ironic, only a deployed node is made protected.
    for verb in ("manage", "provide", "active"):
        r.quiet("PUT", "/v1/nodes/node-spare/states/provision", {"target": verb}, expect=202)
    r.quiet("PATCH", "/v1/nodes/node-spare", [{"op": "add", "path": "/protected", "value": True}])
    r.call("node-delete-protected", "DELETE", "/v1/nodes/node-spare", expect=403)
    r.quiet(
        "PATCH", "/v1/nodes/node-spare", [{"op": "replace", "path": "/protected", "value": False}]
    )
    r.quiet("PUT", "/v1/nodes/node-spare/states/provision", {"target": "deleted"}, expect=202)
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
    r.call("port-show-missing", "GET", "/v1/ports/a1b2c3d4-00ff-4000-8000-0000000000ff", expect=404)
    r.call("port-show-by-mac", "GET", "/v1/ports/52:54:00:12:34:56", expect=400)


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
