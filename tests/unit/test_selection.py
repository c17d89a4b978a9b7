"""Port selection rules, one test per rule."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from metalwire.config import Config
from metalwire.context import RequestContext
from metalwire.db.engine import Database
from metalwire.db.models import Node, Port, Portgroup, VifAttachment
from metalwire.errors import Invalid, NoFreePhysicalPort
from metalwire.networking.base import StoredVifMixin
from metalwire.networking.flat import FlatNetwork
from metalwire.networking.neutron import NeutronNetwork
from metalwire.networking.selection import check_requested_target, select_free_target
from metalwire.networking.task import Task

_ids = iter(range(1, 10_000))


def port(pxe: bool = True, physnet: str | None = None, group: Portgroup | None = None) -> Port:
    n = next(_ids)
    return Port(
        id=n,
        uuid=f"port-{n}",
        address=f"52:54:00:00:00:{n:02x}",
        pxe_enabled=pxe,
        physical_network=physnet,
        portgroup_id=group.id if group else None,
        extra={},
        internal_info={},
    )


def group(standalone: bool = True, physnet: str | None = None) -> Portgroup:
    n = next(_ids)
    return Portgroup(
        id=n,
        uuid=f"pg-{n}",
        name=f"bond{n}",
        standalone_ports_supported=standalone,
        physical_network=physnet,
        extra={},
        internal_info={},
    )


def task(
    ports: list[Port], groups: list[Portgroup] | None = None, busy: dict[Any, str] | None = None
) -> Task:
    attachments = []
    for target, vif in (busy or {}).items():
        attachments.append(
            VifAttachment(
                vif_id=vif,
                node_id=1,
                port_id=target.id if isinstance(target, Port) else None,
                portgroup_id=target.id if isinstance(target, Portgroup) else None,
            )
        )
    return Task(
        db=cast(Database, None),
        config=Config(),
        context=RequestContext(),
        node=Node(id=1, uuid="node-1", name="n1"),
        conductor="test",
        _ports=ports,
        _portgroups=list(groups or []),
        _attachments=attachments,
    )


FLAT = FlatNetwork(Config())


def select(t: Task, vif_id: str, physnets: Collection[str] = ()) -> Port | Portgroup:
    """Automatic selection with the rule of the flat interface on which ports are usable."""
    return select_free_target(t, vif_id, physnets, port_refusal=_flat_rule(t))


def check(t: Task, vif_id: str, target: Port | Portgroup, physnets: Collection[str] = ()) -> None:
    check_requested_target(t, vif_id, target, physnets, port_refusal=_flat_rule(t))


def _flat_rule(t: Task) -> Any:
    return lambda p: FLAT.port_unusable_reason(t, p)


def test_physnet_mismatch_is_refused() -> None:
    p = port(physnet="physnet2")
    with pytest.raises(
        NoFreePhysicalPort, match="physical network physnet2, the VIF needs physnet1"
    ):
        select(task([p]), "vif", {"physnet1"})


def test_port_without_physnet_is_used_for_any_vif() -> None:
    p = port(physnet=None)
    assert select(task([p]), "vif", {"physnet1"}) is p


def test_physnet_match_is_preferred_over_no_physnet() -> None:
    loose, matching = port(physnet=None), port(physnet="physnet1")
    assert select(task([loose, matching]), "vif", {"physnet1"}) is matching


def test_no_vif_physnets_means_any_port() -> None:
    p = port(physnet="physnet9")
    assert select(task([p]), "vif", set()) is p


def test_attach_prefers_portgroup_over_port() -> None:
    g = group()
    member = port(group=g)
    standalone = port()
    assert select(task([standalone, member], [g]), "vif") is g


def test_pxe_enabled_port_preferred() -> None:
    plain, pxe = port(pxe=False), port(pxe=True)
    assert select(task([plain, pxe]), "vif") is pxe


def test_first_port_wins_among_equals() -> None:
    a, b = port(), port()
    assert select(task([b, a]), "vif") is a


def test_busy_port_is_skipped() -> None:
    a, b = port(), port()
    assert select(task([a, b], busy={a: "other"}), "vif") is b


def test_member_port_not_used_while_its_portgroup_is_free() -> None:
    g = group()
    member = port(group=g)
    t = task([member], [g])
    assert select(t, "vif") is g


def test_empty_portgroup_is_ignored() -> None:
    g = group()
    p = port()
    assert select(task([p], [g]), "vif") is p
    with pytest.raises(NoFreePhysicalPort, match="has no member ports"):
        select(task([], [g]), "vif")


def test_portgroup_physnet_comes_from_its_members() -> None:
    g = group()
    members = [port(group=g, physnet="physnet2"), port(group=g, physnet="physnet2")]
    other = port(physnet="physnet1")
    assert select(task([*members, other], [g]), "vif", {"physnet1"}) is other


def test_a_portgroups_own_physnet_ranks_it_first() -> None:
    # Members stored before 1.102 without one: the portgroup's own physical network counts.
    g = group(physnet="physnet1")
    member = port(group=g, pxe=True)
    standalone = port(physnet=None)
    assert select(task([standalone, member], [g]), "vif", {"physnet1"}) is g


def test_a_portgroup_on_another_physnet_is_refused_and_named_so() -> None:
    g = group(physnet="physnet2")
    member = port(group=g)
    with pytest.raises(NoFreePhysicalPort) as refused:
        select(task([member], [g]), "vif", {"physnet1"})
    assert f"portgroup {g.uuid} ({g.name}) is on physical network physnet2, the VIF needs " in (
        str(refused.value)
    )
    assert select(task([member], [g]), "vif", set()) is g


def test_error_names_every_candidate_and_reason() -> None:
    g = group()
    busy = port()
    wrong = port(physnet="physnet2")
    with pytest.raises(NoFreePhysicalPort) as err:
        select(task([busy, wrong], [g], busy={busy: "v0"}), "vif-x", {"physnet1"})
    message = str(err.value)
    assert "node-1 (n1)" in message and "vif-x" in message
    assert f"port {busy.uuid}" in message and "busy with VIF v0" in message
    assert f"port {wrong.uuid}" in message and "physnet2" in message
    assert f"portgroup {g.uuid}" in message and "no member ports" in message


def test_node_without_ports_says_so() -> None:
    with pytest.raises(NoFreePhysicalPort, match="no ports or portgroups"):
        select(task([]), "vif")


def test_requested_busy_target_is_refused() -> None:
    p = port()
    with pytest.raises(Invalid, match="busy with VIF taken"):
        check(task([p], busy={p: "taken"}), "vif", p)


def test_requested_target_on_wrong_physnet_is_refused() -> None:
    p = port(physnet="physnet2")
    with pytest.raises(Invalid, match="physnet2"):
        check(task([p]), "vif", p, {"physnet1"})


# -- the rule, as a table ----------------------------------------------------------------
#
# Each row describes a node: portgroups by name, ports by name (with the portgroup they belong
# to), which targets already carry a VIF, the VIF's physical networks, the node's network
# interface and an optional requested target. It names the target chosen, or a fragment of
# the 400's message.

SMART_NIC_LINK = {"port_id": "eth0", "hostname": "dpu-1"}
SWITCH_LINK = {"port_id": "Ethernet1/1", "switch_id": "00:1b:21:00:00:01"}


@dataclass(frozen=True)
class Row:
    ports: dict[str, dict[str, Any]]
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    busy: dict[str, str] = field(default_factory=dict)
    physnets: frozenset[str] = frozenset()
    interface: str = "flat"
    request: str | None = None
    picks: str | None = None
    refuses: str | None = None


def _build(row: Row) -> tuple[Task, dict[str, Port | Portgroup]]:
    named: dict[str, Port | Portgroup] = {
        name: group(standalone=spec.get("standalone", True)) for name, spec in row.groups.items()
    }
    ports = []
    for name, spec in row.ports.items():
        owner = named[spec["group"]] if "group" in spec else None
        p = port(
            pxe=spec.get("pxe", True),
            physnet=spec.get("physnet"),
            group=owner if isinstance(owner, Portgroup) else None,
        )
        p.local_link_connection = spec.get("link", SWITCH_LINK)
        p.is_smartnic = spec.get("smartnic", False)
        p.extra = spec.get("extra", {})
        ports.append(p)
        named[name] = p
    groups = [g for g in named.values() if isinstance(g, Portgroup)]
    t = task(ports, groups, busy={named[n]: vif for n, vif in row.busy.items()})
    t.node.network_interface = row.interface
    return t, named


def _interface(name: str) -> StoredVifMixin:
    return FlatNetwork(Config()) if name == "flat" else NeutronNetwork(Config())


def _vif_info(row: Row, named: dict[str, Port | Portgroup]) -> dict[str, Any]:
    info: dict[str, Any] = {"id": "new-vif"}
    if row.request is not None:
        target = named[row.request]
        info["port_uuid" if isinstance(target, Port) else "portgroup_uuid"] = target.uuid
    return info


BOND = {"G": {}}
MEMBERS = {"p0": {"group": "G"}, "p1": {"group": "G"}}
BOND_AND_STANDALONE = {**MEMBERS, "p2": {}}

TABLE = [
    pytest.param(
        Row(BOND_AND_STANDALONE, BOND, busy={"G": "v1"}, picks="p2"),
        id="busy portgroup: its members are skipped with it",
    ),
    pytest.param(
        Row(MEMBERS, BOND, busy={"G": "v1"}, refuses="belongs to portgroup pg-G, which is busy"),
        id="busy portgroup and no standalone port: 400",
    ),
    pytest.param(
        Row(BOND_AND_STANDALONE, BOND, busy={"p0": "v1"}, picks="p2"),
        id="busy member: standalone port before the free member",
    ),
    pytest.param(
        Row(MEMBERS, BOND, busy={"p0": "v1"}, picks="p1"),
        id="busy member: the free member, not the portgroup",
    ),
    pytest.param(
        Row(MEMBERS, {"G": {"standalone": False}}, busy={"p0": "v1"}, picks="p1"),
        id="standalone_ports_supported plays no part",
    ),
    pytest.param(
        Row(BOND_AND_STANDALONE, BOND, request="p0", refuses="member of portgroup pg-G"),
        id="port_uuid of a member: 400",
    ),
    pytest.param(
        Row(MEMBERS, BOND, busy={"p0": "v1"}, request="p1", refuses="member of portgroup pg-G"),
        id="port_uuid of a member of an unusable portgroup: 400",
    ),
    pytest.param(
        Row(BOND_AND_STANDALONE, BOND, busy={"p0": "v1"}, request="G", refuses="carries VIF v1"),
        id="portgroup_uuid of a portgroup with a busy member: 400",
    ),
    pytest.param(
        Row(
            {"p0": {"group": "G", "smartnic": True}, "p1": {"group": "G", "smartnic": True}},
            BOND,
            request="G",
            refuses="no free member port",
        ),
        id="portgroup_uuid of a portgroup without a usable member: 400",
    ),
    pytest.param(
        Row(
            {**MEMBERS, "p2": {"physnet": "physnet2"}},
            BOND,
            busy={"G": "v1"},
            physnets=frozenset({"physnet1"}),
            refuses="is on physical network physnet2, the VIF needs physnet1",
        ),
        id="physnet mismatch: 400",
    ),
    pytest.param(
        Row(
            {"p0": {"group": "G"}, "p1": {"group": "G", "physnet": "physnet1"}, "p2": {}},
            BOND,
            busy={"p0": "v1"},
            physnets=frozenset({"physnet1"}),
            picks="p1",
        ),
        id="physnet match comes before standalone ports",
    ),
    pytest.param(
        Row({"p0": {"link": {}}, "p1": {}}, interface="neutron", picks="p1"),
        id="neutron port without link info is not usable",
    ),
    pytest.param(
        Row({"p0": {"link": {}}}, interface="neutron", refuses="no local_link_connection"),
        id="neutron ports all without link info: 400",
    ),
    pytest.param(
        Row(
            {"p0": {"link": {}}, "p1": {"link": {}, "extra": {"client-id": "ff:00:00:01"}}},
            interface="neutron",
            picks="p1",
        ),
        id="client-id makes a port without link info usable",
    ),
    pytest.param(
        Row({"p0": {"smartnic": True}, "p1": {}}, picks="p1"),
        id="smart-NIC mismatch: Smart NIC without port_id and hostname",
    ),
    pytest.param(
        Row({"p0": {"link": {**SWITCH_LINK, **SMART_NIC_LINK}}, "p1": {}}, picks="p1"),
        id="smart-NIC mismatch: ordinary port with a Smart NIC's link info",
    ),
    pytest.param(
        Row(
            {"p0": {"smartnic": True}, "p1": {"smartnic": True, "link": SMART_NIC_LINK}}, picks="p1"
        ),
        id="smart-NIC with port_id and hostname is usable",
    ),
    pytest.param(
        Row(
            MEMBERS,
            {"G": {}, "E": {}},
            busy={"G": "v1"},
            refuses="portgroup pg-E (bondE) has no member ports",
        ),
        id="empty portgroup is never used",
    ),
    pytest.param(
        Row(
            {"p0": {"group": "G", "link": {}}, "p1": {"group": "G", "link": {}}, "p2": {}},
            BOND,
            interface="neutron",
            picks="p2",
        ),
        id="all members unusable: the portgroup is not a candidate",
    ),
    pytest.param(
        Row(
            {"p0": {"group": "G", "link": {}}, "p1": {"group": "G", "link": {}}},
            BOND,
            interface="neutron",
            refuses="no free member port",
        ),
        id="all members unusable and no standalone port: 400",
    ),
]


@pytest.mark.parametrize("row", TABLE)
def test_selection_table(row: Row) -> None:
    t, named = _build(row)
    # Names in messages are predictable: pg-<name> for portgroups.
    for name, target in named.items():
        if isinstance(target, Portgroup):
            target.uuid, target.name = f"pg-{name}", f"bond{name}"
    interface = _interface(row.interface)
    vif_info = _vif_info(row, named)
    if row.refuses is not None:
        with pytest.raises(Invalid) as refused:
            interface.choose_target(t, vif_info, set(row.physnets))
        assert refused.value.code == 400
        assert row.refuses in str(refused.value)
        return
    assert interface.choose_target(t, vif_info, set(row.physnets)) is named[str(row.picks)]
