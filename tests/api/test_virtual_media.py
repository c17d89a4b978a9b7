"""``/v1/nodes/{node}/vmedia``: virtual media attach and detach (1.89) and list (1.93).

Ironic 39 answers an attach or detach of a fake-hardware node 204 and then records its
management interface's refusal in the node's history and last_error; the list answers the
refusal (400). Only redfish management has virtual media.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, fault, routing_error

MISSING = "0e0e0e0e-1111-4222-8333-444444444444"
CDROM = {"device_type": "cdrom", "image_url": "http://image.example/boot.iso"}


def history(api: Api, node: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = api.get(f"/v1/nodes/{node}/history?detail=true").json()[
        "history"
    ]
    return entries


def last_error(api: Api, node: str) -> Any:
    return api.get(f"/v1/nodes/{node}").json()["last_error"]


def redfish_node(api: Api, name: str) -> dict[str, Any]:
    return api.node(
        name=name, driver="redfish", driver_info={"redfish_address": "https://192.0.2.20"}
    )


def test_fake_hardware_answers_204_and_records_the_attach_it_cannot_do(api: Api) -> None:
    node = api.node(name="vm-fake")
    resp = api.post("/v1/nodes/vm-fake/vmedia", CDROM)
    assert resp.status_code == 204, resp.text
    refusal = (
        f"Could not attach device cdrom to node {node['uuid']} (vm-fake): Driver fake-hardware "
        "does not support attach_virtual_media (disabled or not implemented)."
    )
    assert last_error(api, "vm-fake") == refusal
    entry = history(api, "vm-fake")[-1]
    assert (entry["event"], entry["severity"], entry["event_type"]) == (
        refusal,
        "ERROR",
        "management",
    )


def test_fake_hardware_answers_204_and_records_the_detach_it_cannot_do(api: Api) -> None:
    api.node(name="vm-fake-d")
    resp = api.delete("/v1/nodes/vm-fake-d/vmedia?device_types=cdrom,floppy")
    assert resp.status_code == 204, resp.text
    error = last_error(api, "vm-fake-d")
    assert error.startswith("Could not detach device(s) cdrom, floppy from node ")
    assert error.endswith("does not support detach_virtual_media (disabled or not implemented).")
    assert history(api, "vm-fake-d")[-1]["severity"] == "ERROR"


def test_fake_hardware_refuses_the_list(api: Api) -> None:
    api.node(name="vm-fake-g")
    resp = api.get("/v1/nodes/vm-fake-g/vmedia")
    assert resp.status_code == 400
    assert fault(resp) == (
        "Driver fake-hardware does not support get_virtual_media (disabled or not implemented)."
    )


def test_redfish_records_what_is_attached_and_detached(api: Api) -> None:
    redfish_node(api, "vm-rf")
    assert api.post("/v1/nodes/vm-rf/vmedia", CDROM).status_code == 204
    floppy = {
        "device_type": "floppy",
        "image_url": "nfs://nas/f.img",
        "image_download_source": "http",
    }
    assert api.post("/v1/nodes/vm-rf/vmedia", floppy).status_code == 204
    listed = api.get("/v1/nodes/vm-rf/vmedia")
    assert listed.status_code == 200, listed.text
    assert listed.json() == [
        {"media_types": ["USBStick"], "inserted": False, "image": ""},
        {"media_types": ["CD"], "inserted": True, "image": CDROM["image_url"]},
        {"media_types": ["Floppy"], "inserted": True, "image": "nfs://nas/f.img"},
    ]
    assert last_error(api, "vm-rf") is None
    assert history(api, "vm-rf")[-1]["severity"] == "INFO"

    assert api.delete("/v1/nodes/vm-rf/vmedia?device_types=cdrom").status_code == 204
    inserted = [d["inserted"] for d in api.get("/v1/nodes/vm-rf/vmedia").json()]
    assert inserted == [False, False, True]
    assert api.delete("/v1/nodes/vm-rf/vmedia").status_code == 204
    assert not any(d["inserted"] for d in api.get("/v1/nodes/vm-rf/vmedia").json())
    assert "virtual_media" not in api.get("/v1/nodes/vm-rf").json()


def test_an_image_only_the_bmc_can_read_cannot_be_served_locally(api: Api) -> None:
    redfish_node(api, "vm-nfs")
    body = {"device_type": "cdrom", "image_url": "nfs://nas/boot.iso"}  # source: local
    assert api.post("/v1/nodes/vm-nfs/vmedia", body).status_code == 204
    assert "image_download_source is local" in last_error(api, "vm-nfs")
    assert not any(d["inserted"] for d in api.get("/v1/nodes/vm-nfs/vmedia").json())


def test_no_password_of_an_image_url_is_recorded(api: Api) -> None:
    redfish_node(api, "vm-pw")
    body = {"device_type": "cdrom", "image_url": "https://user:s3cret@images.example/a.iso"}
    assert api.post("/v1/nodes/vm-pw/vmedia", body).status_code == 204
    assert "s3cret" not in api.get("/v1/nodes/vm-pw/history?detail=true").text
    assert "s3cret" not in api.get("/v1/nodes/vm-pw/vmedia").text


def test_a_bmc_interface_without_its_address_is_refused_at_once(api: Api) -> None:
    api.node(name="vm-ipmi", driver="ipmi")
    resp = api.post("/v1/nodes/vm-ipmi/vmedia", CDROM)
    assert resp.status_code == 400
    assert "ipmi_address" in fault(resp)
    assert last_error(api, "vm-ipmi") is None


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"image_url": "http://i/x.iso"}, "device_type"),
        ({"device_type": "cdrom"}, "image_url"),
        ({**CDROM, "device_type": "dvd"}, "dvd"),
        ({**CDROM, "image_url": "ftp://i/x.iso"}, "'ftp'"),
        ({**CDROM, "image_url": "image"}, "missing URL scheme"),
        ({**CDROM, "image_url": 7}, "image_url"),
        ({**CDROM, "image_download_source": "glance"}, "image_download_source"),
        ({**CDROM, "insecure": True}, "insecure"),
        (["cdrom"], "JSON object"),
    ],
)
def test_an_attach_body_ironic_refuses_is_400_naming_what_is_wrong(
    api: Api, body: Any, named: str
) -> None:
    api.node(name="vm-bad")
    before = len(history(api, "vm-bad"))
    resp = api.post("/v1/nodes/vm-bad/vmedia", body)
    assert resp.status_code == 400, resp.text
    assert named in fault(resp)
    assert len(history(api, "vm-bad")) == before  # nothing was done


def test_a_detach_of_a_device_type_ironic_does_not_know_is_400(api: Api) -> None:
    api.node(name="vm-bad-d")
    resp = api.delete("/v1/nodes/vm-bad-d/vmedia?device_types=cdrom,dvd")
    assert resp.status_code == 400
    assert fault(resp) == "Invalid device type(s) dvd (valid are disk, cdrom, floppy)."


def test_an_unknown_node_is_404(api: Api) -> None:
    for resp in (
        api.post(f"/v1/nodes/{MISSING}/vmedia", CDROM),
        api.delete(f"/v1/nodes/{MISSING}/vmedia"),
        api.get(f"/v1/nodes/{MISSING}/vmedia"),
    ):
        assert resp.status_code == 404
        assert MISSING in fault(resp)


@pytest.mark.parametrize(
    ("method", "version", "since"),
    [("POST", "1.88", "1.89"), ("DELETE", "1.88", "1.89"), ("GET", "1.88", "1.89")],
)
def test_below_its_version_there_is_no_such_resource(
    api: Api, method: str, version: str, since: str
) -> None:
    api.node(name="vm-old")
    resp = api.client.request(
        method, "/v1/nodes/vm-old/vmedia", headers=api.headers(version), json=CDROM
    )
    assert resp.status_code == 404
    assert f"it exists from {since}" in routing_error(resp)["description"]
    assert last_error(api, "vm-old") is None


def test_the_list_below_1_93_is_refused_by_its_handler(api: Api) -> None:
    """From 1.89 Ironic routes the path, and the list's handler refuses a version below 1.93:
    the fault body, with the version headers."""
    api.node(name="vm-old-get")
    resp = api.get("/v1/nodes/vm-old-get/vmedia", version="1.92")
    assert resp.status_code == 404
    assert fault(resp) == (
        "The resource could not be found at API version 1.92; it exists from 1.93."
    )
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.92"
