"""Properties of the JSON Patch engine, on generated documents and operations."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metalwire.api.fields import Access, Field
from metalwire.api.jsonpatch import RFC_OPS, apply_patch
from metalwire.api.microversion import Version
from metalwire.errors import MetalwireError, PatchError

FIELDS = (
    Field("extra", 1, Access.WRITABLE, "dict"),
    Field("name", 1, Access.WRITABLE, "str"),
    Field("network_data", 60, Access.WRITABLE, "dict"),
    Field("uuid", 1, Access.CREATE_ONLY, "str"),
    Field("created_at", 1, Access.READ_ONLY),
)
VERSION = Version(78)
VERSIONS = st.sampled_from([Version(50), VERSION])

KEYS = st.text(max_size=4) | st.sampled_from(["a", "b", "~", "/", "0", "-", "01", "\u00b2"])
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)
DOCUMENTS = st.fixed_dictionaries(
    {
        "extra": st.dictionaries(KEYS, JSON, max_size=4),
        "name": st.none() | st.text(max_size=8),
        "network_data": st.none() | st.dictionaries(KEYS, JSON, max_size=3),
        "uuid": st.just("5d6e7f80-0000-4000-8000-000000000000"),
        "created_at": st.just("2026-01-01T00:00:00+00:00"),
    }
)
SEGMENTS = KEYS | st.sampled_from(["extra", "name", "network_data", "uuid", "nope"])
INDICES = st.sampled_from(["0", "1", "2", "-", "9" * 30, "9" * 5000])
POINTERS = st.lists(SEGMENTS | INDICES, min_size=0, max_size=5).map(
    lambda parts: "/" + "/".join(parts)
) | st.sampled_from(["", "/", "extra", "//", "/extra/"])
OPS = st.sampled_from(RFC_OPS) | st.none() | st.integers() | st.lists(st.text(), max_size=1)
OPERATIONS = st.fixed_dictionaries(
    {"op": OPS, "path": POINTERS | st.integers() | st.none()},
    optional={"value": JSON, "from": POINTERS},
)
PATCHES = st.lists(OPERATIONS | JSON, max_size=4) | JSON


# the keys a patch path can name: Ironic's patch schema takes word characters and "-" only
PATH_KEYS = st.from_regex(r"[\w-]+", fullmatch=True) | st.sampled_from(["a", "0", "-", "\u00b2"])


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, PATCHES, VERSIONS)
def test_any_patch_applies_or_raises_a_client_error_and_never_mutates_the_document(
    document: dict[str, Any], patch: Any, version: Version
) -> None:
    before = copy.deepcopy(document)
    try:
        changes = apply_patch(document, patch, FIELDS, version)
    except MetalwireError as exc:
        assert 400 <= exc.code < 500, exc
        assert exc.message
    else:
        assert set(changes) <= {"extra", "name", "network_data"}
    assert document == before


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, PATH_KEYS, JSON)
def test_add_then_remove_of_a_new_key_changes_nothing(
    document: dict[str, Any], key: str, value: Any
) -> None:
    document["extra"].pop(key, None)
    path = "/extra/" + key
    added = apply_patch(document, [{"op": "add", "path": path, "value": value}], FIELDS, VERSION)
    assert added["extra"] == {**document["extra"], key: value}
    both = [{"op": "add", "path": path, "value": value}, {"op": "remove", "path": path}]
    assert apply_patch(document, both, FIELDS, VERSION) == {}


@settings(max_examples=300, deadline=None)
@given(st.lists(JSON, max_size=5), st.data(), JSON)
def test_add_then_remove_at_a_list_index_changes_nothing(
    items: list[Any], data: st.DataObject, value: Any
) -> None:
    document = {"extra": {"l": items}, "name": None, "network_data": None}
    index = data.draw(st.integers(min_value=0, max_value=len(items)))
    path = f"/extra/l/{index}"
    added = apply_patch(document, [{"op": "add", "path": path, "value": value}], FIELDS, VERSION)
    assert added["extra"]["l"] == [*items[:index], value, *items[index:]]
    both = [{"op": "add", "path": path, "value": value}, {"op": "remove", "path": path}]
    assert apply_patch(document, both, FIELDS, VERSION) == {}


@given(DOCUMENTS, JSON)
def test_add_into_an_unset_object_field_creates_it(document: dict[str, Any], value: Any) -> None:
    document["network_data"] = None
    patch = [{"op": "add", "path": "/network_data/k", "value": value}]
    assert apply_patch(document, patch, FIELDS, VERSION)["network_data"] == {"k": value}


# a key with a character the grammar refuses somewhere in it, escapes included
NOT_PATH_KEYS = st.builds(
    lambda head, bad, tail: head + bad + tail,
    PATH_KEYS | st.just(""),
    st.sampled_from(["~0", "~1", "~", ".", " ", ":", "*", "\t", "\u00a0"]),
    PATH_KEYS | st.just(""),
)


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, st.lists(PATH_KEYS, max_size=3), NOT_PATH_KEYS, st.data(), JSON)
def test_a_path_with_a_part_outside_the_grammar_is_refused_whatever_the_operation(
    document: dict[str, Any],
    keys: list[str],
    wrong: str,
    data: st.DataObject,
    value: Any,
) -> None:
    keys.insert(data.draw(st.integers(min_value=0, max_value=len(keys))), wrong)
    path = "/" + "/".join(["extra", *keys])
    named = re.escape(repr(wrong)[:77])  # a long part is shown cut short, after 77 characters
    for kind in ("add", "replace", "remove"):
        with pytest.raises(PatchError, match=f"Invalid patch path.*the part {named}"):
            apply_patch(document, [{"op": kind, "path": path, "value": value}], FIELDS, VERSION)
