"""``metalwire create FILE...``: bulk enrolment with progress, summary and rollback."""

from __future__ import annotations

import json
import secrets
import uuid as uuid_module
from pathlib import Path

import pytest
import yaml

from metalwire.client import Client, NotFound
from tests.cli.conftest import Run
from tests.client.util import mac, unique

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "enrol.yaml"


@pytest.fixture
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("enrol")


def test_the_example_file_enrols(tmp_path: Path, cli: Run, mw: Client) -> None:
    # The example's names and MACs are fixed: enrol a copy with unique ones.
    data = yaml.safe_load(EXAMPLE.read_text())
    for node in data["nodes"]:
        node["name"] = unique(node["name"])
        for port in node.get("ports", []):
            port["address"] = mac()
        for group in node.get("portgroups", []):
            group["name"] = unique(group["name"])
            group["address"] = mac()
            for port in group.get("ports", []):
                port["address"] = mac()
    copy = tmp_path / "enrol.yaml"
    copy.write_text(yaml.safe_dump(data))

    result = cli("create", str(copy))
    assert result.code == 0, result.stderr
    first, second = (n["name"] for n in data["nodes"])
    progress = result.stderr.splitlines()
    assert progress[0].startswith(f"[1/2] {first} ... created ")
    assert progress[0].endswith("(3 ports, 1 portgroup)")
    assert progress[1].startswith(f"[2/2] {second} ... created ")
    assert progress[-1] == "2 nodes created (5 ports, 1 portgroup), 0 failed, 0 rolled back, of 2."
    assert "| created |" in result.stdout

    node = mw.get_node(first)
    assert node.driver == "ipmi" and node.properties["cpus"] == 16
    (bond,) = mw.list_portgroups(node=first, detail=True)
    assert bond.mode == "802.3ad"
    members = mw.list_ports(portgroup=bond.uuid)
    assert len(members) == 2
    assert len(mw.list_ports(node=first)) == 3
    assert len(mw.list_ports(node=second)) == 2


def test_one_bad_node_does_not_stop_the_others(tmp_path: Path, cli: Run, mw: Client) -> None:
    good, bad, rolled, last = (unique(n) for n in ("good", "bad", "rolled", "last"))
    taken = mac()
    fresh_mac = mac()
    document = {
        "nodes": [
            {"name": good, "driver": "fake-hardware", "ports": [{"address": taken}]},
            {"name": bad, "driver": "no-such-driver"},
            {
                "name": rolled,
                "driver": "fake-hardware",
                "portgroups": [{"name": unique("pg"), "ports": [{"address": fresh_mac}]}],
                "ports": [{"address": taken}],  # already used by the first node
            },
            {"name": last, "driver": "fake-hardware", "properties": {"cpus": 2}},
        ]
    }
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(document))

    result = cli("create", str(path), "-f", "json")
    assert result.code == 1
    rows = {r["Node"]: r for r in json.loads(result.stdout)}
    assert rows[good]["Status"] == "created" and rows[good]["Ports"] == 1
    assert rows[bad]["Status"] == "failed"
    assert "Driver no-such-driver could not be found" in rows[bad]["Error"]
    assert rows[rolled]["Status"] == "rolled back"
    assert rows[rolled]["UUID"] is None
    assert rows[rolled]["Error"].startswith(f"port {taken}: A port with MAC address")
    assert rows[last]["Status"] == "created"

    lines = result.stderr.splitlines()
    assert lines[1].startswith(f"[2/4] {bad} ... FAILED: Driver no-such-driver")
    assert lines[2].startswith(f"[3/4] {rolled} ... ROLLED BACK: port {taken}")
    assert lines[-1] == "2 nodes created (1 port, 0 portgroups), 1 failed, 1 rolled back, of 4."

    assert mw.get_node(good).uuid and mw.get_node(last).properties == {"cpus": 2}
    with pytest.raises(NotFound):
        mw.get_node(rolled)
    assert mw.list_ports(address=fresh_mac) == []  # the rolled-back node's ports are gone


