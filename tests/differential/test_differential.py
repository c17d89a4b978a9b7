"""The same requests to upstream Ironic 39 and to metalwire: statuses and body shapes agree.

Each scenario of ``table.py`` runs at each version of ``VERSIONS`` against both servers; every
difference must be declared in ``allowed.py`` with its reason, and every declaration must still
match a difference. A version metalwire does not serve yet is an expected failure (strict): the
day its cases pass, they fail until the mark below is removed.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.allowed import explain
from tests.differential.scenarios import Scenario, run_scenario
from tests.differential.shapes import differences
from tests.differential.table import SCENARIOS
from tests.differential.table_newer import NEWER_SCENARIOS
from tests.differential.table_paths import PATH_SCENARIOS
from tests.support.ironic import IronicServer
from tests.support.server import MetalwireServer

VERSIONS = ("1.78", "1.107", "1.115")
# version -> why metalwire's answers are expected to differ there
NOT_SERVED_YET: dict[str, str] = {}


def cases() -> list[Any]:
    found = []
    for version in VERSIONS:
        marks = []
        if version in NOT_SERVED_YET:
            marks.append(
                pytest.mark.xfail(
                    raises=AssertionError, strict=True, reason=NOT_SERVED_YET[version]
                )
            )
        for scenario in SCENARIOS + NEWER_SCENARIOS + PATH_SCENARIOS:
            found.append(
                pytest.param(version, scenario, id=f"{version}-{scenario.name}", marks=marks)
            )
    return found


@pytest.mark.parametrize(("version", "scenario"), cases())
def test_ironic_and_metalwire_answer_alike(
    upstream_ironic: IronicServer,
    differential_metalwire: MetalwireServer,
    version: str,
    scenario: Scenario,
) -> None:
    ironic = run_scenario(upstream_ironic.url, version, scenario)
    metalwire = run_scenario(differential_metalwire.url, version, scenario)
    found = [
        difference
        for (step, ironic_answer), (_, metalwire_answer) in zip(ironic, metalwire, strict=True)
        for difference in differences(step, ironic_answer, metalwire_answer)
    ]
    unexplained, stale = explain(scenario.name, version, found)
    report = [f"undeclared difference: {d}" for d in unexplained]
    report += [f"declared difference no longer seen: {a.where} ({a.reason})" for a in stale]
    assert not report, f"{scenario.name} at {version}:\n" + "\n".join(report)
