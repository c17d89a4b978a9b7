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

#: The storage interfaces each hardware type supports, as Ironic's: the generic ones, and
#: ``fake`` too for ``fake-hardware``. ``validate`` checks ``cinder`` and ``external``
#: (conductor/storage.py).
_GENERIC_STORAGE = ("noop", "cinder", "external")
STORAGE_INTERFACES: Mapping[str, tuple[str, ...]] = {"fake-hardware": ("fake", *_GENERIC_STORAGE)}


def storage_interfaces(driver: str) -> tuple[str, ...]:
    return STORAGE_INTERFACES.get(driver, _GENERIC_STORAGE)


def check_storage_interface(driver: str, values: Mapping[str, Any]) -> None:
    """Refuse (400) a ``storage_interface`` in ``values`` that ``driver`` does not support."""
    name = values.get("storage_interface")
    supported = storage_interfaces(driver)
    if name is not None and name not in supported:
        raise InvalidParameterValue(
            f"storage_interface {name!r} is not supported by hardware type {driver}; "
            f"supported: {', '.join(supported)}."
        )


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