def test_an_invalid_file_creates_nothing(tmp_path: Path, cli: Run, mw: Client) -> None:
    name = unique("never")
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump({"nodes": [{"name": name, "driver": "fake-hardware"}]}))
    chassis = tmp_path / "chassis.yaml"
    chassis.write_text(yaml.safe_dump({"chassis": [{"description": "rack"}], "ports": []}))
    broken = tmp_path / "broken.json"
    broken.write_text("{nodes: [")
    text = tmp_path / "nodes.txt"
    text.write_text("nodes: []")

    result = cli("create", str(good), str(chassis), str(broken), str(text))
    assert result.code == 1
    assert "unsupported top-level key(s) ports; only 'chassis' and 'nodes'" in result.stderr
    assert f"File '{broken}' is invalid" in result.stderr
    assert "it must be .json or .yaml" in result.stderr
    assert "nothing was created" in result.stderr
    with pytest.raises(NotFound):
        mw.get_node(name)


def test_a_file_that_is_not_utf8_is_named_and_nothing_is_created(
    tmp_path: Path, cli: Run, mw: Client
) -> None:
    """A description saved in Latin-1 ended the command in a UnicodeDecodeError traceback."""
    name = unique("latin")
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump({"nodes": [{"name": name, "driver": "fake-hardware"}]}))
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(
        b"nodes:\n  - name: cafe\n    driver: fake-hardware\n    description: caf\xe9\n"
    )

    result = cli("create", str(good), str(latin))
    assert result.code == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert f"Cannot read file '{latin}': it is not UTF-8 text (byte 0xe9 at offset" in result.stderr
    assert "nothing was created" in result.stderr
    with pytest.raises(NotFound):
        mw.get_node(name)


def test_malformed_items_are_reported_per_node(tmp_path: Path, cli: Run, mw: Client) -> None:
    ok = unique("ok")
    path = tmp_path / "items.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "nodes": [
                    "not-an-object",
                    {"name": unique("nodriver")},
                    {"name": unique("badports"), "driver": "fake-hardware", "ports": "x"},
                    {"name": ok, "driver": "fake-hardware"},
                ]
            }
        )
    )
    result = cli("create", str(path), "-f", "value", "-c", "Status", "-c", "Error")
    assert result.code == 1
    assert result.stdout.splitlines() == [
        "failed the node description must be an object",
        "failed the node has no 'driver'",
        "failed 'ports' must be a list of objects",
        "created None",
    ]
    assert f"{path}#1" in result.stderr
    assert mw.get_node(ok).name == ok


def _one_node_file(tmp_path: Path, name: str, cpus: int, addresses: list[str]) -> Path:
    path = tmp_path / f"{name}-{cpus}-{len(addresses)}.yaml"
    node = {
        "name": name,
        "driver": "fake-hardware",
        "properties": {"cpus": cpus},
        "ports": [{"address": address} for address in addresses],
    }
    path.write_text(yaml.safe_dump({"nodes": [node]}))
    return path


def test_re_running_a_file_skips_the_nodes_that_exist(tmp_path: Path, cli: Run, mw: Client) -> None:
    name, address = unique("again"), mac()
    path = _one_node_file(tmp_path, name, 8, [address])
    assert cli("create", str(path)).code == 0
    uuid = mw.get_node(name).uuid

    again = cli("create", str(path), "-f", "json")
    assert again.code == 0, again.stderr
    (row,) = json.loads(again.stdout)
    assert (row["Status"], row["UUID"], row["Error"], row["Changes"]) == (
        "skipped",
        uuid,
        None,
        None,
    )
    assert again.stderr.splitlines()[0] == f"[1/1] {name} ... exists as {uuid}, skipped"
    assert again.stderr.splitlines()[-1] == (
        "0 nodes created (0 ports, 0 portgroups), 1 skipped, 0 failed, 0 rolled back, of 1."
    )
    changed = _one_node_file(tmp_path, name, 16, [address, mac()])
    skipped = cli("create", str(changed))
    assert skipped.stderr.splitlines()[0].endswith("skipped: properties differs")
    assert mw.get_node(name).properties == {"cpus": 8}  # skip changes nothing
    assert len(mw.list_ports(node=name)) == 1


def test_existing_update_makes_the_node_and_its_ports_match_the_file(
    tmp_path: Path, cli: Run, mw: Client
) -> None:
    name, first, second = unique("update"), mac(), mac()
    assert cli("create", str(_one_node_file(tmp_path, name, 8, [first]))).code == 0
    changed = _one_node_file(tmp_path, name, 16, [first.upper(), second])

    updated = cli("create", str(changed), "--existing", "update", "-f", "json")
    assert updated.code == 0, updated.stderr
    (row,) = json.loads(updated.stdout)
    assert row["Status"] == "updated"
    assert row["Changes"] == f"properties updated; port {second} created"
    assert mw.get_node(name).properties == {"cpus": 16}
    assert sorted(p.address for p in mw.list_ports(node=name)) == sorted([first, second])

    again = cli("create", str(changed), "--existing", "update")
    assert again.code == 0, again.stderr
    assert again.stderr.splitlines()[0].endswith(", unchanged")
    assert "1 unchanged, 0 failed" in again.stderr.splitlines()[-1]


