"""VIF attach and detach of ``ironic-networking`` that move switch ports, crash-safely.

An attach whose body names a ``network`` on an active node moves the VIF's port (or the bond
of its portgroup) to that network at once; its detach puts it back on the idle network. The
switch and the attachment record must agree even when the process dies between the switch
change and the commit, or the commit fails:

- before the switch is told anything, the attachment is recorded *pending*, its ``info``
  holding what each port must be put on if the operation does not finish
  (``info["switch_recovery"]``: the port's configuration before an attach; the idle network
  for a detach, whose record is pending again until it is forgotten);
- the switch change, then one transaction: the ports' ``switchport_applied`` and the record
  confirmed (attach) or removed (detach). If that commit fails, the switch change is undone
  and the record put back as it was;
- if the process dies in between, the next operation on the node (its task opens with the
  dead holder's lease expired) finds the pending record: :meth:`recover_interrupted_attach`
  puts the ports on what ``switch_recovery`` says, and the conductor forgets the record (an
  interrupted attach is undone, an interrupted detach finished).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from metalwire.db.models import Port, Portgroup, VifAttachment
from metalwire.errors import VifNotAttached
from metalwire.networking.base import VifInfo
from metalwire.networking.bonds import Bond, bond_record, recorded_bond
from metalwire.networking.switchport import SwitchportConfig, switchport_record
from metalwire.networking.task import Task
from metalwire.networking.tbn.targets import Choice, realize

LOG = logging.getLogger(__name__)

#: What the ports of a pending attachment are put on if its operation does not finish.
RECOVERY_KEY = "switch_recovery"
#: Where a port keeps the configuration metalwire last set on its switch port.
APPLIED_KEY = "switchport_applied"
#: In a port's ``switchport_applied``: the bond the port is a member of (bonds.bond_record).
BOND_KEY = "bond"
#: Marks a record made pending again by a detach (not by an attach).
DETACHING_KEY = "switch_detaching"


def applied(port: Port) -> SwitchportConfig | None:
    """What metalwire last set on the port's switch port (None: no VLAN configuration)."""
    return _config((port.internal_info or {}).get(APPLIED_KEY))


def applied_bond(port: Port) -> Bond | None:
    """The bond metalwire last made the port a member of on its switch, or None."""
    record = (port.internal_info or {}).get(APPLIED_KEY)
    return recorded_bond(record.get(BOND_KEY)) if isinstance(record, dict) else None


def applied_record(config: SwitchportConfig | None, bond: Bond | None) -> dict[str, Any] | None:
    """What a port keeps in its ``switchport_applied`` once its switch port is set to
    ``config`` as a member of ``bond`` (None: a port of its own); :func:`applied` and
    :func:`applied_bond` read it back."""
    record = switchport_record(config)
    return record if bond is None else {**(record or {}), BOND_KEY: bond_record(bond)}


def _config(record: Any) -> SwitchportConfig | None:
    """A configuration as :func:`~metalwire.networking.switchport.switchport_record` keeps it
    (a record of a bond member without VLANs keeps only the bond)."""
    if not record or "mode" not in record:
        return None
    return SwitchportConfig(
        record["mode"], record["native_vlan"], tuple(record.get("allowed_vlans") or ())
    )


