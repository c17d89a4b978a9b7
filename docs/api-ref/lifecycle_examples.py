"""The examples of lifecycle.md and volume.md, recorded by generate_examples.py."""

from __future__ import annotations

from typing import Any

NODE_NOVA = "7193c465-0a1b-4c2d-8e3f-6f708192a3b4"
CONNECTOR_1 = "f1b2c3d4-0001-4000-8000-000000000001"
TARGET_1 = "f2b2c3d4-0001-4000-8000-000000000001"


def record_lifecycle(r: Any) -> None:
    """A fake-hardware node taken through the calls Nova's ironic driver makes."""
    r.quiet(
        "POST",
        "/v1/nodes",
        {"uuid": NODE_NOVA, "name": "node-nova", "driver": "fake-hardware"},
        expect=201,
    )
    r.quiet("POST", "/v1/ports", {"node_uuid": NODE_NOVA, "address": "52:54:00:77:00:01"}, 201)
    for verb in ("manage", "provide"):
        r.quiet("PUT", "/v1/nodes/node-nova/states/provision", {"target": verb}, 202)
    r.call("node-validate", "GET", "/v1/nodes/node-nova/validate", expect=200)
    r.call(
        "provision-active-configdrive",
        "PUT",
        "/v1/nodes/node-nova/states/provision",
        {"target": "active", "configdrive": "H4sICDe5e2cAA2NvbmZpZ2RyaXZlAAMAAAAAAAAAAAA="},
        expect=202,
    )
    r.call(
        "power-soft-reboot",
        "PUT",
        "/v1/nodes/node-nova/states/power",
        {"target": "soft rebooting"},
        expect=202,
    )
    r.call(
        "power-off-timeout",
        "PUT",
        "/v1/nodes/node-nova/states/power",
        {"target": "soft power off", "timeout": 60},
        expect=202,
    )
    r.call(
        "power-bad-timeout",
        "PUT",
        "/v1/nodes/node-nova/states/power",
        {"target": "power on", "timeout": 0},
        expect=400,
    )
    r.call(
        "power-soft-below-1.27",
        "PUT",
        "/v1/nodes/node-nova/states/power",
        {"target": "soft rebooting"},
        expect=406,
        version="1.26",
    )
    r.call(
        "power-unknown-target",
        "PUT",
        "/v1/nodes/node-nova/states/power",
        {"target": "hibernate"},
        expect=400,
    )
    r.quiet("PUT", "/v1/nodes/node-nova/states/power", {"target": "power on"}, 202)
    r.call("states-after-power", "GET", "/v1/nodes/node-nova/states", expect=200)
    r.call(
        "provision-rescue",
        "PUT",
        "/v1/nodes/node-nova/states/provision",
        {"target": "rescue", "rescue_password": "s3cret"},
        expect=202,
    )
    r.call(
        "provision-rescue-shown",
        "GET",
        "/v1/nodes/node-nova?fields=provision_state,instance_info",
        expect=200,
    )
    r.call(
        "provision-unrescue",
        "PUT",
        "/v1/nodes/node-nova/states/provision",
        {"target": "unrescue"},
        expect=202,
    )
    r.call(
        "provision-rescue-no-password",
        "PUT",
        "/v1/nodes/node-nova/states/provision",
        {"target": "rescue"},
        expect=400,
    )
    r.call("console-show-disabled", "GET", "/v1/nodes/node-nova/states/console", expect=200)
    r.call(
        "console-enable", "PUT", "/v1/nodes/node-nova/states/console", {"enabled": True}, expect=202
    )
    r.call("console-show-enabled", "GET", "/v1/nodes/node-nova/states/console", expect=200)
    r.call("inject-nmi-fake", "PUT", "/v1/nodes/node-nova/management/inject_nmi", {}, expect=400)


def record_volume(r: Any) -> None:
    r.call("volume-root", "GET", "/v1/volume", expect=200)
    r.call("node-volume-root", "GET", "/v1/nodes/node-nova/volume", expect=200)
    r.call(
        "volume-connector-create",
        "POST",
        "/v1/volume/connectors",
        {
            "uuid": CONNECTOR_1,
            "node_uuid": NODE_NOVA,
            "type": "iqn",
            "connector_id": "iqn.2017-05.org.openstack:node-nova",
        },
        expect=201,
    )
    r.call(
        "volume-connector-duplicate",
        "POST",
        "/v1/volume/connectors",
        {
            "node_uuid": NODE_NOVA,
            "type": "iqn",
            "connector_id": "iqn.2017-05.org.openstack:node-nova",
        },
        expect=409,
    )
    r.call(
        "volume-target-create",
        "POST",
        "/v1/volume/targets",
        {
            "uuid": TARGET_1,
            "node_uuid": NODE_NOVA,
            "volume_type": "iscsi",
            "boot_index": 0,
            "volume_id": "04452bed-5367-4202-8bf5-de4335ac56d2",
            "properties": {"target_lun": 0},
        },
        expect=201,
    )
    r.call(
        "volume-target-duplicate-boot-index",
        "POST",
        "/v1/volume/targets",
        {"node_uuid": NODE_NOVA, "volume_type": "iscsi", "boot_index": 0, "volume_id": "v2"},
        expect=409,
    )
    r.call("volume-target-list", "GET", f"/v1/volume/targets?node={NODE_NOVA}", expect=200)
    r.call("volume-target-list-detail", "GET", "/v1/volume/targets?detail=True", expect=200)
    r.call("volume-connector-show", "GET", f"/v1/volume/connectors/{CONNECTOR_1}", expect=200)
    r.call(
        "volume-target-delete-powered-on", "DELETE", f"/v1/volume/targets/{TARGET_1}", expect=400
    )
    r.quiet("PUT", "/v1/nodes/node-nova/states/power", {"target": "power off"}, 202)
    r.call(
        "volume-connector-patch",
        "PATCH",
        f"/v1/volume/connectors/{CONNECTOR_1}",
        [{"op": "add", "path": "/extra/rack", "value": "r12"}],
        expect=200,
    )
    r.call("volume-target-delete", "DELETE", f"/v1/volume/targets/{TARGET_1}", expect=204)
    r.call("volume-below-1.32", "GET", "/v1/volume/connectors", expect=404, version="1.31")
