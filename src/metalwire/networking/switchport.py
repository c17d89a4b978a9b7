"""Switch port configurations of the ``ironic-networking`` interface, and their rules.

A port's tenant configuration is its ``extra["switchport"]``::

    {"mode": "access", "native_vlan": 100}
    {"mode": "trunk", "native_vlan": 10, "allowed_vlans": [10, 20, 30]}

(``mode`` access, trunk or hybrid; ``native_vlan`` 1-4094; ``allowed_vlans`` for trunk and
hybrid only, 1 to 100 distinct VLANs; optional ``lag_name`` and ``mtu``; nothing else). The
state networks of ``[ironic_networking]`` are written ``access/native_vlan=N`` or
``trunk/native_vlan=N/allowed_vlans=10,20-29``. Every refusal is an InvalidParameterValue
(400) with Ironic's wording: "Invalid switchport configuration for port ...", "... PXE-enabled
ports must use 'access' mode ...", "VLANs [999] are not allowed for ... on switch ...".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from metalwire.errors import InvalidParameterValue
from metalwire.networking.switch_file import MAX_VLAN, MIN_VLAN, parse_vlan_ranges

__all__ = [
    "MODES",
    "SwitchportConfig",
    "allowed_vlans_problem",
    "check_pxe_mode",
    "check_vlans_allowed",
    "mtu_problem",
    "parse_network_value",
    "parse_switchport",
    "switchport_record",
    "vlan_problem",
]

MODES = ("access", "trunk", "hybrid")
_KEYS = frozenset({"mode", "native_vlan", "allowed_vlans", "lag_name", "mtu"})
MAX_ALLOWED_VLANS = 100
MAX_LAG_NAME = 255
MAX_MTU = 9216


@dataclass(frozen=True)
class SwitchportConfig:
    """What one switch port is set to: ``allowed_vlans`` empty for access."""

    mode: str
    native_vlan: int
    allowed_vlans: tuple[int, ...] = ()
    lag_name: str | None = None
    mtu: int | None = None

    @property
    def vlans(self) -> frozenset[int]:
        """Every VLAN the port carries."""
        return frozenset({self.native_vlan, *self.allowed_vlans})

    @property
    def on_switch(self) -> SwitchportConfig:
        """What metalwire sets on the switch port and records (``switchport_record``): the
        VLANs. ``lag_name`` and ``mtu`` are checked as Ironic does, not sent."""
        if self.lag_name is None and self.mtu is None:
            return self
        return replace(self, lag_name=None, mtu=None)


def vlan_problem(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{value!r} is not an integer"
    if not MIN_VLAN <= value <= MAX_VLAN:
        return f"{value} is outside {MIN_VLAN}-{MAX_VLAN}"
    return None


def _switchport_problem(value: Any) -> str | None:
    """Why ``value`` is not a switchport configuration, or None."""
    if not isinstance(value, Mapping):
        return f"{value!r} is not an object"
    unknown = sorted(set(value) - _KEYS)
    if unknown:
        return f"unknown key(s) {', '.join(map(repr, unknown))} (known: {', '.join(sorted(_KEYS))})"
    for key in ("mode", "native_vlan"):
        if key not in value:
            return f"{key!r} is required"
    mode = value["mode"]
    if mode not in MODES:
        return f"mode {mode!r} is not one of {', '.join(MODES)}"
    problem = vlan_problem(value["native_vlan"])
    if problem:
        return f"native_vlan {problem}"
    allowed = value.get("allowed_vlans")
    if mode == "access" and "allowed_vlans" in value:
        return "allowed_vlans is not allowed in 'access' mode"
    if mode != "access":
        if not isinstance(allowed, list) or not allowed:
            return f"mode {mode!r} needs allowed_vlans, a non-empty list of VLAN IDs"
        problem = allowed_vlans_problem(allowed)
        if problem:
            return problem
    lag_name = value.get("lag_name")
    if lag_name is not None and (not isinstance(lag_name, str) or len(lag_name) > MAX_LAG_NAME):
        return f"lag_name must be a string of at most {MAX_LAG_NAME} characters"
    return mtu_problem(value.get("mtu"))


def allowed_vlans_problem(allowed: list[Any]) -> str | None:
    """Why a list of ``allowed_vlans`` is not at most 100 distinct VLAN IDs, or None."""
    if len(allowed) > MAX_ALLOWED_VLANS:
        return f"allowed_vlans has {len(allowed)} VLANs, more than {MAX_ALLOWED_VLANS}"
    for vlan in allowed:
        problem = vlan_problem(vlan)
        if problem:
            return f"allowed_vlans: {problem}"
    if len(set(allowed)) != len(allowed):
        return "allowed_vlans lists a VLAN twice"
    return None


def mtu_problem(mtu: Any) -> str | None:
    if mtu is not None and (isinstance(mtu, bool) or not isinstance(mtu, int) or mtu > MAX_MTU):
        return f"mtu {mtu!r} is not an integer of at most {MAX_MTU}"
    return None


def parse_switchport(port_uuid: str, value: Any) -> SwitchportConfig:
    """A port's ``extra["switchport"]`` as a configuration; raises InvalidParameterValue."""
    problem = _switchport_problem(value)
    if problem:
        raise InvalidParameterValue(
            f"Invalid switchport configuration for port {port_uuid}: {problem}"
        )
    return SwitchportConfig(
        mode=value["mode"],
        native_vlan=value["native_vlan"],
        allowed_vlans=tuple(value.get("allowed_vlans") or ()),
        lag_name=value.get("lag_name"),
        mtu=value.get("mtu"),
    )