def test_existing_update_deletes_no_port_the_file_leaves_out(
    tmp_path: Path, cli: Run, mw: Client
) -> None:
    """As the help and README say: update sets and creates, and deletes nothing, so a port
    left out of the file keeps its VIF."""
    name, kept, listed = unique("upd-keep"), mac(), mac()
    assert cli("create", str(_one_node_file(tmp_path, name, 1, [kept, listed]))).code == 0
    mw.vif_attach(name, "kept-vif", port_uuid=mw.list_ports(address=kept)[0].uuid)

    updated = cli(
        "create", str(_one_node_file(tmp_path, name, 2, [listed])), "--existing", "update"
    )
    assert updated.code == 0, updated.stderr
    assert sorted(p.address for p in mw.list_ports(node=name)) == sorted([kept, listed])
    assert mw.vif_list(name) == ["kept-vif"]
    help_text = " ".join(cli("create", "--help").stdout.split())
    assert "creating the missing ones and deleting none (update)" in help_text


def test_existing_update_refuses_a_port_of_another_node(
    tmp_path: Path, cli: Run, mw: Client
) -> None:
    name, other, taken = unique("upd-own"), unique("upd-other"), mac()
    assert cli("create", str(_one_node_file(tmp_path, other, 1, [taken]))).code == 0
    assert cli("create", str(_one_node_file(tmp_path, name, 1, []))).code == 0
    other_uuid = mw.get_node(other).uuid

    moved = cli("create", str(_one_node_file(tmp_path, name, 1, [taken])), "--existing", "update")
    assert moved.code == 1
    assert f"FAILED: port {taken}: it exists on another node ({other_uuid})" in moved.stderr
    assert mw.list_ports(address=taken, detail=True)[0].node_uuid == other_uuid


def test_existing_fail_reports_each_existing_node_failed(
    tmp_path: Path, cli: Run, mw: Client
) -> None:
    name = unique("fail")
    path = _one_node_file(tmp_path, name, 2, [mac()])
    assert cli("create", str(path)).code == 0
    uuid = mw.get_node(name).uuid
    failed = cli("create", str(path), "--existing", "fail")
    assert failed.code == 1
    assert failed.stderr.splitlines()[0] == (
        f"[1/1] {name} ... FAILED: node {name} exists already ({uuid}); re-run with "
        "--existing skip or --existing update"
    )


def _decimal_mac() -> str:
    """A locally administered MAC of decimal digits only, each part after the first below 60:
    unquoted, YAML 1.1 reads it as a base-60 integer."""
    return ":".join(["12"] + [f"{secrets.randbelow(60):02d}" for _ in range(5)])


def test_unquoted_mac_addresses_in_yaml_are_mac_addresses(
    tmp_path: Path, cli: Run, mw: Client
) -> None:
    name, address, switch_id = unique("plain"), _decimal_mac(), _decimal_mac()
    path = tmp_path / "plain.yaml"
    path.write_text(
        f"nodes:\n"
        f"  - name: {name}\n"
        f"    driver: fake-hardware\n"
        f"    properties: {{cpus: 8, memory_mb: 1.5}}\n"
        f"    ports:\n"
        f"      - address: {address}\n"
        f"        local_link_connection: {{switch_id: {switch_id}, port_id: swp1}}\n"
    )
    result = cli("create", str(path))
    assert result.code == 0, result.stderr
    (port,) = mw.list_ports(node=name, detail=True)
    assert port.address == address
    assert port.local_link_connection["switch_id"] == switch_id
    assert mw.get_node(name).properties == {"cpus": 8, "memory_mb": 1.5}  # numbers stay numbers


def test_a_port_address_that_is_no_text_is_named(tmp_path: Path, cli: Run, mw: Client) -> None:
    name = unique("numeric")
    path = tmp_path / "numeric.json"
    document = {"nodes": [{"name": name, "driver": "fake-hardware", "ports": [{"address": 7}]}]}
    path.write_text(json.dumps(document))
    result = cli("create", str(path), "-f", "value", "-c", "Status", "-c", "Error")
    assert result.code == 1
    assert result.stdout.strip() == "rolled back port 7: 'address' must be a MAC address, not 7"
    with pytest.raises(NotFound):
        mw.get_node(name)


