"""``GET /v1/nodes/{node}/validate``: the storage interface's checks, as Ironic 39's cinder and
external storage interfaces make them (Nova refuses to deploy a node that fails them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tests.conftest import Api

ROOT_ISCSI = {"volume_type": "iscsi", "boot_index": 0, "volume_id": "vol-root"}


def storage_result(
    api: Api,
    storage: str,
    connectors: Sequence[tuple[str, str]] = (),
    targets: Sequence[dict[str, Any]] = (),
    **fields: Any,
) -> dict[str, Any]:
    node = api.node(name="bfv", storage_interface=storage, **fields)
    for kind, connector_id in connectors:
        resp = api.post(
            "/v1/volume/connectors",
            {"node_uuid": node["uuid"], "type": kind, "connector_id": connector_id},
        )
        assert resp.status_code == 201, resp.text
    for target in targets:
        resp = api.post("/v1/volume/targets", {"node_uuid": node["uuid"], **target})
        assert resp.status_code == 201, resp.text
    resp = api.get("/v1/nodes/bfv/validate")
    assert resp.status_code == 200, resp.text
    result: dict[str, Any] = resp.json()["storage"]
    return result


ISCSI_BOOT = {"properties": {"capabilities": "iscsi_boot:true"}}


@pytest.mark.parametrize(
    ("storage", "connectors", "targets", "fields"),
    [
        ("noop", [], [ROOT_ISCSI], {}),
        ("cinder", [], [], {}),
        ("cinder", [("iqn", "iqn.2004-04.com.example:a")], [ROOT_ISCSI], ISCSI_BOOT),
        (
            "cinder",
            [("iqn", "iqn.2004-04.com.example:a")],
            [ROOT_ISCSI],
            {**ISCSI_BOOT, "boot_interface": "ipxe"},
        ),
        (
            "cinder",
            [("wwpn", "21:00:00:24:ff:4c:a0:01"), ("wwnn", "20:00:00:24:ff:4c:a0:01")],
            [{**ROOT_ISCSI, "volume_type": "fibre_channel"}],
            {"properties": {"capabilities": "fibre_channel_boot:True"}},
        ),
        # A data volume (not the boot one) needs no boot capability.
        ("cinder", [("iqn", "iqn.2004-04.com.example:a")], [{**ROOT_ISCSI, "boot_index": 1}], {}),
        ("external", [], [ROOT_ISCSI], {"boot_interface": "ipxe"}),
        (
            "external",
            [],
            [ROOT_ISCSI],
            {"boot_interface": "pxe", "instance_info": {"image_source": "img"}},
        ),
    ],
)
def test_a_storage_configuration_ironic_accepts_validates(
    api: Api,
    storage: str,
    connectors: list[tuple[str, str]],
    targets: list[dict[str, Any]],
    fields: dict[str, Any],
) -> None:
    assert storage_result(api, storage, connectors, targets, **fields) == {"result": True}


@pytest.mark.parametrize(
    ("storage", "connectors", "targets", "fields", "why"),
    [
        (
            "cinder",
            [("iqn", "iqn.2004-04.com.example:a")],
            [],
            {"boot_interface": "pxe"},
            "needs an iPXE boot interface",
        ),
        (
            "cinder",
            [("wwpn", "21:00:00:24:ff:4c:a0:01")],
            [],
            {},
            "the node has 1 wwpn and 0 wwnn",
        ),
        (
            "cinder",
            [],
            [],
            ISCSI_BOOT,
            "the iscsi_boot capability needs a volume connector of type iqn",
        ),
        (
            "cinder",
            [("iqn", "iqn.2004-04.com.example:a")],
            [ROOT_ISCSI],
            {},
            "do not set iscsi_boot:true",
        ),
        (
            "cinder",
            [],
            [{**ROOT_ISCSI, "boot_index": 1}],
            {},
            "is of volume type iscsi, but the node has no volume connector of type iqn",
        ),
        (
            "cinder",
            [],
            [{**ROOT_ISCSI, "volume_type": "nfs"}],
            {},
            "has the volume type 'nfs'",
        ),
        ("external", [], [ROOT_ISCSI], {"boot_interface": "pxe"}, "not pxe"),
    ],
)
def test_a_storage_configuration_ironic_refuses_says_why(
    api: Api,
    storage: str,
    connectors: list[tuple[str, str]],
    targets: list[dict[str, Any]],
    fields: dict[str, Any],
    why: str,
) -> None:
    result = storage_result(api, storage, connectors, targets, **fields)
    assert result["result"] is False, result
    assert f"the {storage} storage interface refuses" in result["reason"]
    assert why in result["reason"], result["reason"]
