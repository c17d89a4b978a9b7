"""``metalwire policy-reference``: the defaults as a policy file, and what a file may change."""

from __future__ import annotations

import subprocess
import sys

import yaml

from metalwire.api.auth import policy
from metalwire.api.auth.policy_rules import defaults


def _uncommented(text: str) -> dict[str, str]:
    rules = [line[1:] for line in text.splitlines() if line.startswith('#"')]
    loaded: dict[str, str] = yaml.safe_load("\n".join(rules))
    return loaded


def test_policy_reference_prints_every_default_as_a_policy_file_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "metalwire.cli.main", "policy-reference"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    rules = _uncommented(done.stdout)
    assert rules == {rule.name: rule.check_str for rule in defaults()}
    assert rules["baremetal:node:delete"] == "role:admin and system_scope:all"


def test_reference_names_the_deprecated_default_of_a_rule() -> None:
    text = policy.reference()
    assert '# Deprecated default: "baremetal:node:vif:attach": "rule:is_admin"' in text
