"""The secret-key rule, masking, keeping masked secrets, and URLs without their userinfo."""

from __future__ import annotations

import pytest

from metalwire.redact import (
    MASK,
    is_secret_key,
    keep_masked,
    masked,
    split_credentials,
    without_userinfo,
)


@pytest.mark.parametrize(
    "key",
    ["password", "ipmi_password", "Admin_Password", "X_AUTH_TOKEN", "configdrive", "chapsecret"],
)
def test_a_key_containing_a_secret_word_is_secret(key: str) -> None:
    assert is_secret_key(key)


@pytest.mark.parametrize("key", ["ipmi_username", "ipmi_address", "deploy_kernel", "image_url", 1])
def test_other_keys_are_not_secret(key: object) -> None:
    assert not is_secret_key(key)


def test_extra_keys_are_secret_only_when_named() -> None:
    assert is_secret_key("snmp_auth_key", extra={"snmp_auth_key"})
    assert not is_secret_key("snmp_auth_key")


def test_masked_hides_every_secret_at_any_depth_and_keeps_the_rest() -> None:
    value = {
        "user": "admin",
        "password": "p",
        "nested": {"auth_token": {"any": "shape"}, "n": 1},
        "list": [{"secret": "s"}, "plain"],
    }
    assert masked(value) == {
        "user": "admin",
        "password": MASK,
        "nested": {"auth_token": MASK, "n": 1},
        "list": [{"secret": MASK}, "plain"],
    }
    assert value["password"] == "p"


def test_keep_masked_gives_back_stored_secrets_only_where_the_mask_was_sent() -> None:
    old = {"password": "p", "token": "t", "deep": {"secret": "s"}, "list": [{"secret": "l"}]}
    new = {
        "password": MASK,
        "token": "new",
        "deep": {"secret": MASK, "added": 1},
        "list": [{"secret": MASK}],
        "fresh_password": MASK,
        "user": MASK,
    }
    assert keep_masked(new, old) == {
        "password": "p",
        "token": "new",
        "deep": {"secret": "s", "added": 1},
        "list": [{"secret": "l"}],
        "fresh_password": MASK,
        "user": MASK,
    }


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://u:s3cret@127.0.0.1:1/v2.0", "http://127.0.0.1:1/v2.0"),
        ("http://user@neutron:9696", "http://neutron:9696"),
        ("postgresql+psycopg2://u:p%40ss@db/metalwire", "postgresql+psycopg2://db/metalwire"),
        ("http://neutron:9696/v2.0", "http://neutron:9696/v2.0"),
        ("http://u:p@[::1]:9696", "http://[::1]:9696"),
        ("http://u:p@[::1", "http://[::1"),
        ("nonsense://u:p@ss/w#rd@x/db", "nonsense://x/db"),
        ("://u:pw@", "://"),
        ("sqlite:////tmp/a@b/metalwire.db", "sqlite:////tmp/a@b/metalwire.db"),
        ("http://neutron/v2.0?owner=a@b", "http://neutron/v2.0?owner=a@b"),
    ],
)
def test_without_userinfo(url: str, shown: str) -> None:
    assert without_userinfo(url) == shown


def test_split_credentials_keeps_the_rest_of_the_url_exactly() -> None:
    assert split_credentials("http://u:p%40ss@neutron:9696/v2.0?owner=a@b") == (
        "http://neutron:9696/v2.0?owner=a@b",
        ("u", "p@ss"),
    )
    assert split_credentials("http://neutron:9696") == ("http://neutron:9696", None)
