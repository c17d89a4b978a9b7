"""Table and script formats of the client commands (no server)."""

from __future__ import annotations

import io
import json

import pytest
import yaml

from metalwire.cli.output import UsageError, cell, label, print_list, print_record, render_table


def test_table_has_borders_and_pads_columns() -> None:
    table = render_table(["UUID", "Name"], [["a-1", "node-long-name"], ["b", None]])
    assert table.splitlines() == [
        "+------+----------------+",
        "| UUID | Name           |",
        "+------+----------------+",
        "| a-1  | node-long-name |",
        "| b    | None           |",
        "+------+----------------+",
    ]


def test_multi_line_cells_span_lines() -> None:
    table = render_table(["Field", "Value"], [["last_error", "one\ntwo"]])
    assert table.splitlines()[3:5] == ["| last_error | one   |", "|            | two   |"]


def test_cells() -> None:
    assert cell({"b": 1, "a": [1, 2]}) == '{"a": [1, 2], "b": 1}'
    assert cell(None) == "None"
    assert cell(False) == "False"
    assert cell(3) == "3"


def test_labels_follow_the_baremetal_command() -> None:
    assert label("provision_state") == "Provisioning State"
    assert label("uuid") == "UUID"
    assert label("instance_uuid") == "Instance UUID"
    assert label("resource_class") == "Resource Class"
    assert label("allocation_uuid") == "Allocation UUID"
    assert label("pxe_enabled") == "PXE boot enabled"


def test_list_formats() -> None:
    rows: list[list[object]] = [["u1", "n1", True], ["u2", None, False]]
    headers = ["UUID", "Name", "Maintenance"]
    out = io.StringIO()
    print_list(headers, rows, "json", out)
    assert json.loads(out.getvalue()) == [
        {"UUID": "u1", "Name": "n1", "Maintenance": True},
        {"UUID": "u2", "Name": None, "Maintenance": False},
    ]
    out = io.StringIO()
    print_list(headers, rows, "yaml", out, columns=["Name"])
    assert yaml.safe_load(out.getvalue()) == [{"Name": "n1"}, {"Name": None}]
    out = io.StringIO()
    print_list(headers, rows, "value", out, columns=["Maintenance", "UUID"])
    assert out.getvalue() == "True u1\nFalse u2\n"
    with pytest.raises(UsageError, match="No such column: Colour"):
        print_list(headers, rows, "table", io.StringIO(), columns=["Colour"])


def test_record_formats() -> None:
    record = {"name": "n1", "properties": {"cpus": 4}}
    out = io.StringIO()
    print_record(record, "table", out)
    assert '| properties | {"cpus": 4} |' in out.getvalue()
    out = io.StringIO()
    print_record(record, "value", out, columns=["properties"])
    assert out.getvalue() == '{"cpus": 4}\n'
    out = io.StringIO()
    print_record(record, "json", out)
    assert json.loads(out.getvalue()) == record
