"""The rules of a target RAID configuration (``conductor/raid.py``), one at a time: each case
was sent to Ironic 39's fake RAID interface too, which takes or refuses it alike."""

from __future__ import annotations

from typing import Any

import pytest

from metalwire.conductor.raid import check_target_raid_config
from metalwire.errors import InvalidParameterValue


def disk(**values: Any) -> dict[str, Any]:
    return {"size_gb": 10, "raid_level": "1", **values}


@pytest.mark.parametrize(
    "disks",
    [
        [disk(size_gb=0)],
        [disk(size_gb="MAX", raid_level="JBOD")],
        [disk(is_root_volume=True), disk(is_root_volume=False)],
        [disk(controller="c", physical_disks=[])],
        [disk(controller="c", physical_disks=[{"id": 1}, {"id": 2}])],
        [disk(number_of_physical_disks=1, share_physical_disks=True, volume_name="v")],
    ],
)
def test_what_ironic_takes_is_taken(disks: list[dict[str, Any]]) -> None:
    check_target_raid_config({"logical_disks": disks})


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"logical_disks": []}, "logical_disks"),
        ({"logical_disks": [disk()], "extra": 1}, "unexpected extra"),
        ({"logical_disks": [disk(size_gb=1.0)]}, "logical_disks[0].size_gb"),
        ({"logical_disks": [disk(size_gb=True)]}, "logical_disks[0].size_gb"),
        ({"logical_disks": [disk(number_of_physical_disks=2.0)]}, "number_of_physical_disks"),
        ({"logical_disks": [disk(controller="c", physical_disks=[{"id": 1}])]}, "physical_disks"),
        ({"logical_disks": [disk(controller="c", physical_disks=["a", {"id": 1}])]}, "physical"),
        ({"logical_disks": [disk(physical_disks=["a"])]}, "controller"),
        ({"logical_disks": [disk(is_root_volume=True)] * 2}, "2 root volumes"),
        ({"logical_disks": [{"raid_level": "1"}]}, "size_gb missing"),
    ],
)
def test_what_ironic_refuses_is_refused_naming_where(config: dict[str, Any], named: str) -> None:
    with pytest.raises(InvalidParameterValue, match="RAID config validation error") as refused:
        check_target_raid_config(config)
    assert named in str(refused.value)
