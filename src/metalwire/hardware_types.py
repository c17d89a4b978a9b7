"""The hardware interfaces a node records: which exist, which are enabled, which each
hardware type supports and which it defaults to.

metalwire attaches no behaviour to a node's hardware interfaces (``boot_interface``,
``power_interface``, ...), but clients read them and Ironic never leaves one empty. As Ironic:
a node may name only an implementation ``[DEFAULT] enabled_<kind>_interfaces`` enables and its
hardware type supports (``fake-hardware`` supports any), and a node without a value gets
``[DEFAULT] default_<kind>_interface`` if set, else the first implementation its hardware type
supports that is enabled. metalwire's one difference is its default for the enabled lists:
empty, which enables every implementation Ironic 39 has (Ironic enables a short list), and
then a node without a value gets what Ironic's own default configuration gives it
(``DEFAULTS``), so that setting nothing behaves as metalwire always did. The network interface
is one more kind (``NETWORK``), enabled by ``enabled_network_interfaces`` (which
``networking/loader.py`` loads) and chosen by the same rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metalwire.config import DefaultOptions
from metalwire.errors import Invalid, InvalidParameterValue
from metalwire.interface_kinds import FIELDS as FIELDS
from metalwire.interface_kinds import KINDS as KINDS
from metalwire.interface_kinds import NETWORK as NETWORK

#: Every kind, in the order Ironic's ``/v1/drivers`` documents them.
ALL_KINDS = tuple(sorted((*KINDS, NETWORK)))
FAKE_HARDWARE = "fake-hardware"

_GENERIC = {
    "bios": "no-bios",
    "boot": "ipxe",
    "console": "no-console",
    "deploy": "autodetect",
    "firmware": "no-firmware",
    "inspect": "no-inspect",
    "raid": "no-raid",
    "rescue": "no-rescue",
    "storage": "noop",
}
_MANUAL_MANAGEMENT = {**_GENERIC, "management": "noop", "power": "agent", "vendor": "no-vendor"}

DEFAULTS: Mapping[str, Mapping[str, str]] = {
    "fake-hardware": {**dict.fromkeys(KINDS, "fake"), "storage": "noop"},
    "ipmi": {**_GENERIC, "management": "ipmitool", "power": "ipmitool", "vendor": "ipmitool"},
    "redfish": {
        **_GENERIC,
        **dict.fromkeys(
            ("bios", "firmware", "inspect", "management", "power", "raid", "vendor"), "redfish"
        ),
    },
    "manual-management": _MANUAL_MANAGEMENT,
}

#: The implementations of each kind each hardware type supports, as Ironic 39's hardware types
#: list them (``supported_<kind>_interfaces``). Ironic lets ``fake-hardware`` take any
#: implementation: only the names are checked (``check_interface_names``).
_GENERIC_SUPPORTED: Mapping[str, tuple[str, ...]] = {
    "bios": ("no-bios",),
    "boot": ("ipxe", "pxe", "http-ipxe", "http"),
    "console": ("no-console", "fake-graphical"),
    "deploy": ("autodetect", "direct", "ansible", "ramdisk", "anaconda", "bootc", "custom-agent"),
    "firmware": ("no-firmware",),
    "inspect": ("agent", "no-inspect"),
    "management": ("noop",),
    "power": (),
    "raid": ("no-raid", "agent"),
    "rescue": ("no-rescue", "agent"),
    "storage": ("noop", "cinder", "external"),
    "vendor": ("no-vendor",),
}
SUPPORTED: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "ipmi": {
        **_GENERIC_SUPPORTED,
        "console": ("ipmitool-socat", "no-console", "fake-graphical"),
        "management": ("ipmitool", "noop"),
        "power": ("ipmitool",),
        "vendor": ("ipmitool", "no-vendor"),
    },
    "redfish": {
        **_GENERIC_SUPPORTED,
        "bios": ("redfish", "no-bios"),
        "boot": (
            *_GENERIC_SUPPORTED["boot"],
            "redfish-virtual-media",
            "redfish-https",
        ),
        "console": ("redfish-graphical", "ipmitool-socat", "no-console", "fake-graphical"),
        "firmware": ("redfish", "no-firmware"),
        "inspect": ("redfish", "agent", "no-inspect"),
        "management": ("redfish", "noop"),
        "power": ("redfish",),
        "raid": ("redfish", "no-raid", "agent"),
        "vendor": ("redfish", "no-vendor"),
    },
    "manual-management": {
        **_GENERIC_SUPPORTED,
        "deploy": (*_GENERIC_SUPPORTED["deploy"], "noop"),
        "management": ("noop", "fake"),
        "power": ("agent", "fake"),
    },
}

#: What ``fake-hardware`` lists as supported, only to choose its defaults from (Ironic checks
#: no name against it): its fake implementation first, then the generic ones.
FAKE_SUPPORTED: Mapping[str, tuple[str, ...]] = {
    **{kind: ("fake", *_GENERIC_SUPPORTED[kind]) for kind in KINDS},
    "management": ("fake",),
    "power": ("fake",),
}
#: The network interfaces every Ironic 39 hardware type supports, in its order.
NETWORK_SUPPORTED = ("flat", "neutron", "ironic-networking", "noop")

#: The hardware types Ironic 39 has (its ``ironic.hardware.types`` entry points). metalwire
#: has lists for those in ``DEFAULTS``; ``idrac`` and ``intel-ipmi`` it records as it records
#: any type it has no lists for.
HARDWARE_TYPES = ("fake-hardware", "idrac", "intel-ipmi", "ipmi", "manual-management", "redfish")

#: A hardware type metalwire has no lists for: every Ironic hardware type but ``fake-hardware``
#: takes the generic storage interfaces only.
_OTHER_SUPPORTED: Mapping[str, tuple[str, ...]] = {"storage": _GENERIC_SUPPORTED["storage"]}


#: Every implementation of each kind Ironic 39 has (its ``ironic.hardware.interfaces.<kind>``
#: entry points). A name outside these is a mistake, refused (400) as Ironic refuses it. Which
#: of them a hardware type supports is ``SUPPORTED``'s; which are enabled,
#: ``[DEFAULT] enabled_<kind>_interfaces``' (``enabled_names``).
IMPLEMENTATIONS: Mapping[str, tuple[str, ...]] = {
    "bios": ("fake", "idrac-redfish", "no-bios", "redfish"),
    "boot": (
        "fake",
        "http",
        "http-ipxe",
        "idrac-redfish-virtual-media",
        "ipxe",
        "pxe",
        "redfish-https",
        "redfish-virtual-media",
    ),
    "console": ("fake", "fake-graphical", "ipmitool-socat", "no-console", "redfish-graphical"),
    "deploy": (
        "anaconda",
        "ansible",
        "autodetect",
        "bootc",
        "custom-agent",
        "direct",
        "fake",
        "noop",
        "ramdisk",
    ),
    "firmware": ("fake", "no-firmware", "redfish"),
    "inspect": ("agent", "fake", "idrac-redfish", "no-inspect", "redfish"),
    "management": ("fake", "idrac-redfish", "intel-ipmitool", "ipmitool", "noop", "redfish"),
    "power": ("agent", "fake", "idrac-redfish", "ipmitool", "redfish"),
    "raid": ("agent", "fake", "idrac-redfish", "no-raid", "redfish"),
    "rescue": ("agent", "fake", "no-rescue"),
    "storage": ("cinder", "external", "fake", "noop"),
    "vendor": ("fake", "idrac-redfish", "ipmitool", "no-vendor", "redfish"),
}


def enabled_names(options: DefaultOptions, kind: str) -> tuple[str, ...]:
    """The implementations of ``kind`` that ``[DEFAULT] enabled_<kind>_interfaces`` enables,
    in its order; an empty list (metalwire's default) enables every one Ironic 39 has."""
    configured: list[str] = getattr(options, f"enabled_{kind}_interfaces")
    named = tuple(dict.fromkeys(name for name in configured if name))
    if kind == NETWORK or named:
        return named
    return IMPLEMENTATIONS[kind]


def _in_choosing_order(driver: str, kind: str) -> tuple[str, ...]:
    """The hardware type's supported implementations, in the order Ironic picks a default
    from; a type metalwire does not know is treated as ``manual-management``."""
    if kind == NETWORK:
        return NETWORK_SUPPORTED
    if driver == FAKE_HARDWARE:
        return FAKE_SUPPORTED[kind]
    return SUPPORTED.get(driver, SUPPORTED["manual-management"])[kind]


def usable_interfaces(options: DefaultOptions, driver: str, kind: str) -> tuple[str, ...]:
    """What a node of hardware type ``driver`` may use of ``kind``: enabled and supported, in
    the hardware type's order (network: every enabled one, supported first)."""
    enabled = enabled_names(options, kind)
    supported = _in_choosing_order(driver, kind)
    usable = tuple(name for name in supported if name in enabled)
    if kind == NETWORK:
        return usable + tuple(name for name in enabled if name not in supported)
    return usable


def check_enabled(options: DefaultOptions, kind: str, name: str) -> None:
    """Refuse (400) ``name`` unless ``[DEFAULT] enabled_<kind>_interfaces`` enables it."""
    enabled = enabled_names(options, kind)
    if name not in enabled:
        raise InvalidParameterValue(
            f"{kind.capitalize()} interface {name!r} is not enabled; enabled {kind} interfaces "
            f"are {', '.join(enabled) or 'none'} ([DEFAULT] enabled_{kind}_interfaces)."
        )


def check_interface_names(options: DefaultOptions, values: Mapping[str, Any]) -> None:
    """Refuse (400) a hardware or network interface in ``values`` that Ironic 39 has no
    implementation of, naming the ones it has, or that is not enabled, naming the enabled
    ones."""
    for kind, field in zip(KINDS, FIELDS, strict=True):
        name = values.get(field)
        if name is not None and name not in IMPLEMENTATIONS[kind]:
            raise InvalidParameterValue(
                f"Could not find the {kind} interface {name!r} ({field}): Ironic 39's {kind} "
                f"interfaces are {', '.join(IMPLEMENTATIONS[kind])}."
            )
    for kind in ALL_KINDS:
        name = values.get(f"{kind}_interface")
        if name is not None:
            check_enabled(options, kind, name)


def check_supported_interfaces(driver: str, values: Mapping[str, Any]) -> None:
    """Refuse (400) a hardware interface in ``values`` that hardware type ``driver`` does not
    support, naming the ones it does, as Ironic refuses it."""
    for kind, names in supported_interfaces(driver).items():
        field = f"{kind}_interface"
        name = values.get(field)
        if name is not None and name not in names:
            raise InvalidParameterValue(
                f"{field} {name!r} is not supported by hardware type {driver}; supported: "
                f"{', '.join(names)}."
            )


def supported_interfaces(driver: str) -> Mapping[str, tuple[str, ...]]:
    """The implementations ``driver`` supports, by kind; a kind it does not name: any."""
    if driver == FAKE_HARDWARE:
        return {}
    return SUPPORTED.get(driver, _OTHER_SUPPORTED)


def hardware_default(driver: str, kind: str) -> str:
    """The hardware type's default under Ironic's own default configuration; a type
    metalwire does not know is treated as ``manual-management``, the type that manages
    nothing itself."""
    return DEFAULTS.get(driver, _MANUAL_MANAGEMENT)[kind]


def default_interface(options: DefaultOptions, driver: str, kind: str) -> str:
    """The implementation of ``kind`` a node of hardware type ``driver`` gets when it names
    none, as Ironic chooses it; InvalidParameterValue if there is none to choose."""
    configured: str = getattr(options, f"default_{kind}_interface")
    if configured:
        return configured
    if kind != NETWORK and not any(getattr(options, f"enabled_{kind}_interfaces")):
        return hardware_default(driver, kind)
    usable = usable_interfaces(options, driver, kind)
    if not usable:
        raise InvalidParameterValue(
            f"For hardware type {driver!r}, no default {kind} interface could be chosen: "
            f"[DEFAULT] enabled_{kind}_interfaces enables none of the ones it supports "
            f"({', '.join(_in_choosing_order(driver, kind))})."
        )
    return usable[0]


def default_network_interface(options: DefaultOptions) -> str:
    """The network interface a node gets when it names none: the same for every hardware
    type, since every hardware type supports the same ones."""
    return default_interface(options, FAKE_HARDWARE, NETWORK)


def check_configuration(options: DefaultOptions) -> None:
    """Refuse to start (Invalid), as Ironic's conductor refuses, when ``enabled_hardware_types``
    names a hardware type Ironic 39 does not have or an enabled list an implementation it
    does not have, or when some enabled hardware type gets no default for some kind: the
    configured default is not enabled or not supported by it, or no implementation it
    supports is enabled."""
    unknown_types = [name for name in options.enabled_hardware_types if name not in HARDWARE_TYPES]
    if unknown_types:
        raise Invalid(
            f"[DEFAULT] enabled_hardware_types names {', '.join(unknown_types)}, which Ironic 39 "
            f"has no hardware type of; its hardware types are {', '.join(HARDWARE_TYPES)}."
        )
    for kind in KINDS:
        unknown = [
            name for name in enabled_names(options, kind) if name not in IMPLEMENTATIONS[kind]
        ]
        if unknown:
            raise Invalid(
                f"[DEFAULT] enabled_{kind}_interfaces names {', '.join(unknown)}, which Ironic "
                f"39 has no {kind} interface of; its {kind} interfaces are "
                f"{', '.join(IMPLEMENTATIONS[kind])}."
            )
    for driver in options.enabled_hardware_types:
        for kind in ALL_KINDS:
            _check_default(options, driver, kind)


def _check_default(options: DefaultOptions, driver: str, kind: str) -> None:
    try:
        chosen = default_interface(options, driver, kind)
    except InvalidParameterValue as e:
        raise Invalid(f"{e} Enable one, or set [DEFAULT] default_{kind}_interface.") from None
    option = f"[DEFAULT] default_{kind}_interface"
    if chosen not in enabled_names(options, kind):
        enabled = ", ".join(enabled_names(options, kind)) or "none"
        raise Invalid(
            f"{option} {chosen!r} is not enabled: enabled_{kind}_interfaces enables {enabled}."
        )
    supported = supported_interfaces(driver).get(kind) if kind != NETWORK else None
    if supported is not None and chosen not in supported:
        raise Invalid(
            f"{option} {chosen!r} is not supported by the enabled hardware type {driver} "
            f"(it supports {', '.join(supported)}): no default {kind} interface for its nodes."
        )


def with_defaults(
    options: DefaultOptions,
    driver: str,
    values: Mapping[str, Any],
    reset: tuple[str, ...] = (),
) -> dict[str, Any]:
    """``values`` with every interface that is null, or missing and of a kind in ``reset``,
    set to its default (for a change, ``values`` holds the changed fields only)."""
    out = dict(values)
    for kind in ALL_KINDS:
        name = f"{kind}_interface"
        if out.get(name) is None and (name in out or kind in reset):
            out[name] = default_interface(options, driver, kind)
    return out


def on_create(options: DefaultOptions, values: Mapping[str, Any]) -> dict[str, Any]:
    """A new node's values with every interface filled."""
    return with_defaults(options, values["driver"], values, reset=ALL_KINDS)


def on_update(options: DefaultOptions, driver: str, changes: Mapping[str, Any]) -> dict[str, Any]:
    """A node's changes with reset interfaces filled. A new driver gives every hardware
    interface the change does not set the new hardware type's default; the node keeps its
    network interface, which every hardware type supports alike."""
    new_driver = changes.get("driver")
    if new_driver is not None and new_driver != driver:
        return with_defaults(options, new_driver, changes, reset=KINDS)
    return with_defaults(options, driver, changes)
