"""``noop``: networking is managed elsewhere; VIF operations succeed and record nothing."""

from __future__ import annotations

from metalwire.db.models import VifAttachment
from metalwire.networking.base import NetworkInterface, VifInfo
from metalwire.networking.task import Task


class NoopNetwork(NetworkInterface):
    name = "noop"

    def keeps_pxe_off_bonded_ports(self) -> bool:
        return False  # nothing PXE boots through it: Ironic's noop takes the change too

    def validate(self, task: Task) -> None:
        return None

    def validate_inspection(self, task: Task) -> None:
        return None  # no inspection network to set up: Ironic's noop takes it too

    def vif_list(self, task: Task) -> list[dict[str, str]]:
        return []

    def vif_attach(self, task: Task, vif_info: VifInfo) -> VifAttachment | None:
        return None

    def vif_detach(self, task: Task, vif_id: str) -> None:
        return None
