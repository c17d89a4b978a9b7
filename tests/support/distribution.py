"""How the suite's tests are shared out among pytest-xdist workers (``--dist loadgroup``).

``scripts/test`` runs the suite on several workers. Each worker starts the session servers its
tests ask for, so the groups below keep the tests of one expensive server (Keystone, Neutron,
upstream Ironic, the browser) on one worker, where it starts once. Every other module stays
together on one worker, so its module-scoped fixtures start once too, except the few long
modules whose tests are spread out one by one: they would otherwise be the last worker's tail.
"""

from __future__ import annotations

import pytest

# fixture that starts a session server -> the group of every test that uses it
SERVER_GROUPS = {
    "cloud": "keystone",
    "neutron_server": "neutron",
    "browser": "chromium",
    "upstream_ironic": "ironic",
}

# modules whose tests are long and independent enough to run on any worker
SPREAD_MODULES = frozenset(
    {
        "tests/fuzz/test_schemathesis.py",
        "tests/compat/test_cli.py",
        "tests/compat/test_cli_booleans.py",
    }
)


def group_of(item: pytest.Item) -> str | None:
    """The xdist group of a test, or None for a test any worker may take."""
    fixtures = getattr(item, "fixturenames", ())
    for fixture, group in SERVER_GROUPS.items():
        if fixture in fixtures:
            return group
    module = item.nodeid.split("::", 1)[0]
    return None if module in SPREAD_MODULES else module


def assign_groups(items: list[pytest.Item]) -> None:
    for item in items:
        group = group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
