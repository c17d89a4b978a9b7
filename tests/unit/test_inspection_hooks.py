"""``[inspector]``: the inspection hooks named, their order and the choices of the ports
hook, checked when the configuration is read or the service starts, as Ironic's conductor
refuses to start with them wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from metalwire.conductor.inspection_hooks import enabled_hooks, pxe_mac
from metalwire.config import InspectorOptions, load_config
from metalwire.errors import Invalid


def _names(hooks: str) -> list[str]:
    return [hook.name for hook in enabled_hooks(InspectorOptions(hooks=hooks))]


def test_the_default_hooks_are_ironics() -> None:
    assert _names("$default_hooks") == [
        "ramdisk-error",
        "validate-interfaces",
        "ports",
        "architecture",
    ]


def test_an_unknown_hook_is_refused_naming_it() -> None:
    with pytest.raises(Invalid, match="unknown inspection hook\\(s\\) extra-hardware"):
        _names("$default_hooks,extra-hardware")


def test_a_hook_listed_before_one_it_needs_is_refused() -> None:
    with pytest.raises(Invalid, match="ports needs validate-interfaces listed before it"):
        _names("ports,validate-interfaces")


def test_the_ironic_section_is_read(tmp_path: Path) -> None:
    path = tmp_path / "metalwire.conf"
    path.write_text(
        "[inspector]\nadd_ports = all\nkeep_ports = present\nrequire_managed_boot = true\n"
    )

    options = load_config(str(path), environ={}).inspector

    assert (options.add_ports, options.keep_ports) == ("all", "present")


@pytest.mark.parametrize("option", ["add_ports", "keep_ports"])
def test_a_ports_choice_outside_ironics_values_is_refused(tmp_path: Path, option: str) -> None:
    path = tmp_path / "metalwire.conf"
    path.write_text(f"[inspector]\n{option} = some\n")

    with pytest.raises(Invalid, match=f"\\[inspector\\] {option}: 'some' is not one of"):
        load_config(str(path), environ={})


@pytest.mark.parametrize(
    ("given", "mac"),
    [
        ("52:54:00:30:00:01", "52:54:00:30:00:01"),
        ("01-52-54-00-30-00-01", "52:54:00:30:00:01"),  # pxelinux's form
        ("", None),
    ],
)
def test_the_interface_booted_from_is_read_in_either_form(given: str, mac: str | None) -> None:
    assert pxe_mac({"boot": {"pxe_interface": given}}) == mac


def test_the_lldp_hooks_follow_the_defaults() -> None:
    assert _names("$default_hooks,parse-lldp,local-link-connection,physical-network")[-3:] == [
        "parse-lldp",
        "local-link-connection",
        "physical-network",
    ]
    with pytest.raises(Invalid, match="local-link-connection needs validate-interfaces"):
        _names("local-link-connection,$default_hooks")


@pytest.mark.parametrize("entry", ["10.10.10.0/24", "10.10.10.0/33:physnet_a", ":physnet_a"])
def test_a_cidr_map_entry_that_is_not_cidr_physnet_is_refused(tmp_path: Path, entry: str) -> None:
    path = tmp_path / "metalwire.conf"
    path.write_text(f"[inspector]\nphysical_network_cidr_map = {entry}\n")

    with pytest.raises(Invalid, match="is not CIDR:PHYSNET"):
        load_config(str(path), environ={})
