"""The ports whose link names a switch port (db/ports.py: mentioning_switch_port), read the
same way on every database: a text match on the JSON column, no JSON operator."""

from __future__ import annotations

from metalwire.db.engine import Database

NODE = {
    "uuid": "55555555-0000-4000-8000-000000000001",
    "name": "linked",
    "driver": "fake-hardware",
    "network_interface": "noop",
    "provision_state": "enroll",
}


def test_ports_mentioning_a_switch_port_include_those_cabled_to_it(db: Database) -> None:
    links = {
        "52:54:00:00:02:01": {"switch_id": "tor-1", "port_id": "Ethernet1/1"},
        "52:54:00:00:02:02": {"switch_id": "tor-1", "port_id": "Ethernet1/10"},
        "52:54:00:00:02:03": {"switch_id": "tor-1", "port_id": "Ethernet1_1"},
        "52:54:00:00:02:04": {},
    }
    with db.writing() as work:
        node = work.nodes.create(NODE)
        for address, link in links.items():
            values = {"node_id": node.id, "address": address, "local_link_connection": link}
            work.ports.create(
                {**values, "uuid": f"66666666-0000-4000-8000-0000000002{address[-2:]}"}
            )

    with db.reading() as work:
        found = work.ports.mentioning_switch_port("Ethernet1/1")

    # a superset to check: "Ethernet1/10" holds the name; "_" and "/" match only themselves
    assert sorted(p.address for p in found) == ["52:54:00:00:02:01", "52:54:00:00:02:02"]