def _chassis_file(tmp_path: Path, chassis: list[dict[str, object]], name: str = "c") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"chassis": chassis}))
    return path


def _chassis_by_description(mw: Client, description: str) -> list[str]:
    return [c.uuid for c in mw.list_chassis(detail=True) if c.description == description]


def test_a_chassis_is_created_with_its_nodes(tmp_path: Path, cli: Run, mw: Client) -> None:
    """As ``baremetal create``: a file's chassis, then its nodes in it, then its own nodes.
    The file was refused ("unsupported top-level key(s) chassis")."""
    rack, inside, address, outside = unique("rack"), unique("in"), mac(), unique("out")
    path = tmp_path / "rack.yaml"
    nested = {"name": inside, "driver": "fake-hardware", "ports": [{"address": address}]}
    path.write_text(
        yaml.safe_dump(
            {
                "chassis": [{"description": rack, "extra": {"row": "b"}, "nodes": [nested]}],
                "nodes": [{"name": outside, "driver": "fake-hardware"}],
            }
        )
    )
    result = cli("create", str(path), "-f", "json")
    assert result.code == 0, result.stderr
    (chassis,) = _chassis_by_description(mw, rack)
    assert mw.get_chassis(chassis).extra == {"row": "b"}
    lines = result.stderr.splitlines()
    assert lines[0] == f"chassis {rack} ... created {chassis}"
    assert lines[1].startswith(f"[1/2] {inside} ... created ")
    assert lines[-2] == "1 chassis created, of 1."
    assert lines[-1] == "2 nodes created (1 port, 0 portgroups), 0 failed, 0 rolled back, of 2."
    rows = {r["Node"]: r for r in json.loads(result.stdout)}
    assert (rows[inside]["Chassis"], rows[outside]["Chassis"]) == (chassis, None)
    assert mw.get_node(inside).get("chassis_uuid") == chassis
    assert mw.get_node(outside).get("chassis_uuid") is None
    assert [n.name for n in mw.list_nodes(chassis_uuid=chassis)] == [inside]

    # Run again: a chassis without UUID is new each time; its node exists (in the first one)
    # and is skipped, so the new chassis holds nothing and is deleted again.
    again = cli("create", str(path))
    assert again.code == 0, again.stderr
    assert f"{inside} ... exists as " in again.stderr
    assert (
        again.stderr.splitlines()[2]
        == f"chassis {rack} ... ROLLED BACK: none of its nodes is in it"
    )
    assert _chassis_by_description(mw, rack) == [chassis]


def test_a_node_naming_another_chassis_fails_and_an_emptied_chassis_is_deleted(
    tmp_path: Path, cli: Run, mw: Client
) -> None:
    other = mw.create_chassis(description=unique("other")).uuid
    rack, name = unique("rack"), unique("elsewhere")
    nodes = [{"name": name, "driver": "fake-hardware", "chassis_uuid": other}]
    path = _chassis_file(tmp_path, [{"description": rack, "nodes": nodes}])

    result = cli("create", str(path), "-f", "value", "-c", "Status", "-c", "Error")
    assert result.code == 1, result.stderr
    status, error = result.stdout.strip().split(" ", 1)
    assert status == "failed"
    assert error.startswith(f"the node's chassis_uuid {other} is not the one of the chassis it")
    with pytest.raises(NotFound):
        mw.get_node(name)
    # The chassis made for it holds no node: it is deleted again.
    assert _chassis_by_description(mw, rack) == []
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"chassis {rack} ... created ")
    assert lines[2] == f"chassis {rack} ... ROLLED BACK: none of its nodes is in it"
    assert lines[-2] == "0 chassis created, 1 rolled back, of 1."


def test_a_chassis_without_nodes_is_kept(tmp_path: Path, cli: Run, mw: Client) -> None:
    rack = unique("empty-rack")
    result = cli("create", str(_chassis_file(tmp_path, [{"description": rack}])))
    assert result.code == 0, result.stderr
    assert len(_chassis_by_description(mw, rack)) == 1


