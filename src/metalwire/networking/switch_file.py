"""The switch file of ``[ironic_networking] switch_config_file``: the switches to configure.

Ironic's generic-switch INI format, one section per switch::

    [switch:tor-1]
    driver_type = generic-switch
    device_type = netmiko_ovs_linux
    address = 192.0.2.10
    port = 22
    username = admin
    key_file = /etc/metalwire/tor-1.key      # or password = ...
    mac_address = 00:00:5e:00:53:01
    persist = false
    allowed_vlans = 100,200-299

A port names its switch in ``local_link_connection.switch_id``, by the section's name or by
its ``mac_address``. A switch's name is letters, digits and ``_.-``, not beginning with ``.``
(it names the switch's lock file). Every mistake is refused with the file and line it is on; secrets
(``password``, ``enable_secret``) never appear in a message or a ``repr``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from metalwire.errors import InvalidParameterValue

__all__ = [
    "SWITCH_DRIVERS",
    "SwitchDefinition",
    "find_switch",
    "load_switch_file",
    "parse_switch_file",
    "parse_vlan_ranges",
]

#: The switch drivers metalwire has, by their ``driver_type``.
SWITCH_DRIVERS = frozenset({"generic-switch"})

_SECTION = re.compile(r"^\[\s*(?P<name>[^\]]*?)\s*\]$")
_OPTION = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_]*)\s*[=:]\s*(?P<value>.*)$")
_SWITCH_PREFIX = "switch:"
# a switch's name names its lock file in data_dir/switch-locks
_SWITCH_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
_KEYS = frozenset(
    {
        "driver_type",
        "device_type",
        "address",
        "port",
        "username",
        "password",
        "key_file",
        "enable_secret",
        "mac_address",
        "native_vlan",
        "persist",
        "allowed_vlans",
    }
)
_REQUIRED = ("driver_type", "device_type", "address", "username")
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")
MIN_VLAN, MAX_VLAN = 1, 4094

# builds the error of one switch's option: (option, reason) -> error naming its line
_Fail = Callable[[str, str], InvalidParameterValue]


@dataclass(frozen=True)
class SwitchDefinition:
    """One ``[switch:<name>]`` section; ``allowed_vlans`` None allows every VLAN."""

    name: str
    driver_type: str
    device_type: str
    address: str
    username: str
    line: int
    port: int | None = None
    password: str | None = field(default=None, repr=False)
    key_file: str | None = None
    enable_secret: str | None = field(default=None, repr=False)
    mac_address: str | None = None
    native_vlan: int | None = None
    persist: bool = False
    allowed_vlans: frozenset[int] | None = None


def parse_vlan_ranges(spec: str | Iterable[str]) -> frozenset[int]:
    """The VLAN IDs of ``"100,102-104"`` (or of a list of such items).

    Raises InvalidParameterValue naming the item that is not a VLAN ID or range of 1-4094.
    """
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    vlans: set[int] = set()
    for raw in items:
        item = raw.strip()
        if not item:
            continue
        low, _, high = item.partition("-")
        try:
            first, last = int(low), int(high or low)
        except ValueError:
            raise InvalidParameterValue(
                f"VLAN {item!r} is neither a VLAN ID nor a range such as 102-104"
            ) from None
        if not MIN_VLAN <= first <= last <= MAX_VLAN:
            raise InvalidParameterValue(
                f"VLAN {item!r} is outside {MIN_VLAN}-{MAX_VLAN} or its range is reversed"
            )
        vlans.update(range(first, last + 1))
    return frozenset(vlans)


def load_switch_file(path: str | Path) -> dict[str, SwitchDefinition]:
    """The switches of a switch file by name; InvalidParameterValue for an unreadable file or
    a mistake in it (naming the line)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidParameterValue(f"switch file {path}: cannot be read ({exc})") from None
    return parse_switch_file(text, str(path))


