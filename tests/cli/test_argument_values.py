"""Argument values the real ``metalwire`` program refuses before it sends anything: a usage
error (exit status 2) naming the argument, never a traceback."""

from __future__ import annotations

import math

import pytest

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import mac, unique


@pytest.mark.parametrize("timeout", ["-1", "0", "inf", "nan", "soon"])
def test_a_timeout_that_is_not_a_positive_number_of_seconds_is_a_usage_error(
    cli: Run, timeout: str
) -> None:
    run = cli("node", "list", "--timeout", timeout)
    assert run.code == 2, run.stderr
    expected = f"argument --timeout: expected a number of seconds more than 0, got '{timeout}'"
    assert expected in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("timeout", [-1.0, 0.0, math.inf, math.nan])
def test_the_client_refuses_a_timeout_that_is_not_a_positive_number(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout must be a number of seconds more than 0"):
        Client("http://127.0.0.1:6385", timeout=timeout)


EMPTY_IDENTIFIERS = [
    (["node", "show", ""], "NODE"),
    (["node", "set", "", "--name", "x"], "NODE"),
    (["node", "unset", "", "--owner"], "NODE"),
    (["node", "delete", ""], "NODE"),
    (["node", "manage", ""], "NODE"),
    (["node", "maintenance", "set", ""], "NODE"),
    (["node", "vif", "list", ""], "NODE"),
    (["node", "list", "--parent-node", ""], "--parent-node"),
    (["node", "trait", "list", ""], "NODE"),
    (["node", "trait", "add", "NODENAME", ""], "TRAIT"),
    (["node", "vif", "attach", "", "vif-1"], "NODE"),
    (["node", "vif", "detach", "NODENAME", ""], "VIF"),
    (["node", "vif", "attach", "NODENAME", " "], "VIF"),
    (["port", "show", ""], "PORT"),
    (["port", "delete", ""], "PORT"),
    (["port", "create", "52:54:00:00:00:01", "--node", ""], "--node"),
    (["port", "create", "52:54:00:00:00:01", "--node", "n1", "--port-group", ""], "--port-group"),
    (["port", "set", "", "--name", "x"], "PORT"),
    (["port", "set", "PORTNAME", "--node", ""], "--node"),
    (["port", "set", "PORTNAME", "--port-group", ""], "--port-group"),
    (["port", "unset", "", "--name"], "PORT"),
    (["portgroup", "show", ""], "PORTGROUP"),
    (["portgroup", "delete", ""], "PORTGROUP"),
    (["portgroup", "create", "--node", ""], "--node"),
    (["portgroup", "set", "", "--name", "x"], "PORTGROUP"),
    (["portgroup", "set", "GROUPNAME", "--node", ""], "--node"),
    (["portgroup", "unset", "", "--name"], "PORTGROUP"),
    (["chassis", "show", ""], "CHASSIS"),
    (["chassis", "set", "", "--description", "x"], "CHASSIS"),
    (["chassis", "delete", ""], "CHASSIS"),
    (["allocation", "show", ""], "ALLOCATION"),
    (["allocation", "delete", ""], "ALLOCATION"),
    (["allocation", "create", "--resource-class", ""], "--resource-class"),
    (
        ["allocation", "create", "--resource-class", "RC", "--candidate-node", ""],
        "--candidate-node",
    ),
    (["volume", "connector", "show", ""], "UUID"),
    (
        [
            "volume",
            "target",
            "create",
            "--node",
            "",
            "--type",
            "iscsi",
            "--volume-id",
            "v",
            "--boot-index",
            "0",
        ],
        "--node",
    ),
    (["audit", "--node", ""], "--node"),
]


@pytest.mark.parametrize(("argv", "argument"), EMPTY_IDENTIFIERS)
def test_an_empty_name_or_uuid_is_a_usage_error(cli: Run, argv: list[str], argument: str) -> None:
    """As ``metalwire node show "$NODE"`` runs with the variable unset."""
    run = cli(*argv)
    assert run.code == 2, run.stderr
    assert f"argument {argument}: must not be empty" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["port", "list", "--node", ""],
        ["port", "list", "--address", ""],
        ["port", "list", "--port-group", ""],
        ["portgroup", "list", "--node", ""],
        ["portgroup", "list", "--address", ""],
    ],
)
def test_an_empty_list_filter_is_refused_instead_of_listing_everything(
    cli: Run, mw: Client, argv: list[str]
) -> None:
    """``metalwire port list --node "$NODE" -f value -c UUID | xargs metalwire port delete``
    must not reach every port when the variable is empty."""
    node = mw.create_node("fake-hardware", name=unique("filter"))
    mw.create_port(node.uuid, mac())
    run = cli(*argv, "-f", "value", "-c", "UUID")
    assert run.code == 2, run.stdout
    assert run.stdout == ""
    assert "must not be empty" in run.stderr
