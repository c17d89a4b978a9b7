"""Which rules a node patch needs, as Ironic maps patch paths to field rules."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.api.routes.authz import patch_rules


def _ops(*paths: str, value: Any = "x") -> list[dict[str, Any]]:
    return [{"op": "add", "path": path, "value": value} for path in paths]


@pytest.mark.parametrize(
    ("patch", "rules"),
    [
        (_ops("/extra/a"), ["baremetal:node:update_extra"]),
        (_ops("/instance_info/image_source"), ["baremetal:node:update_instance_info"]),
        (_ops("/owner"), ["baremetal:node:update:owner"]),
        (_ops("/lessee", "/name"), ["baremetal:node:update:lessee", "baremetal:node:update:name"]),
        (_ops("/deploy_interface"), ["baremetal:node:update:driver_interfaces"]),
        (_ops("/network_interface"), ["baremetal:node:update:driver_interfaces"]),
        (_ops("/automated_clean", value=False), ["baremetal:node:disable_cleaning"]),
        (_ops("/automated_clean", value=True), ["baremetal:node:update"]),
        (_ops("/description"), ["baremetal:node:update"]),
        (
            _ops("/extra/a", "/description"),
            ["baremetal:node:update_extra", "baremetal:node:update"],
        ),
        ([], ["baremetal:node:update"]),
        ("not a patch", ["baremetal:node:update"]),
    ],
)
def test_patch_paths_need_ironics_field_rules(patch: Any, rules: list[str]) -> None:
    assert patch_rules(patch) == rules
