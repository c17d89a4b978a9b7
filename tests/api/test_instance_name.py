"""A node's ``instance_name`` (1.104) through HTTP: the field, its list filter and their
gates at 1.103 and 1.104, Ironic's length rule, and the name taken from
``instance_info/display_name``."""

from __future__ import annotations

import pytest

from tests.conftest import Api, fault

GATE = "instance_name is not acceptable in this API version"


def test_the_filter_is_refused_below_1_104_with_ironics_words(api: Api) -> None:
    api.node(name="vm-host-1", instance_name="vm1")
    api.node(name="vm-host-2", instance_name="vm2")
    old = api.get("/v1/nodes?instance_name=vm1", version="1.103")
    assert old.status_code == 406
    assert fault(old) == GATE
    for path in ("/v1/nodes", "/v1/nodes/detail"):
        listed = api.get(f"{path}?instance_name=vm1", version="1.104").json()["nodes"]
        assert [n["name"] for n in listed] == ["vm-host-1"]
    assert api.get("/v1/nodes?instance_name=vm3").json()["nodes"] == []


def test_the_field_is_hidden_and_refused_below_1_104(api: Api) -> None:
    body = {"driver": "fake-hardware", "instance_name": "vm1"}
    assert api.post("/v1/nodes", body, version="1.103").status_code == 406
    node = api.node(instance_name="vm1")
    url = f"/v1/nodes/{node['uuid']}"
    assert "instance_name" not in api.get(url, version="1.103").json()
    assert api.get(url, version="1.104").json()["instance_name"] == "vm1"
    assert api.get(f"{url}?fields=instance_name", version="1.103").status_code == 406
    patch = [{"op": "replace", "path": "/instance_name", "value": "vm2"}]
    assert api.patch(url, patch, version="1.103").status_code == 406
    assert api.patch(url, patch, version="1.104").json()["instance_name"] == "vm2"
    removed = api.patch(url, [{"op": "remove", "path": "/instance_name"}])
    assert removed.status_code == 200 and removed.json()["instance_name"] is None


@pytest.mark.parametrize(("value", "words"), [("", "cannot be empty"), ("x" * 256, "255")])
def test_a_name_outside_1_to_255_characters_is_400(api: Api, value: str, words: str) -> None:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "instance_name": value})
    assert resp.status_code == 400
    assert "instance_name" in fault(resp) and words in fault(resp)
    assert api.node(instance_name="x" * 255)["instance_name"] == "x" * 255


def test_instance_info_display_name_names_an_unnamed_instance(api: Api) -> None:
    node = api.node()
    url = f"/v1/nodes/{node['uuid']}"
    info = [{"op": "add", "path": "/instance_info", "value": {"display_name": "web-1"}}]
    assert api.patch(url, info).json()["instance_name"] == "web-1"
    # A name already set stays; so does one given in the same patch.
    again = [{"op": "add", "path": "/instance_info", "value": {"display_name": "web-2"}}]
    assert api.patch(url, again).json()["instance_name"] == "web-1"
    other = api.node()
    both = [
        {"op": "add", "path": "/instance_info", "value": {"display_name": "web-3"}},
        {"op": "add", "path": "/instance_name", "value": "chosen"},
    ]
    assert api.patch(f"/v1/nodes/{other['uuid']}", both).json()["instance_name"] == "chosen"
    # Older clients (Nova's driver sends 1.78 or older) name the instance the same way.
    third = api.node()
    old = api.patch(f"/v1/nodes/{third['uuid']}", info, version="1.78")
    assert old.status_code == 200, old.text
    assert api.get(f"/v1/nodes/{third['uuid']}").json()["instance_name"] == "web-1"
