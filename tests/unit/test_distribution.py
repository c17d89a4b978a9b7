"""The suite's grouping for pytest-xdist workers (tests/support/distribution.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tests.support.distribution import group_of


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
