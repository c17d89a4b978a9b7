"""An inspection ramdisk's report, shaped as ironic-python-agent posts it to
``/v1/continue_inspection``: two NICs, the first (the one it booted from) hearing a switch's
LLDP advertisement, as ``[type, hex value]`` TLVs."""

from __future__ import annotations

from typing import Any

PXE_MAC = "52:54:00:30:00:01"
SECOND_MAC = "52:54:00:30:00:02"
SWITCH_MAC = "88:5a:92:ec:54:59"
SWITCH_PORT = "Ethernet1/18"
SWITCH_NAME = "leaf-1.example.com"


def _tlv(kind: int, value: bytes) -> list[Any]:
    return [kind, value.hex()]


#: A switch's advertisement: chassis ID (a MAC address), port ID (an interface name), time
#: to live, port description, system name, and the end.
SWITCH_LLDP: list[list[Any]] = [
    _tlv(1, bytes([4]) + bytes.fromhex(SWITCH_MAC.replace(":", ""))),
    _tlv(2, bytes([5]) + SWITCH_PORT.encode()),
    _tlv(3, (120).to_bytes(2, "big")),
    _tlv(4, b"to compute-7 eth0"),
    _tlv(5, SWITCH_NAME.encode()),
    _tlv(0, b""),
]


def interface(name: str, mac: str, ipv4: str | None = None, lldp: Any = None) -> dict[str, Any]:
    return {
        "name": name,
        "mac_address": mac,
        "ipv4_address": ipv4,
        "ipv6_address": None,
        "has_carrier": True,
        "lldp": lldp,
        "product": "0x1af4",
        "vendor": "0x1000",
        "client_id": None,
        "speed_mbps": 25000,
    }


def report(**changes: Any) -> dict[str, Any]:
    """The report: ``changes`` replace the inventory's members (``interfaces``,
    ``bmc_address`` ...), except ``error`` and ``logs``, which are the ramdisk's own."""
    inventory: dict[str, Any] = {
        "interfaces": [
            interface("eth0", PXE_MAC, "192.0.2.17", SWITCH_LLDP),
            interface("eth1", SECOND_MAC),
        ],
        "cpu": {
            "model_name": "QEMU Virtual CPU version 2.5+",
            "frequency": "2400",
            "count": 4,
            "architecture": "x86_64",
            "flags": ["fpu", "vme"],
        },
        "memory": {"total": 8589934592, "physical_mb": 8192},
        "disks": [{"name": "/dev/vda", "model": "", "size": 42949672960, "rotational": True}],
        "bmc_address": "192.0.2.200",
        "bmc_v6address": "::/0",
        "boot": {"current_boot_mode": "uefi", "pxe_interface": PXE_MAC},
        "system_vendor": {"product_name": "KVM", "serial_number": "", "manufacturer": "QEMU"},
        "hostname": "localhost.localdomain",
    }
    body: dict[str, Any] = {"error": None, "logs": "H4sIAAAAAAAAA+3BAQ0AAADCoPdPbQ8HFAAAAAAAAAAA"}
    for key, value in changes.items():
        if key in ("error", "logs"):
            body[key] = value
        else:
            inventory[key] = value
    return {"inventory": inventory, **body}