def test_an_existing_chassis_is_handled_as_existing_says(
    tmp_path: Path, cli: Run, mw: Client
) -> None:
    chassis, name, late = str(uuid_module.uuid4()), unique("ch-node"), unique("ch-late")
    first = _chassis_file(
        tmp_path,
        [
            {
                "uuid": chassis,
                "description": "rack 1",
                "nodes": [{"name": name, "driver": "fake-hardware"}],
            }
        ],
        "first",
    )
    assert cli("create", str(first)).code == 0
    again = cli("create", str(first))
    assert again.code == 0, again.stderr
    assert again.stderr.splitlines()[0] == f"chassis {chassis} ... exists as {chassis}, skipped"
    assert f"{name} ... exists as " in again.stderr

    changed = _chassis_file(
        tmp_path,
        [
            {
                "uuid": chassis,
                "description": "rack 2",
                "nodes": [
                    {"name": name, "driver": "fake-hardware"},
                    {"name": late, "driver": "fake-hardware"},
                ],
            }
        ],
        "changed",
    )
    skipped = cli("create", str(changed))
    assert skipped.code == 0, skipped.stderr
    assert skipped.stderr.splitlines()[0].endswith(", skipped: description differs")
    assert mw.get_chassis(chassis).description == "rack 1"
    assert mw.get_node(late).get("chassis_uuid") == chassis  # a new node goes in it

    updated = cli("create", str(changed), "--existing", "update")
    assert updated.code == 0, updated.stderr
    assert updated.stderr.splitlines()[0].endswith(", updated: description updated")
    assert mw.get_chassis(chassis).description == "rack 2"

    refused = cli("create", str(changed), "--existing", "fail", "-f", "value", "-c", "Error")
    assert refused.code == 1
    assert refused.stderr.splitlines()[0] == (
        f"chassis {chassis} ... FAILED: chassis {chassis} exists already; re-run with "
        "--existing skip or --existing update"
    )
    assert refused.stdout.splitlines() == [f"not enrolled: its chassis {chassis} failed"] * 2
    assert mw.get_chassis(chassis).uuid == chassis  # an existing chassis is never deleted


def test_a_chassis_that_cannot_be_created_enrols_none_of_its_nodes(
    tmp_path: Path, cli: Run, mw: Client
) -> None:
    name, loose = unique("orphan"), unique("loose")
    path = tmp_path / "bad.json"
    document = {
        "chassis": [
            {"description": "x" * 256, "nodes": [{"name": name, "driver": "fake-hardware"}]}
        ],
        "nodes": [{"name": loose, "driver": "fake-hardware"}],
    }
    path.write_text(json.dumps(document))
    result = cli("create", str(path))
    assert result.code == 1
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"chassis {'x' * 256} ... FAILED: ") and "description" in first
    assert f"FAILED: not enrolled: its chassis {'x' * 256} failed" in result.stderr
    with pytest.raises(NotFound):
        mw.get_node(name)
    assert mw.get_node(loose).name == loose  # the file's other nodes are still enrolled


def test_a_malformed_chassis_list_creates_nothing(tmp_path: Path, cli: Run, mw: Client) -> None:
    name = unique("never-ch")
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump({"nodes": [{"name": name, "driver": "fake-hardware"}]}))
    not_object = _chassis_file(tmp_path, ["rack"], "not-object")
    nodes_not_list = _chassis_file(tmp_path, [{"nodes": "compute-0"}], "nodes-not-list")
    result = cli("create", str(good), str(not_object), str(nodes_not_list))
    assert result.code == 1
    assert f"In file '{not_object}', chassis #1 must be an object." in result.stderr
    assert f"In file '{nodes_not_list}', chassis #1's 'nodes' must be a list." in result.stderr
    assert "nothing was created" in result.stderr
    with pytest.raises(NotFound):
        mw.get_node(name)


def test_a_nested_node_without_name_is_named_by_its_place(
    tmp_path: Path, cli: Run, mw: Client
) -> None:
    rack, named = unique("rack"), unique("named")
    nodes = [{"properties": {"cpus": 1}}, {"name": named, "driver": "fake-hardware"}]
    path = _chassis_file(tmp_path, [{"description": rack, "nodes": nodes}], "places")
    result = cli("create", str(path), "-f", "value", "-c", "Node", "-c", "Status")
    assert result.code == 1
    assert result.stdout.splitlines() == [f"{path}#chassis-1-node-1 failed", f"{named} created"]
    assert f"[1/2] {path}#chassis-1-node-1 ... FAILED: the node has no 'driver'" in result.stderr
    (chassis,) = _chassis_by_description(mw, rack)  # one of its nodes is in it: it is kept
    assert mw.get_node(named).get("chassis_uuid") == chassis
