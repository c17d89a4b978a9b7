"""Port selection rules, one test per rule."""

from __future__ import annotations

from typing import Any, cast

import pytest

from metalwire.config import Config
from metalwire.context import RequestContext
from metalwire.db.engine import Database
from metalwire.db.models import Node, Port, Portgroup, VifAttachment
from metalwire.errors import Invalid, NoFreePhysicalPort
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


def group(standalone: bool = True) -> Portgroup:
    n = next(_ids)
    return Portgroup(
        id=n,
        uuid=f"pg-{n}",
        name=f"bond{n}",
        standalone_ports_supported=standalone,
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


def test_physnet_mismatch_is_refused() -> None:
    p = port(physnet="physnet2")
    with pytest.raises(
        NoFreePhysicalPort, match="physical network physnet2, the VIF needs physnet1"
    ):
        select_free_target(task([p]), "vif", {"physnet1"})


def test_port_without_physnet_is_used_for_any_vif() -> None:
    p = port(physnet=None)
    assert select_free_target(task([p]), "vif", {"physnet1"}) is p


def test_physnet_match_is_preferred_over_no_physnet() -> None:
    loose, matching = port(physnet=None), port(physnet="physnet1")
    assert select_free_target(task([loose, matching]), "vif", {"physnet1"}) is matching


def test_no_vif_physnets_means_any_port() -> None:
    p = port(physnet="physnet9")
    assert select_free_target(task([p]), "vif", set()) is p


def test_attach_prefers_portgroup_over_port() -> None:
    g = group()
    member = port(group=g)
    standalone = port()
    assert select_free_target(task([standalone, member], [g]), "vif") is g


def test_pxe_enabled_port_preferred() -> None:
    plain, pxe = port(pxe=False), port(pxe=True)
    assert select_free_target(task([plain, pxe]), "vif") is pxe


def test_first_port_wins_among_equals() -> None:
    a, b = port(), port()
    assert select_free_target(task([b, a]), "vif") is a


def test_busy_port_is_skipped() -> None:
    a, b = port(), port()
    assert select_free_target(task([a, b], busy={a: "other"}), "vif") is b


def test_member_port_not_used_while_its_portgroup_is_free() -> None:
    g = group()
    member = port(group=g)
    t = task([member], [g])
    assert select_free_target(t, "vif") is g


def test_member_port_used_when_portgroup_busy_and_standalone_allowed() -> None:
    g = group(standalone=True)
    member = port(group=g)
    t = task([member], [g], busy={g: "first"})
    assert select_free_target(t, "vif") is member


def test_member_port_refused_when_portgroup_busy_and_standalone_not_allowed() -> None:
    g = group(standalone=False)
    member = port(group=g)
    with pytest.raises(NoFreePhysicalPort, match="does not allow standalone ports"):
        select_free_target(task([member], [g], busy={g: "first"}), "vif")


def test_empty_portgroup_is_ignored() -> None:
    g = group()
    p = port()
    assert select_free_target(task([p], [g]), "vif") is p
    with pytest.raises(NoFreePhysicalPort, match="has no member ports"):
        select_free_target(task([], [g]), "vif")


def test_portgroup_physnet_comes_from_its_members() -> None:
    g = group()
    members = [port(group=g, physnet="physnet2"), port(group=g, physnet="physnet2")]
    other = port(physnet="physnet1")
    assert select_free_target(task([*members, other], [g]), "vif", {"physnet1"}) is other


def test_error_names_every_candidate_and_reason() -> None:
    g = group()
    busy = port()
    wrong = port(physnet="physnet2")
    with pytest.raises(NoFreePhysicalPort) as err:
        select_free_target(task([busy, wrong], [g], busy={busy: "v0"}), "vif-x", {"physnet1"})
    message = str(err.value)
    assert "node-1 (n1)" in message and "vif-x" in message
    assert f"port {busy.uuid}" in message and "busy with VIF v0" in message
    assert f"port {wrong.uuid}" in message and "physnet2" in message
    assert f"portgroup {g.uuid}" in message and "no member ports" in message


def test_node_without_ports_says_so() -> None:
    with pytest.raises(NoFreePhysicalPort, match="no ports or portgroups"):
        select_free_target(task([]), "vif")


def test_requested_busy_target_is_refused() -> None:
    p = port()
    with pytest.raises(Invalid, match="busy with VIF taken"):
        check_requested_target(task([p], busy={p: "taken"}), "vif", p)


def test_requested_target_on_wrong_physnet_is_refused() -> None:
    p = port(physnet="physnet2")
    with pytest.raises(Invalid, match="physnet2"):
        check_requested_target(task([p]), "vif", p, {"physnet1"})


def test_requested_member_of_portgroup_without_standalone_ports_is_refused() -> None:
    g = group(standalone=False)
    member = port(group=g)
    with pytest.raises(Invalid, match="does not allow standalone ports"):
        check_requested_target(task([member], [g]), "vif", member)
