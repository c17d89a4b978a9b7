"""Whether a VIF binding must succeed: the node's driver_info, else the interface's default
(``neutron``: ``[neutron] fail_on_port_binding_failure``; ``flat``: no), as in Ironic."""

from __future__ import annotations

from typing import Any, cast

import pytest

from metalwire.config import Config, NeutronOptions
from metalwire.context import RequestContext
from metalwire.db.engine import Database
from metalwire.db.models import Node
from metalwire.networking.flat import FlatNetwork
from metalwire.networking.neutron import NeutronNetwork
from metalwire.networking.task import Task


def node_task(driver_info: dict[str, Any]) -> Task:
    return Task(
        db=cast(Database, None),
        config=Config(),
        context=RequestContext(),
        node=Node(id=1, uuid="node-1", name="n1", driver_info=driver_info),
        conductor="test",
        _ports=[],
        _portgroups=[],
        _attachments=[],
    )


def test_without_driver_info_neutron_follows_the_option_and_flat_does_not_fail() -> None:
    lenient = Config(neutron=NeutronOptions(fail_on_port_binding_failure=False))
    assert NeutronNetwork(Config()).binding_failure_fatal(node_task({})) is True
    assert NeutronNetwork(lenient).binding_failure_fatal(node_task({})) is False
    assert FlatNetwork(Config()).binding_failure_fatal(node_task({})) is False


@pytest.mark.parametrize(
    ("value", "fatal"),
    [
        (True, True),
        (False, False),
        ("true", True),
        ("True", True),
        ("yes", True),
        ("1", True),
        ("false", False),
        ("False", False),
        (" no ", False),
        ("off", False),
        ("0", False),
        (0, False),
    ],
)
def test_the_node_s_driver_info_decides_for_both_interfaces(value: Any, fatal: bool) -> None:
    info = {"fail_on_binding_failure": value}
    lenient = Config(neutron=NeutronOptions(fail_on_port_binding_failure=False))
    assert NeutronNetwork(Config()).binding_failure_fatal(node_task(info)) is fatal
    assert NeutronNetwork(lenient).binding_failure_fatal(node_task(info)) is fatal
    assert FlatNetwork(Config()).binding_failure_fatal(node_task(info)) is fatal
