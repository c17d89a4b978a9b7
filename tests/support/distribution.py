"""How the suite's tests are shared out among pytest-xdist workers (``--dist loadgroup``).

``scripts/test`` runs the suite on several workers. Each worker starts the session servers its
tests ask for, so the groups below keep the tests of one expensive server (Keystone, Neutron,
upstream Ironic, the browser) on one worker, where it starts once. Every other module stays
together on one worker, so its module-scoped fixtures start once too, except the few long
modules whose tests are spread out one by one: they would otherwise be the last worker's tail.
The longest tests of all go first (``scripts/test`` passes ``--no-loadscope-reorder``, so that
xdist hands the groups out in the order below): started last, they ran alone at the end while
the other workers had nothing left.
"""

from __future__ import annotations

from collections import Counter

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


# modules of the suite's longest tests (minutes each): the workers start with them
FIRST_MODULES = frozenset({"tests/fuzz/test_schemathesis.py"})


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def group_of(item: pytest.Item) -> str | None:
    """The xdist group of a test, or None for a test any worker may take."""
    fixtures = getattr(item, "fixturenames", ())
    for fixture, group in SERVER_GROUPS.items():
        if fixture in fixtures:
            return group
    module = _module(item)
    return None if module in SPREAD_MODULES else module


def assign_groups(items: list[pytest.Item]) -> None:
    for item in items:
        group = group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def order_for_workers(items: list[pytest.Item]) -> None:
    """Sort ``items`` in the order the workers take them: the tests of
    :data:`FIRST_MODULES`, then each group (a spread test is a group of its own) by decreasing
    number of tests, as xdist orders them, each group's tests in their own order."""
    scopes = [group_of(item) or item.nodeid for item in items]
    sizes = Counter(scopes)
    first_seen: dict[str, int] = {}
    for index, scope in enumerate(scopes):
        first_seen.setdefault(scope, index)
    keys = {
        id(item): (_module(item) not in FIRST_MODULES, -sizes[scope], first_seen[scope])
        for item, scope in zip(items, scopes, strict=True)
    }
    items.sort(key=lambda item: keys[id(item)])
