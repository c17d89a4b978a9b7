"""The hardware interfaces a node records, and which each hardware type defaults to.

metalwire attaches no behaviour to a node's hardware interfaces (``boot_interface``,
``power_interface``, ...), but clients read them and Ironic never leaves one empty: a node
without a value gets ``[DEFAULT] default_<kind>_interface`` if set, else its hardware type's
default. The defaults below are the ones Ironic computes with its own default configuration
(the first implementation the hardware type supports that Ironic enables out of the box);
``fake-hardware`` has its fake implementations, as in any Ironic that enables that type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metalwire.config import DefaultOptions
from metalwire.errors import InvalidParameterValue

KINDS = (
    "bios",
    "boot",
    "console",
    "deploy",
    "firmware",
    "inspect",
    "management",
    "power",
    "raid",
    "rescue",
    "storage",
    "vendor",
)
FIELDS = tuple(f"{kind}_interface" for kind in KINDS)
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

#: A hardware type metalwire has no lists for: every Ironic hardware type but ``fake-hardware``
#: takes the generic storage interfaces only.
_OTHER_SUPPORTED: Mapping[str, tuple[str, ...]] = {"storage": _GENERIC_SUPPORTED["storage"]}


#: Every implementation of each kind Ironic 39 has (its ``ironic.hardware.interfaces.<kind>``
#: entry points). A name outside these is a mistake, refused (400) as Ironic refuses it. Which
#: of them a hardware type supports is ``SUPPORTED``'s; which Ironic's
#: ``enabled_<kind>_interfaces`` enable metalwire does not check: it drives none of them, and
#: takes those options without using them (config_compat.py).
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


def check_interface_names(values: Mapping[str, Any]) -> None:
    """Refuse (400) a hardware interface in ``values`` that Ironic 39 has no implementation
    of, naming the ones it has."""
    for kind, field in zip(KINDS, FIELDS, strict=True):
        name = values.get(field)
        if name is not None and name not in IMPLEMENTATIONS[kind]:
            raise InvalidParameterValue(
                f"Could not find the {kind} interface {name!r} ({field}): Ironic 39's {kind} "
                f"interfaces are {', '.join(IMPLEMENTATIONS[kind])}."
            )


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
    """The hardware type's own default; a type metalwire does not know is treated as
    ``manual-management``, the type that manages nothing itself."""
    return DEFAULTS.get(driver, _MANUAL_MANAGEMENT)[kind]


def default_interface(options: DefaultOptions, driver: str, kind: str) -> str:
    configured: str = getattr(options, f"default_{kind}_interface")
    return configured or hardware_default(driver, kind)


def with_defaults(
    options: DefaultOptions,
    driver: str,
    values: Mapping[str, Any],
    reset_all: bool = False,
) -> dict[str, Any]:
    """``values`` with every hardware interface that is missing or null set to its default.

    For a change, ``values`` holds the changed fields only: an interface it does not name is
    left alone unless ``reset_all`` (a driver change), which gives every interface the
    request does not set the new hardware type's default.
    """
    out = dict(values)
    for kind, name in zip(KINDS, FIELDS, strict=True):
        if out.get(name) is None and (name in out or reset_all):
            out[name] = default_interface(options, driver, kind)
    return out


def on_create(options: DefaultOptions, values: Mapping[str, Any]) -> dict[str, Any]:
    """A new node's values with every hardware interface filled."""
    return with_defaults(options, values["driver"], values, reset_all=True)


def on_update(options: DefaultOptions, driver: str, changes: Mapping[str, Any]) -> dict[str, Any]:
    """A node's changes with reset interfaces filled; a new driver resets all unset ones."""
    new_driver = changes.get("driver")
    if new_driver is not None and new_driver != driver:
        return with_defaults(options, new_driver, changes, reset_all=True)
    return with_defaults(options, driver, changes)
