"""Root device hints: metalwire refuses what Ironic 39's own parser refuses, and only that.

Each set of hints goes through ``ironic.common.utils.parse_root_device_hints`` in Ironic's
venv (one process for all of them) and through ``metalwire.conductor.root_device``. Ironic's
parser raises ValueError for a hint it refuses (400 at validate or deploy), and a pyparsing
error (a 500 in Ironic) for an expression its matcher cannot read, which metalwire refuses.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from metalwire.conductor.root_device import hints_problem
from tests.support.ironic import run_in_ironic

ACCEPTED: list[dict[str, Any]] = [
    {"size": 100},
    {"size": "100"},
    {"size": ">= 50"},
    {"size": ">=50"},
    {"size": "<or> 10 <or> 20"},
    {"size": "<range-in> [ 10 20 ]"},
    {"size": "<range-in> ( 1 x ]"},  # four values, whatever they are
    {"size": "s== 12"},
    {"size": " 7 "},
    {"model": "Samsung SSD"},
    {"model": "<in> SSD"},
    {"model": "<or> A <or> B"},
    {"model": "<all-in> a b"},
    {"model": "s!= x"},
    {"model": "<or>"},  # read as "<" and "or>"
    {"model": "<all-in>"},  # and this as "<" and "all-in>"
    {"name": "/dev/sda", "wwn": "0x4000cca77fc4dba1", "serial": "s1", "vendor": "v"},
    {"hctl": "1:0:0:0", "by_path": "/dev/disk/by-path/pci-0000:00", "wwn_with_extension": "w"},
    {"wwn_vendor_extension": "0x1"},
    {"rotational": True},
    {"rotational": False},
    {"rotational": "yes"},
    {"rotational": "OFF"},
    {"rotational": 1},
    {"rotational": "t"},
]
REFUSED: list[dict[str, Any]] = [
    {"size": "abc"},
    {"size": 0},
    {"size": -5},
    {"size": "10.5"},
    {"size": "<or> 10 <or> x"},
    {"size": ">= 0"},
    {"size": "<range-in> [10 20]"},  # too few values: read as "<" and "range-in>"
    {"size": True},
    {"size": ""},
    {"size": "   "},
    {"model": 5},
    {"model": ""},
    {"model": ["a"]},
    {"rotational": "maybe"},
    {"rotational": 2},
    {"colour": "red"},
    {"size": 10, "wheels": 4},
    {"size": ">="},  # an operator without a value: Ironic's matcher cannot read it
    {"model": "<in>"},
]

_IRONIC_PARSE = """
import json, sys
from ironic.common import utils
out = []
for hints in json.load(sys.stdin):
    try:
        utils.parse_root_device_hints(hints)
        out.append("accepted")
    except ValueError:
        out.append("refused")
    except Exception as exc:
        out.append("unreadable: " + type(exc).__name__)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def ironic_verdicts() -> dict[str, str]:
    cases = ACCEPTED + REFUSED
    verdicts: list[str] = run_in_ironic(_IRONIC_PARSE, cases)
    return {json.dumps(case): verdict for case, verdict in zip(cases, verdicts, strict=True)}


@pytest.mark.parametrize("hints", ACCEPTED, ids=json.dumps)
def test_hints_ironic_accepts_are_accepted(
    ironic_verdicts: dict[str, str], hints: dict[str, Any]
) -> None:
    assert ironic_verdicts[json.dumps(hints)] == "accepted"
    assert hints_problem(hints) is None


@pytest.mark.parametrize("hints", REFUSED, ids=json.dumps)
def test_hints_ironic_refuses_are_refused(
    ironic_verdicts: dict[str, str], hints: dict[str, Any]
) -> None:
    assert ironic_verdicts[json.dumps(hints)] != "accepted"
    assert hints_problem(hints) is not None