class SwitchVifMixin:
    """``vif_attach`` / ``vif_detach`` / ``recover_interrupted_attach`` of an interface that
    moves switch ports for a VIF naming its network (used by ``ironic-networking``)."""

    if TYPE_CHECKING:
        # Given by IronicNetworking and StoredVifMixin, which every user of this mixin has.
        def _apply(
            self,
            task: Task,
            wanted: Iterable[tuple[Port, SwitchportConfig | None]],
            also: Callable[[], None] | None = None,
        ) -> None: ...
        def _target_ports(self, task: Task, target: Port | Portgroup) -> list[Port]: ...
        def vif_network(self, vif_id: str, value: Any) -> SwitchportConfig: ...
        def requested_network(self, vif_info: VifInfo) -> SwitchportConfig | None: ...
        def state_network(self, task: Task, network_type: str) -> SwitchportConfig | None: ...
        def record_vif(self, task: Task, vif_info: VifInfo) -> VifAttachment | None: ...
        def forget_vif(self, task: Task, vif_id: str) -> None: ...
        def choose_target(
            self, task: Task, vif_info: VifInfo, physnets: set[str] | None = None
        ) -> Choice: ...

    def vif_attach(self, task: Task, vif_info: VifInfo) -> VifAttachment | None:
        network = self.requested_network(vif_info)  # a network it cannot name: 400 first
        if network is None or task.node.provision_state != "active":
            # without a network Ironic's bookkeeping only; before active the deploy moves it
            return self.record_vif(task, vif_info)
        vif_id = vif_info["id"]
        choice = self.choose_target(task, vif_info)
        info: dict[str, Any] = {k: v for k, v in vif_info.items() if k != "id"}
        with task.atomic():
            target = realize(task, choice)
            ports = self._target_ports(task, target)
            info[RECOVERY_KEY] = {port.uuid: switchport_record(applied(port)) for port in ports}
            attachment = task.attachments.record(vif_id, target, info, pending=True)
        try:
            self._apply(
                task,
                [(port, network) for port in ports],
                also=lambda: task.attachments.confirm(vif_id),
            )
        except BaseException:
            self._forget_quietly(task, vif_id)
            raise
        attachment.pending = False
        return attachment

    def vif_detach(self, task: Task, vif_id: str) -> None:
        attachment = task.attachment_of(vif_id)
        target = task.find_target(vif_id)
        if attachment is None or target is None:
            raise VifNotAttached(
                f"Unable to detach VIF {vif_id} from node {task.node.uuid} because it is not "
                "attached to it."
            )
        if attachment.info.get("network") is None or task.node.provision_state != "active":
            self.forget_vif(task, vif_id)
            return
        idle = self.state_network(task, "idle")
        ports = self._target_ports(task, target)
        kept = dict(attachment.info)
        recovery = {port.uuid: switchport_record(idle) for port in ports}
        task.attachments.reopen(vif_id, {**kept, RECOVERY_KEY: recovery, DETACHING_KEY: True})
        try:
            self._apply(
                task, [(port, idle) for port in ports], also=lambda: task.attachments.remove(vif_id)
            )
        except BaseException:
            try:
                with task.atomic():
                    task.attachments.update_info(vif_id, kept)
                    task.attachments.confirm(vif_id)
            except Exception as exc:  # still pending: the next task finishes the detach
                LOG.warning("VIF %s stays pending after a failed detach: %s", vif_id, exc)
            raise

    def interrupted_operation(self, attachment: VifAttachment) -> str:
        return "detach" if attachment.info.get(DETACHING_KEY) else "attach"

    def recover_interrupted_attach(self, task: Task, attachment: VifAttachment) -> None:
        """Put the ports of an interrupted operation on what its record says; never raises.

        The switch may have the new configuration or the old one: the ports are first
        recorded as set to the network the operation was moving them to, so that the
        change is sent; if the switch refuses, their record is dropped and the next state
        change sends its configuration whatever it was.
        """
        recovery = attachment.info.get(RECOVERY_KEY)
        raw = attachment.info.get("network")
        if not isinstance(recovery, dict) or raw is None:
            return
        by_uuid = {port.uuid: port for port in task.ports}
        ports = [by_uuid[uuid] for uuid in recovery if uuid in by_uuid]
        try:
            network = self.vif_network(attachment.vif_id, raw)
            # as a bond's members still: its record tells the next change to take it apart
            self._set_applied(task, ports, lambda port: applied_record(network, applied_bond(port)))
            self._apply(
                task,
                [
                    (port, _config(recovery[port.uuid]))
                    for port in task.ports
                    if port.uuid in recovery
                ],
            )
            LOG.info(
                "Interrupted operation on VIF %s: ports %s put back on %s",
                attachment.vif_id,
                ", ".join(recovery),
                recovery,
            )
        except Exception as exc:
            LOG.warning(
                "Could not put back the switch ports of the interrupted operation on VIF %s: %s",
                attachment.vif_id,
                exc,
            )
            try:
                self._set_applied(task, ports, None)
            except Exception as again:
                LOG.warning(
                    "Could not forget the switch state of VIF %s: %s", attachment.vif_id, again
                )

    def _set_applied(
        self, task: Task, ports: list[Port], record: Callable[[Port], Any] | None
    ) -> None:
        """Record each port as set to ``record(port)``; None: as unknown."""
        with task.atomic():
            for port in ports:
                info = {k: v for k, v in port.internal_info.items() if k != APPLIED_KEY}
                if record is not None:
                    info[APPLIED_KEY] = record(port)
                task.inventory.update_port(port.uuid, {"internal_info": info})
        task.reload()

    def _forget_quietly(self, task: Task, vif_id: str) -> None:
        try:
            task.attachments.remove(vif_id)
        except Exception as exc:  # still pending: the next task removes it
            LOG.warning("The pending record of VIF %s stays after a failed attach: %s", vif_id, exc)