def parse_switch_file(text: str, where: str) -> dict[str, SwitchDefinition]:
    """Parse a switch file's text; ``where`` names it in errors."""
    sections: dict[str, tuple[int, dict[str, tuple[int, str]]]] = {}
    current: dict[str, tuple[int, str]] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue

        def fail(reason: str, line_number: int = number) -> InvalidParameterValue:
            return InvalidParameterValue(f"switch file {where} line {line_number}: {reason}")

        section = _SECTION.match(line)
        if section:
            name = section.group("name")
            if not name.startswith(_SWITCH_PREFIX) or not name[len(_SWITCH_PREFIX) :].strip():
                raise fail(f"section [{name}] is not [switch:<name>]")
            switch = name[len(_SWITCH_PREFIX) :].strip()
            if not _SWITCH_NAME.fullmatch(switch):
                raise fail(
                    f"switch name {switch!r} in [{name}] may hold letters, digits and _.- "
                    "only, and may not begin with '.' (it names files of the switch)"
                )
            if switch in sections:
                raise fail(
                    f"switch {switch!r} is defined twice (first on line {sections[switch][0]})"
                )
            current = {}
            sections[switch] = (number, current)
            continue
        option = _OPTION.match(line)
        if option is None:
            raise fail("expected 'key = value' or a [switch:<name>] section")
        if current is None:
            raise fail(f"option {option.group('key')!r} comes before any [switch:<name>] section")
        key, value = option.group("key").lower(), option.group("value").strip()
        if key not in _KEYS:
            raise fail(f"unknown option {key!r} (known: {', '.join(sorted(_KEYS))})")
        if key in current:
            raise fail(f"option {key!r} is given twice (first on line {current[key][0]})")
        current[key] = (number, value)
    return {
        name: _definition(name, line, options, where) for name, (line, options) in sections.items()
    }


def _definition(
    name: str, line: int, options: Mapping[str, tuple[int, str]], where: str
) -> SwitchDefinition:
    def fail(key: str, reason: str) -> InvalidParameterValue:
        at = options[key][0] if key in options else line
        return InvalidParameterValue(f"switch file {where} line {at}: switch {name!r}: {reason}")

    values = {key: value for key, (_, value) in options.items()}
    for key in _REQUIRED:
        if not values.get(key):
            raise fail(key, f"{key} is required")
    if values["driver_type"] not in SWITCH_DRIVERS:
        raise fail(
            "driver_type",
            f"driver_type {values['driver_type']!r} is not one of {sorted(SWITCH_DRIVERS)}",
        )
    if not values.get("password") and not values.get("key_file"):
        raise fail("username", "needs a password or a key_file to log in")
    mac = values.get("mac_address", "").lower() or None
    if mac is not None and not _MAC.match(mac):
        raise fail("mac_address", f"mac_address {values['mac_address']!r} is not a MAC address")
    persist = values.get("persist", "false").lower()
    if persist not in _TRUE | _FALSE:
        raise fail("persist", f"persist {values['persist']!r} is not true or false")
    try:
        allowed = parse_vlan_ranges(values["allowed_vlans"]) if "allowed_vlans" in values else None
    except InvalidParameterValue as exc:
        raise fail("allowed_vlans", f"allowed_vlans: {exc}") from None
    return SwitchDefinition(
        name=name,
        driver_type=values["driver_type"],
        device_type=values["device_type"],
        address=values["address"],
        username=values["username"],
        line=line,
        port=_integer(values, "port", 1, 65535, fail),
        password=values.get("password") or None,
        key_file=values.get("key_file") or None,
        enable_secret=values.get("enable_secret") or None,
        mac_address=mac,
        native_vlan=_integer(values, "native_vlan", MIN_VLAN, MAX_VLAN, fail),
        persist=persist in _TRUE,
        allowed_vlans=allowed,
    )


def _integer(values: Mapping[str, str], key: str, low: int, high: int, fail: _Fail) -> int | None:
    if not values.get(key):
        return None
    try:
        number = int(values[key])
    except ValueError:
        raise fail(key, f"{key} {values[key]!r} is not a whole number") from None
    if not low <= number <= high:
        raise fail(key, f"{key} {number} is outside {low}-{high}")
    return number


def find_switch(
    switches: Mapping[str, SwitchDefinition], switch_id: str
) -> SwitchDefinition | None:
    """The switch a ``local_link_connection.switch_id`` names: by section name or MAC."""
    if switch_id in switches:
        return switches[switch_id]
    wanted = switch_id.strip().lower()
    return next((s for s in switches.values() if s.mac_address == wanted), None)