def check_pxe_mode(port_uuid: str, pxe_enabled: bool, config: SwitchportConfig) -> None:
    """A port that boots over the network needs its VLAN untagged and alone: access mode."""
    if pxe_enabled and config.mode != "access":
        raise InvalidParameterValue(
            f"Port {port_uuid} is PXE-enabled but has switchport mode {config.mode!r}. "
            "PXE-enabled ports must use 'access' mode when it has a switchport configuration."
        )


def check_vlans_allowed(
    vlans: Iterable[int],
    switch_id: str,
    operation: str,
    switch_allowed: frozenset[int] | None,
    global_allowed: frozenset[int] | None,
) -> None:
    """Refuse VLANs outside the switch's ``allowed_vlans`` (or, if it has none, outside
    ``[ironic_networking] allowed_vlans``); None allows every VLAN."""
    allowed = switch_allowed if switch_allowed is not None else global_allowed
    if allowed is None:
        return
    refused = sorted(set(vlans) - allowed)
    if refused:
        raise InvalidParameterValue(
            f"VLANs {refused} are not allowed for {operation} on switch {switch_id}. "
            f"Allowed VLANs: {sorted(allowed)}"
        )


def parse_network_value(value: str, network_type: str) -> SwitchportConfig:
    """A state network (``mode/native_vlan=N[/allowed_vlans=...]``) as a configuration."""

    def refuse(reason: str) -> InvalidParameterValue:
        return InvalidParameterValue(
            f"Invalid {network_type} network value {value!r}: {reason}. Expected "
            "{access|trunk|hybrid}/native_vlan=VLAN_ID[/allowed_vlans=V1,V2,Vn-Vm]"
        )

    mode, *parts = [part.strip() for part in value.split("/")]
    if mode not in MODES:
        raise refuse(f"mode {mode!r} is not one of {', '.join(MODES)}")
    fields: dict[str, str] = {}
    for part in parts:
        key, sep, raw = part.partition("=")
        if not sep or key.strip() not in ("native_vlan", "allowed_vlans"):
            raise refuse(f"{part!r} is not native_vlan=N or allowed_vlans=...")
        fields[key.strip()] = raw.strip()
    if "native_vlan" not in fields:
        raise refuse("native_vlan is missing")
    try:
        native = int(fields["native_vlan"])
        allowed = sorted(parse_vlan_ranges(fields.get("allowed_vlans", "")))
    except (ValueError, InvalidParameterValue) as exc:
        raise refuse(str(exc)) from None
    problem = vlan_problem(native)
    if problem:
        raise refuse(f"native_vlan {problem}")
    if mode == "access" and allowed:
        raise refuse("allowed_vlans is not allowed in 'access' mode")
    return SwitchportConfig(mode=mode, native_vlan=native, allowed_vlans=tuple(allowed))


def describe_switchport(config: SwitchportConfig | None) -> str:
    """A configuration as the node's history says it: ``access VLAN 100``, ``trunk, native
    VLAN 200, VLANs 200,210``, or ``no VLAN configuration``."""
    if config is None:
        return "no VLAN configuration"
    if not config.allowed_vlans:
        return f"{config.mode} VLAN {config.native_vlan}"
    vlans = ",".join(str(vlan) for vlan in config.allowed_vlans)
    return f"{config.mode}, native VLAN {config.native_vlan}, VLANs {vlans}"


def switchport_record(config: SwitchportConfig | None) -> dict[str, Any] | None:
    """What a port is set to, as metalwire records and shows it (None: no VLAN)."""
    if config is None:
        return None
    return {
        "mode": config.mode,
        "native_vlan": config.native_vlan,
        "allowed_vlans": list(config.allowed_vlans),
    }
