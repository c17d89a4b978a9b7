"""Fixtures of the integration tests that several modules share."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.neutron_deploys import Setup
from tests.support.hanging_neutron import HangingNeutron


@contextlib.contextmanager
def servers_and_neutron(tmp_path: Path, answered_puts: int) -> Iterator[Setup]:
    """Servers on one SQLite file and the Neutron stand-in answering its first
    ``answered_puts`` changes and holding the others until released; every server stopped
    after the test."""
    neutron = HangingNeutron(answered_puts=answered_puts, answer_on_release=True)
    made = Setup(tmp_path, neutron)
    try:
        yield made
    finally:
        for server in made.servers:
            server.stop()
        neutron.close()


@pytest.fixture
def deploys(tmp_path: Path) -> Iterator[Setup]:
    """Servers on one SQLite file and the Neutron stand-in; every server stopped after the
    test, none of their logs with a traceback."""
    # The attach's two changes: the MAC, then the seed of the binding.
    with servers_and_neutron(tmp_path, answered_puts=2) as made:
        yield made
    for server in made.servers:
        assert "Traceback" not in server.log(), server.log()
