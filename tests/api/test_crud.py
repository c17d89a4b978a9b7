"""The CRUD contract every resource keeps, through HTTP, for nodes, ports and portgroups."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import Api, fault
from tests.support.crud import RESOURCES, Resource, a_uuid

pytestmark = pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.collection)


def _node_maker(api: Api) -> Callable[[], str]:
    made: list[str] = []

    def node() -> str:
        if not made:
            made.append(api.node(name="crud-owner")["uuid"])
        return made[0]

    return node


def test_create_show_list_patch_delete(api: Api, resource: Resource) -> None:
    body = resource.make_body(_node_maker(api), 1)
    created = api.post(f"/v1/{resource.collection}", body)
    assert created.status_code == 201, created.text
    uuid = created.json()["uuid"]
    assert created.headers["Location"].endswith(f"/v1/{resource.collection}/{uuid}")
    assert api.get(f"/v1/{resource.collection}/{uuid}").json()["uuid"] == uuid
    listed = api.get(f"/v1/{resource.collection}").json()[resource.key]
    assert uuid in [item["uuid"] for item in listed]
    patch = [{"op": "add", "path": "/extra/owner", "value": "crud"}]
    patched = api.patch(f"/v1/{resource.collection}/{uuid}", patch)
    assert patched.status_code == 200, patched.text
    assert patched.json()["extra"] == {"owner": "crud"}
    assert api.get(f"/v1/{resource.collection}/{uuid}").json()["extra"] == {"owner": "crud"}
    assert api.delete(f"/v1/{resource.collection}/{uuid}").status_code == 204
    assert api.get(f"/v1/{resource.collection}/{uuid}").status_code == 404
    listed = api.get(f"/v1/{resource.collection}").json()[resource.key]
    assert uuid not in [item["uuid"] for item in listed]


def test_unknown_object_is_404_naming_it(api: Api, resource: Resource) -> None:
    ghost = a_uuid()
    for resp in (
        api.get(f"/v1/{resource.collection}/{ghost}"),
        api.patch(
            f"/v1/{resource.collection}/{ghost}", [{"op": "add", "path": "/extra/a", "value": 1}]
        ),
        api.delete(f"/v1/{resource.collection}/{ghost}"),
    ):
        assert resp.status_code == 404, resp.text
        assert ghost in fault(resp)


def test_a_second_object_with_the_same_uuid_is_409(api: Api, resource: Resource) -> None:
    node = _node_maker(api)
    uuid = a_uuid()
    first = api.post(f"/v1/{resource.collection}", {**resource.make_body(node, 2), "uuid": uuid})
    assert first.status_code == 201, first.text
    again = api.post(f"/v1/{resource.collection}", {**resource.make_body(node, 3), "uuid": uuid})
    assert again.status_code == 409, again.text
    assert uuid in fault(again)


def test_unknown_and_read_only_fields_are_400_and_nothing_is_stored(
    api: Api, resource: Resource
) -> None:
    node = _node_maker(api)
    for extra in ({"no_such_field": 1}, {"created_at": "2020-01-01T00:00:00+00:00"}):
        resp = api.post(f"/v1/{resource.collection}", {**resource.make_body(node, 4), **extra})
        assert resp.status_code == 400, resp.text
        assert next(iter(extra)) in fault(resp)
    names = [
        item.get("name") for item in api.get(f"/v1/{resource.collection}").json()[resource.key]
    ]
    assert f"crud-{'node' if resource.collection == 'nodes' else 'bond'}-4" not in names
