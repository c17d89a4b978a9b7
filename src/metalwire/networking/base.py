"""The network interface contract.

A network interface decides how a node's VIFs map onto its physical ports and what an
external network service must be told about it. One is chosen per node (``network_interface``)
from those enabled in configuration, loaded from the ``metalwire.network_interfaces``
entry-point group. The conductor calls every method with the node's lock held.

:class:`StoredVifMixin` gives an interface working ``vif_list``/``vif_attach``/``vif_detach``
by recording each VIF on the chosen port or portgroup, shown to clients as
``internal_info["tenant_vif_port_id"]``.
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Required, TypedDict

from metalwire.config import Config
from metalwire.db.models import Port, Portgroup, VifAttachment
from metalwire.errors import (
    Conflict,
    Invalid,
    InvalidParameterValue,
    UnsupportedDriverExtension,
    VifNotAttached,
)
from metalwire.networking import selection
from metalwire.networking.drift import Finding, NotChecked
from metalwire.networking.task import Task
from metalwire.networking.tbn.targets import Choice, TbnChoice, realize, tbn_choice

if TYPE_CHECKING:
    from metalwire.networking.switch_preview import SwitchPreview

LOG = logging.getLogger(__name__)


class VifInfo(TypedDict, total=False):
    """An attach request as the network interface receives it.

    ``id`` is the VIF; ``port_uuid`` or ``portgroup_uuid`` (1.67) asks for a target. Any other
    keys of the request body come along too; they are kept in the attachment's ``info``.
    """

    id: Required[str]
    port_uuid: str
    portgroup_uuid: str


class NetworkInterface(abc.ABC):
    """Base class of every network interface.

    Implementations raise the catalog's errors: :class:`~metalwire.errors.Invalid` (400) for a
    request that cannot be satisfied, :class:`~metalwire.errors.Conflict` (409) for a clash
    with existing state, :class:`~metalwire.errors.NetworkError` (5xx) when an external
    network service fails.
    """

    name: str = ""

    def __init__(self, config: Config) -> None:
        self.config = config

    def calls_external_service(self) -> bool:
        """Whether VIF operations call a service outside metalwire (e.g. Neutron).

        If not, the conductor runs each operation in a single database transaction; if so,
        it holds a lease on the node instead, so no transaction stays open across a call.
        """
        return False

    def rewires_deployed_ports(self) -> bool:
        """Whether this interface carries a change of a port's connectivity (its link,
        ``pxe_enabled``, physical network or portgroup) out on a node that is deployed.

        If not (Ironic's rule for every interface), the conductor takes such a change only
        while the node is in enroll, manageable, inspecting or inspect wait, or in
        maintenance (409 otherwise): nothing would set the network up anew for the port.
        """
        return False

    def names_switches(self) -> bool:
        """Whether a port's ``local_link_connection.switch_id`` may name its switch by a
        name of this interface's own on its nodes. If not (the default; Ironic's rule for
        every interface), the conductor takes only a MAC address or an OpenFlow datapath ID
        there (400 otherwise)."""
        return False

    def keeps_pxe_off_bonded_ports(self) -> bool:
        """Whether a change may not leave a PXE-enabled port in a portgroup whose
        ``standalone_ports_supported`` is false on this interface's nodes.

        If so (the default; Ironic's ``flat`` and ``neutron``), the conductor refuses such a
        port or portgroup update (409). An interface that sets nothing up for PXE answers
        False (``noop``, as Ironic's takes the change). A port created with ``pxe_enabled``
        true in such a portgroup is refused whatever the interface, as by Ironic's API; one
        created without it there is PXE-enabled only if this answers False.
        """
        return True

    def validate_inspection(self, task: Task) -> None:
        """Check the interface can put the node on its inspection network for an in-band
        inspection (the ``agent`` inspect interface, :meth:`add_inspection_network`); raise
        InvalidParameterValue (or NetworkError when the network service cannot answer) if
        not. By default, as Ironic's base class, an interface that does not say it can is
        refused (UnsupportedDriverExtension)."""
        raise UnsupportedDriverExtension(task.node.driver, "validate_inspection")

    def validate_rescue(self, task: Task) -> None:
        """Check the interface can serve an ``agent`` rescue of the node (asked before the
        rescue and by ``validate``); raise MissingParameterValue or InvalidParameterValue
        if not. As Ironic's, an interface with no rescuing network to name (``noop``,
        ``flat``) takes every rescue."""

    def need_power_on(self, task: Task) -> bool:
        """Whether the node must be powered on while its network is set up or taken down
        (deploy, undeploy, cleaning): the conductor then powers it on around those steps and
        back off after them. Ironic's answer for every interface but ``neutron``: no."""
        return False

    @abc.abstractmethod
    def validate(self, task: Task) -> None:
        """Check the interface can work for this node; raise NetworkInterfaceInvalid if not."""

    @abc.abstractmethod
    def vif_list(self, task: Task) -> list[dict[str, str]]:
        """The VIFs attached to the node, as ``[{"id": ...}]``: ports first, then portgroups."""

    @abc.abstractmethod
    def vif_attach(self, task: Task, vif_info: VifInfo) -> VifAttachment | None:
        """Attach ``vif_info["id"]`` to a port or portgroup of the node; the attachment
        recorded, or None if the interface records none.

        ``port_uuid`` / ``portgroup_uuid`` in ``vif_info`` pick the target. Raises
        NoFreePhysicalPort when nothing can take the VIF, VifAlreadyAttached when it is
        attached already. Must leave nothing half-done when it raises.
        """

    @abc.abstractmethod
    def vif_detach(self, task: Task, vif_id: str) -> None:
        """Detach a VIF; raises VifNotAttached if the node does not have it."""

    def check_attach_request(self, vif_info: VifInfo) -> None:
        """Refuse (400) what an attach body asks that this interface cannot do, before a
        target is chosen; a dry run asks it too. By default nothing is refused."""

    def attach_preview(
        self, task: Task, vif_info: VifInfo, target: Port | Portgroup
    ) -> list[SwitchPreview] | None:
        """For a dry run: what attaching ``vif_info`` to ``target`` would change on the
        switches (nothing is sent); None for an interface that drives no switch."""
        return None

    def get_current_vif(self, task: Task, target: Port | Portgroup) -> str | None:
        """The VIF recorded on a port or portgroup, or None (Ironic's hook; metalwire itself
        reads the records)."""
        return task.vif_on(target)

    def port_unusable_reason(self, task: Task, port: Port) -> str | None:
        """Why ``port`` cannot take a VIF on this node, or None if it can.

        Used when choosing the port or portgroup for a VIF: an unusable port is never
        chosen, requested or counted as a free member of its portgroup. The reason completes
        "port <uuid> ...", e.g. "has no local_link_connection". By default (Ironic's rule
        for every interface) a port with ``extra["client-id"]`` (InfiniBand) is usable, and
        otherwise one whose ``is_smartnic`` contradicts its ``local_link_connection`` is
        not. Subclasses may refuse more; they should keep these refusals (call ``super()``).
        """
        if port.extra and port.extra.get("client-id"):
            return None
        return selection.smart_nic_refusal(port)

    def port_changed(self, task: Task, port: Port, changed: Collection[str]) -> None:
        """Called before a port update is stored; ``changed`` names the changed fields.

        Raise to refuse the change (nothing is stored then).
        """

    def port_created(self, task: Task, port: Port) -> None:
        """Called before a new port of ``task``'s node is stored; raise to refuse it."""

    def node_adopted(self, task: Task) -> None:
        """Called before ``task``'s node (with its ports) is changed to this network
        interface; raise to refuse the change."""

    def portgroup_changed(self, task: Task, portgroup: Portgroup, changed: Collection[str]) -> None:
        """Called before a portgroup update is stored; raise to refuse it."""

    def remove_port(self, task: Task, port: Port) -> None:
        """Delete ``port`` of the node (its VIF, if any, already detached); an interface
        that configured something for it undoes that with the deletion. Raise to refuse."""
        task.inventory.delete_port(port.uuid)

    def move_port(self, task: Task, port: Port, to: Task, store: Callable[[], Port]) -> Port:
        """Store ``port``'s move from ``task``'s node to ``to``'s (``store`` writes it, in
        one transaction of both tasks); an interface that configured something outside
        metalwire for the port on ``task``'s node undoes that with the move, all or nothing.
        Called after the new node's interface accepted the port (:meth:`port_changed`);
        raise to refuse the move."""
        return store()

    def recover_interrupted_attach(self, task: Task, attachment: VifAttachment) -> None:
        """Undo what an attach interrupted by the death of its process did outside metalwire.

        Called, best effort, before the conductor removes the attachment's pending record;
        ``attachment.info`` holds what the attach kept for undoing. Must not raise.
        """

    def interrupted_operation(self, attachment: VifAttachment) -> str:
        """What the operation that left ``attachment`` pending was, for the node's history:
        ``"attach"`` unless the interface records pending detaches too (it then says which).
        """
        return "attach"

    def add_provisioning_network(self, task: Task) -> None:
        """Prepare the node's ports for deployment (called at the start of a deploy)."""

    def remove_provisioning_network(self, task: Task) -> None:
        """Undo :meth:`add_provisioning_network` (called once the image is written)."""

    def configure_tenant_networks(self, task: Task) -> None:
        """Put the node's attached VIFs in service (called at the end of a deploy)."""

    def unconfigure_tenant_networks(self, task: Task) -> None:
        """Take the node's attached VIFs out of service (called at undeploy)."""

    def add_cleaning_network(self, task: Task) -> None:
        """Prepare the node's ports for cleaning."""

    def remove_cleaning_network(self, task: Task) -> None:
        """Undo :meth:`add_cleaning_network`."""

    def add_rescuing_network(self, task: Task) -> None:
        """Put the node's ports on the network its rescue ramdisk boots on (called by an
        ``agent`` rescue once the tenant networks are unconfigured)."""

    def remove_rescuing_network(self, task: Task) -> None:
        """Undo :meth:`add_rescuing_network` (called when the rescue ramdisk is up, and by
        an unrescue, before the tenant networks are configured again)."""

    def add_inspection_network(self, task: Task) -> None:
        """Put the node's ports on the network its inspection ramdisk boots on (called when
        an ``agent`` inspection starts, before the node waits in ``inspect wait``)."""

    def remove_inspection_network(self, task: Task) -> None:
        """Undo :meth:`add_inspection_network` (called on every way out of ``inspect wait``:
        an abort, ``[conductor] inspect_wait_timeout``)."""

    # -- the drift audit -----------------------------------------------------------------

    def audit_unavailable(self) -> str | None:
        """Why the drift audit cannot compare this interface's nodes now, or None if it can.

        The text completes "<interface name>: ..." in the 400 an audit answers when no
        enabled interface can take part. By default an interface keeps nothing outside
        metalwire, so there is nothing to compare.
        """
        return "it keeps nothing outside metalwire to compare with its records."

    def audit(self, task: Task) -> list[Finding]:
        """Where the node's records and the outside world disagree; read without the lock.

        Called only when :meth:`audit_unavailable` is None. By default nothing to find.
        Raise NetworkError when the external service fails.
        """
        return []

    def audit_nodes(self, tasks: Sequence[Task]) -> list[Finding]:
        """The findings of a page of nodes using this interface (read without locks).

        By default :meth:`audit` node by node; override to read the external service in bulk.
        """
        return [finding for task in tasks for finding in self.audit(task)]

    def audit_nodes_checked(self, tasks: Sequence[Task]) -> tuple[list[Finding], list[NotChecked]]:
        """:meth:`audit_nodes`, and what could not be compared (by default, nothing)."""
        return self.audit_nodes(tasks), []

    def repair(self, task: Task, finding: Finding) -> str:
        """Fix a finding of :meth:`audit` whose ``repair`` is set; what was done.

        Called with the node's lock held, on a finding of an audit made under that lock.
        Raise a catalog error if the fix fails, after undoing what it did.
        """
        raise Invalid(f"The {self.name} network interface repairs nothing ({finding.kind}).")


class StoredVifMixin:
    """VIF bookkeeping that records each VIF on the port or portgroup chosen for it.

    Subclasses may override :meth:`vif_physnets` to restrict the physical networks a VIF may
    use, and :meth:`after_record` / :meth:`before_forget` to tell an external service.
    """

    if TYPE_CHECKING:
        # Given by NetworkInterface, which every class using this mixin also derives from.
        def port_unusable_reason(self, task: Task, port: Port) -> str | None: ...

    def vif_physnets(self, task: Task, vif_info: VifInfo) -> set[str]:
        """Physical networks the VIF can use; empty means any."""
        return set()

    def vif_list(self, task: Task) -> list[dict[str, str]]:
        return [{"id": a.vif_id} for a in task.attachments if not a.pending]

    def choose_target(
        self, task: Task, vif_info: VifInfo, physnets: set[str] | None = None
    ) -> Choice:
        """What the VIF goes on; ``physnets`` (if given) spares the lookup.

        A requested ``port_uuid`` / ``portgroup_uuid`` is taken as asked. Otherwise, with
        trait-based networking on (``task.tbn_rules``), the plan decides (:meth:`tbn_plan`):
        a port, a portgroup or a dynamic portgroup to build (:func:`realize` it in the
        transaction that records the VIF). Else, and when no rule applies while
        ``trait_based_networking_raise_when_no_match`` is off, ``selection.py`` picks.

        Raises NoFreePhysicalPort, NoTraitMatches, or Invalid for a requested target that
        cannot take it.
        """
        tbn = self.tbn_plan(task, vif_info)
        if tbn is not None:
            if tbn.error is not None:
                raise tbn.error
            if tbn.target is not None:
                return tbn.target
            _warn_no_rule_places(task, vif_info, tbn)
        placement = self.placement(task, vif_info, physnets, explain=False)
        if placement.chosen is None:
            assert placement.error is not None
            raise placement.error
        return placement.chosen

    def tbn_plan(self, task: Task, vif_info: VifInfo, explain: bool = False) -> TbnChoice | None:
        """The trait-based networking plan of the attach, None when it does not decide
        (the feature is off, or the request names its target). Writes nothing.

        Raises NoTraitMatches when nothing applies and the options say to, unless
        ``explain`` (a dry run), which returns that error in the choice.
        """
        if task.tbn_rules is None or _requested_target(task, vif_info) is not None:
            return None

        def unusable(port: Port) -> str | None:
            reason = self.port_unusable_reason(task, port)
            return None if reason is None else f"cannot be used: it {reason}"

        return tbn_choice(task, dict(vif_info), unusable, explain)

    def placement(
        self,
        task: Task,
        vif_info: VifInfo,
        physnets: set[str] | None = None,
        explain: bool = True,
    ) -> selection.Placement:
        """Where the VIF would go and why every other target would not; writes nothing.

        ``physnets`` (if given) spares the lookup of :meth:`vif_physnets`; without
        ``explain`` the refusals are left out when a target is found.
        """
        if physnets is None:
            physnets = self.vif_physnets(task, vif_info)

        def refusal(port: Port) -> str | None:
            return self.port_unusable_reason(task, port)

        return selection.place(
            task,
            vif_info["id"],
            physnets,
            port_refusal=refusal,
            requested=_requested_target(task, vif_info),
            explain=explain,
        )

    def vif_attach(self, task: Task, vif_info: VifInfo) -> VifAttachment | None:
        choice = self.choose_target(task, vif_info)
        info = {k: v for k, v in vif_info.items() if k != "id"}
        with task.atomic():
            target = realize(task, choice)
            attachment = task.attachments.record(vif_info["id"], target, info)
            self.after_record(task, vif_info, target)
        return attachment

    def vif_detach(self, task: Task, vif_id: str) -> None:
        target = task.find_target(vif_id)
        if target is None:
            raise VifNotAttached(
                f"Unable to detach VIF {vif_id} from node {task.node.uuid} because it is not "
                "attached to it."
            )
        with task.atomic():
            self.before_forget(task, vif_id, target)
            task.attachments.remove(vif_id)

    def port_changed(self, task: Task, port: Port, changed: Collection[str]) -> None:
        vif = task.vif_on(port)
        if vif is None:
            return
        for field in ("portgroup_id", "physical_network"):
            if field in changed:
                name = "portgroup" if field == "portgroup_id" else field
                raise Conflict(
                    f"Cannot change the {name} of port {port.uuid} while VIF {vif} is "
                    "attached to it; detach the VIF first."
                )

    def after_record(self, task: Task, vif_info: VifInfo, target: Port | Portgroup) -> None:
        """Called inside the recording transaction; raise to roll the record back."""

    def before_forget(self, task: Task, vif_id: str, target: Port | Portgroup) -> None:
        """Called inside the transaction that removes the record; raise to keep it."""


def _requested_target(task: Task, vif_info: VifInfo) -> Port | Portgroup | None:
    port_uuid = vif_info.get("port_uuid")
    portgroup_uuid = vif_info.get("portgroup_uuid")
    if port_uuid:
        for port in task.ports:
            if port.uuid == port_uuid:
                return port
        raise InvalidParameterValue(f"Port {port_uuid} is not a port of node {task.node.uuid}.")
    if portgroup_uuid:
        for portgroup in task.portgroups:
            if portgroup.uuid == portgroup_uuid:
                return portgroup
        raise InvalidParameterValue(
            f"Portgroup {portgroup_uuid} is not a portgroup of node {task.node.uuid}."
        )
    return None


def _warn_no_rule_places(task: Task, vif_info: VifInfo, tbn: TbnChoice) -> None:
    """Say in the log that the ordinary choice places a VIF no trait-based rule placed."""
    LOG.warning(
        "No trait-based networking rule places VIF %s on node %s, and "
        "[conductor] trait_based_networking_raise_when_no_match is off: choosing its port or "
        "portgroup as without trait-based networking. %s",
        vif_info["id"],
        task.node.label,
        tbn.plan.reason or "",
    )
