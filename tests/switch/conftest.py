"""Fixtures for tests against an emulated switch (Open vSwitch behind OpenSSH).

``emulated_switch`` is a fresh ``EmulatedSwitch`` with three ports per test (it starts in
under a second). Every test collected from this directory is marked ``switch``. When this
machine lacks the switch software (``scripts/install-switch``) or root, the fixture skips,
or fails when the environment variable ``CI`` is set.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.helpers import skip_or_fail
from tests.support.switch import INSTALL_SCRIPT, EmulatedSwitch, missing_requirements

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.switch)


@pytest.fixture
def emulated_switch() -> Iterator[EmulatedSwitch]:
    missing = missing_requirements()
    if missing:
        skip_or_fail(f"no emulated switch, missing {', '.join(missing)}: run {INSTALL_SCRIPT}")
    with EmulatedSwitch(ports=3) as switch:
        yield switch
