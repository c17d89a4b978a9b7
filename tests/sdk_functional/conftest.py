"""The openstacksdk functional tier: openstacksdk's own baremetal functional tests.

openstacksdk ships the functional tests its maintainers run against a real Ironic with
``fake-hardware`` nodes (``openstack/tests/functional/baremetal/v1/``): the client's own idea
of the API contract. This tier runs them, unmodified, against one real ``metalwire serve``.
Every test collected from this directory is marked ``sdk_functional``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.helpers import mark_tests_below
from tests.support.server import MetalwireServer

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_tests_below(_HERE, items, pytest.mark.sdk_functional)


@pytest.fixture(scope="session")
def functional_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MetalwireServer]:
    with MetalwireServer(tmp_path_factory.mktemp("sdk-functional-server")) as running:
        yield running
