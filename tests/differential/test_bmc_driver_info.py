"""The BMC interfaces' driver_info: metalwire refuses what Ironic 39's own checks refuse.

Each ``driver_info`` goes through Ironic's ``ipmitool._parse_driver_info`` (and, for the power
interface, its address check) or ``redfish.utils.parse_driver_info``, in Ironic's venv (one
process for all of them, ipmitool's bridging taken as supported, as metalwire takes it), and
through ``metalwire.conductor.bmc.check_bmc_driver_info``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from metalwire.conductor.bmc import check_bmc_driver_info
from metalwire.errors import Invalid
from tests.support.ironic import run_in_ironic

IPMI = {"ipmi_address": "192.0.2.9"}
REDFISH = {"redfish_address": "https://bmc.example.com"}

IPMI_CASES: list[dict[str, Any]] = [
    IPMI,
    {"ipmi_address": "bmc-1.example.com"},
    {"ipmi_address": "BMC-1"},  # Ironic's host names are lower case
    {"ipmi_address": "2001:db8::1"},
    {"ipmi_address": "bmc_1"},
    {"ipmi_address": ""},
    {},
    {**IPMI, "ipmi_protocol_version": "1.5"},
    {**IPMI, "ipmi_protocol_version": "3.0"},
    {**IPMI, "ipmi_protocol_version": 2.0},
    {**IPMI, "ipmi_port": 623},
    {**IPMI, "ipmi_port": "623"},
    {**IPMI, "ipmi_port": 70000},
    {**IPMI, "ipmi_port": "abc"},
    {**IPMI, "ipmi_port": -1},
    {**IPMI, "ipmi_terminal_port": 8023},
    {**IPMI, "ipmi_terminal_port": "x"},
    {**IPMI, "ipmi_terminal_port": 0},
    {**IPMI, "ipmi_bridging": "no"},
    {**IPMI, "ipmi_bridging": "triple"},
    {**IPMI, "ipmi_bridging": None},
    {**IPMI, "ipmi_bridging": "single"},
    {**IPMI, "ipmi_bridging": "single", "ipmi_target_channel": 0, "ipmi_target_address": 1},
    {**IPMI, "ipmi_bridging": "dual", "ipmi_target_channel": 0, "ipmi_target_address": 1},
    {
        **IPMI,
        "ipmi_bridging": "dual",
        "ipmi_target_channel": 0,
        "ipmi_target_address": 1,
        "ipmi_transit_channel": 2,
        "ipmi_transit_address": 3,
    },
    {**IPMI, "ipmi_priv_level": "OPERATOR"},
    {**IPMI, "ipmi_priv_level": "operator"},
    {**IPMI, "ipmi_hex_kg_key": "abcd"},
    {**IPMI, "ipmi_hex_kg_key": "abc"},
    {**IPMI, "ipmi_hex_kg_key": ""},
    {**IPMI, "ipmi_cipher_suite": 17},
    {**IPMI, "ipmi_cipher_suite": "3"},
    {**IPMI, "ipmi_cipher_suite": "fast"},
    {**IPMI, "ipmi_cipher_suite": 3, "ipmi_protocol_version": "1.5"},
]
REDFISH_CASES: list[dict[str, Any]] = [
    REDFISH,
    {},
    {"redfish_address": ""},
    {**REDFISH, "redfish_system_id": "/redfish/v1/Systems/1"},
    {**REDFISH, "redfish_system_id": 5},
    {**REDFISH, "redfish_verify_ca": False},
    {**REDFISH, "redfish_verify_ca": "yes"},
    {**REDFISH, "redfish_verify_ca": "/etc"},
    {**REDFISH, "redfish_verify_ca": "/no/such/file"},
    {**REDFISH, "redfish_verify_ca": 1},
    {**REDFISH, "redfish_verify_ca": None},
    {**REDFISH, "redfish_auth_type": "session"},
    {**REDFISH, "redfish_auth_type": "kerberos"},
    {"redfish_address": "bmc.example.com"},
    {"redfish_address": "192.0.2.9:8443/redfish/v1"},
    {"redfish_address": "2001:db8::1"},
    {"redfish_address": "https://[2001:db8::1]:443"},
    {"redfish_address": "https://admin@bmc.example.com/redfish/v1?x=1#top"},
    {"redfish_address": "ftp://bmc.example.com"},
    {"redfish_address": "https://"},
    {"redfish_address": "https:///redfish/v1"},
    {"redfish_address": "http://[::1"},
    {"redfish_address": "bmc example"},
    {"redfish_address": "https://bmc.example.com/a b"},
    {"redfish_address": "https://bmc.example.com/%zz"},
    {"redfish_address": "https://bmc.example.com?q=<x>"},
    {"redfish_address": "https://bmc.example.com#a#b"},
    {"redfish_address": "https://us er@bmc.example.com"},
    {"redfish_address": "1http://bmc.example.com"},
    {"redfish_address": 5},
    {"redfish_address": ["https://bmc.example.com"]},
]


@dataclass(frozen=True)
class FakeNode:
    driver_info: dict[str, Any]
    uuid: str = "1be26c0b-03f2-4d2e-ae87-c02d7f33c781"
    driver_internal_info: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.driver_internal_info is None:
            object.__setattr__(self, "driver_internal_info", {})


_IRONIC_CHECKS = """
import json, logging, sys
from types import SimpleNamespace
logging.disable(logging.CRITICAL)
from ironic.drivers.modules import ipmitool
from ironic.drivers.modules.redfish import utils as redfish_utils
ipmitool.SINGLE_BRIDGE_SUPPORT = ipmitool.DUAL_BRIDGE_SUPPORT = True

def ipmitool_check(node, kind):
    ipmitool._parse_driver_info(node)
    if kind == "power":
        ipmitool._validate_ipmi_address(node.driver_info.get("ipmi_address"), node.uuid)

def redfish_check(node, kind):
    redfish_utils.parse_driver_info(node)

checks = {"ipmitool": ipmitool_check, "redfish": redfish_check}
out = []
for implementation, kind, info in json.load(sys.stdin):
    node = SimpleNamespace(
        uuid="u", driver="ipmi" if implementation == "ipmitool" else "redfish",
        driver_info=info, driver_internal_info={},
    )
    try:
        checks[implementation](node, kind)
        out.append("accepted")
    except Exception as exc:
        out.append(type(exc).__name__)
print(json.dumps(out))
"""

CASES = [
    *(("ipmitool", kind, info) for kind in ("power", "management") for info in IPMI_CASES),
    *(("redfish", kind, info) for kind in ("power",) for info in REDFISH_CASES),
]


@pytest.fixture(scope="module")
def ironic_verdicts() -> list[str]:
    verdicts: list[str] = run_in_ironic(_IRONIC_CHECKS, CASES)
    return verdicts


def _metalwire_verdict(implementation: str, kind: str, info: dict[str, Any]) -> str:
    try:
        check_bmc_driver_info(FakeNode(info), implementation, kind)  # type: ignore[arg-type]
    except Invalid as exc:
        return type(exc).__name__
    return "accepted"


@pytest.mark.parametrize(
    ("index", "case"), list(enumerate(CASES)), ids=[json.dumps(case) for case in CASES]
)
def test_metalwire_refuses_the_driver_info_ironic_refuses(
    ironic_verdicts: list[str], index: int, case: tuple[str, str, dict[str, Any]]
) -> None:
    assert _metalwire_verdict(*case) == ironic_verdicts[index]
