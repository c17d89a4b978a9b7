"""The suite's grouping for pytest-xdist workers (tests/support/distribution.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tests.support.distribution import group_of, order_for_workers


def _item(nodeid: str, *fixtures: str) -> Any:
    return SimpleNamespace(nodeid=nodeid, fixturenames=list(fixtures))


def test_tests_of_one_session_server_share_a_group_across_modules() -> None:
    a = _item("tests/auth/test_policy.py::test_x[reader]", "cloud", "tmp_path")
    b = _item("tests/auth/test_keystone.py::test_y", "persona_tokens", "cloud")
    assert group_of(a) == group_of(b) == "keystone"
    assert group_of(_item("tests/neutron/test_audit.py::t", "neutron_server")) == "neutron"


def test_other_modules_stay_together_and_long_ones_spread_out() -> None:
    assert group_of(_item("tests/api/test_vifs.py::test_a[sqlite]", "api")) == (
        "tests/api/test_vifs.py"
    )
    assert group_of(_item("tests/compat/test_cli.py::test_b", "compat_server")) is None


def test_the_longest_tests_come_first_then_groups_by_decreasing_size_each_in_its_order() -> None:
    items = [
        _item("tests/api/test_a.py::t1"),
        _item("tests/auth/test_k.py::k1", "cloud"),
        _item("tests/api/test_b.py::t1"),
        _item("tests/api/test_b.py::t2"),
        _item("tests/compat/test_cli.py::c1"),
        _item("tests/auth/test_j.py::k2", "cloud"),
        _item("tests/fuzz/test_schemathesis.py::on_sqlite"),
        _item("tests/auth/test_k.py::k3", "cloud"),
        _item("tests/fuzz/test_schemathesis.py::on_postgresql"),
    ]
    order_for_workers(items)
    assert [item.nodeid.split("::")[1] for item in items] == [
        "on_sqlite", "on_postgresql",  # the longest, spread
        "k1", "k2", "k3",  # the Keystone group: 3 tests
        "t1", "t2",  # tests/api/test_b.py: 2
        "t1", "c1",  # one each, as collected
    ]  # fmt: skip
