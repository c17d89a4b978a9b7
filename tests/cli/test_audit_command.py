"""``metalwire audit`` against a server without Neutron (with Neutron: tests/neutron)."""

from __future__ import annotations

import json

from tests.cli.conftest import Run


def test_audit_without_neutron_fails_naming_what_is_missing(cli: Run) -> None:
    for args in (("audit",), ("audit", "--repair", "-f", "json")):
        result = cli(*args)
        assert result.code == 1, result.stdout
        assert result.stdout == ""
        assert "drift audit compares VIF attachments with Neutron" in result.stderr
        assert "no Neutron endpoint is configured" in result.stderr


def test_audit_latest_before_any_audit_is_an_empty_list(cli: Run) -> None:
    result = cli("audit", "--latest", "-f", "json")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout) == []
    assert "No audit has run yet." in result.stderr


def test_audit_latest_takes_no_node_or_repair(cli: Run) -> None:
    result = cli("audit", "--latest", "--repair")
    assert result.code == 2
    assert "--latest" in result.stderr and "--repair" in result.stderr


def test_the_help_says_the_audit_reads_the_switches_too(cli: Run) -> None:
    listing = cli("--help")
    assert listing.code == 0, listing.stderr
    assert "Compare the VIF attachments with Neutron and the switch ports with the" in (
        " ".join(listing.stdout.split())
    )
    command = cli("audit", "--help")
    assert command.code == 0, command.stderr
    words = " ".join(command.stdout.split())
    assert "without calling Neutron or a switch" in words
    assert "what Neutron or the switch holds" in words
