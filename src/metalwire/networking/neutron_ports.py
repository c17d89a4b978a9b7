"""The Neutron port operations the ``flat`` and ``neutron`` interfaces share.

:class:`NeutronPortsMixin` attaches and detaches VIFs that are Neutron ports: it reads the
VIF's physical networks, records the attachment (pending while Neutron is told), moves the
Neutron port's MAC to the chosen port's or portgroup's, binds it where the interface says
so, and undoes what it did, newest first (:class:`Rollback`), when a Neutron call fails. It
also makes an attached VIF's Neutron port follow a MAC change of its port or portgroup, and
undoes what an attach interrupted by the death of its process left in Neutron.

A binding is ``binding:host_id`` = node UUID, ``binding:vnic_type`` = ``baremetal`` and
``binding:profile`` as built by :func:`binding_profile` (``flat`` sends no profile when
the node deploys, but does when a VIF is attached to an ``active`` node). Through a Smart
NIC port (``is_smartnic``) the binding is, as in Ironic, ``binding:host_id`` = the
``hostname`` of the port's ``local_link_connection`` and ``binding:vnic_type`` =
``smart-nic``, and its failure is fatal unless the node's
``driver_info["fail_on_binding_failure"]`` is false (:func:`binding_host`). An
attach to a node that is not ``active`` seeds the binding instead, as Ironic does: the node
UUID as host, the ``baremetal`` vnic type and an empty profile, so that Neutron can place
the port on a segment of a routed network and allocate its address (deferred IP
allocation) while no mechanism driver has a link to wire yet; a port bound to another
host is unbound first and keeps the node port's MAC (Ironic resets it then, until the
deploy sets it again). A detach unbinds the port and gives it back its MAC in every
provision state (Ironic only in ``active``, ``deleting`` and ``available``, leaving the
VIF bound to the node otherwise): a detached VIF keeps nothing of the node. Status
codes are those of :mod:`metalwire.networking.neutron_client`: 502 when Neutron answered
with an error, 503 when it could not be reached.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any

from metalwire.config import Config
from metalwire.db.models import Port, Portgroup, VifAttachment
from metalwire.errors import (
    Invalid,
    InvalidParameterValue,
    NetworkError,
    VifNotAttached,
)
from metalwire.networking import selection
from metalwire.networking.base import StoredVifMixin, VifInfo
from metalwire.networking.neutron_client import (
    VIF_TYPE_BINDING_FAILED,
    VNIC_TYPE_SMART_NIC,
    NeutronClient,
    NeutronPort,
    binding_failed_error,
)
from metalwire.networking.task import Task
from metalwire.networking.tbn.targets import realize

LOG = logging.getLogger(__name__)

Json = dict[str, Any]

VNIC_BAREMETAL = "baremetal"
#: The vnic type of a Smart NIC port's binding: the NIC's own host runs the agent that binds it.
VNIC_SMARTNIC = VNIC_TYPE_SMART_NIC
#: The MAC the Neutron port had before the attach, kept in the attachment's info.
ORIGINAL_MAC_KEY = "neutron_original_mac"
PROVISIONING_KEY = "provisioning_vif_port_id"
CLEANING_KEY = "cleaning_vif_port_id"
RESCUING_KEY = "rescuing_vif_port_id"
INSPECTION_KEY = "inspection_vif_port_id"
UNBIND: Json = {"binding:host_id": "", "binding:profile": {}}
#: The driver_info key that decides whether a VIF binding must succeed, as in Ironic.
FAIL_ON_BINDING_FAILURE = "fail_on_binding_failure"
#: DHCP option 61 (RFC 2132), the client identifier an InfiniBand port's firmware sends.
DHCP_CLIENT_ID_OPTION = "61"
_CLIENT_LOCK = threading.Lock()


# -- pure rules ----------------------------------------------------------------------------


def local_group_information(portgroup: Portgroup) -> Json:
    """What a portgroup tells Neutron about the bond: id, name, mode and bond properties.

    Property names are passed with a ``bond_`` prefix (added when missing), the form bonding
    options take in the kernel and in cloud-init.
    """
    properties = {
        (key if key.startswith("bond") else f"bond_{key}"): value
        for key, value in (portgroup.properties or {}).items()
    }
    return {
        "id": portgroup.uuid,
        "name": portgroup.name,
        "bond_mode": portgroup.mode,
        "bond_properties": properties,
    }


def binding_profile(
    target: Port | Portgroup, members: Sequence[Port] = (), physnet: str | None = None
) -> Json:
    """The ``binding:profile`` binding a port or portgroup's VIF to the node.

    ``local_link_information`` lists the port's ``local_link_connection``, or that of every
    member port of a portgroup (``members``), whose ``local_group_information`` is added.
    ``physical_network`` is added when the target has one.
    """
    if isinstance(target, Portgroup):
        links = [dict(port.local_link_connection or {}) for port in members]
    else:
        links = [dict(target.local_link_connection or {})]
    profile: Json = {"local_link_information": links}
    if isinstance(target, Portgroup):
        profile["local_group_information"] = local_group_information(target)
    if physnet:
        profile["physical_network"] = physnet
    return profile


def is_smart_nic(target: Port | Portgroup) -> bool:
    """Whether ``target`` is a Smart NIC port (a portgroup never is, as in Ironic)."""
    return isinstance(target, Port) and bool(target.is_smartnic)


def binding_host(node_uuid: str, target: Port | Portgroup) -> tuple[str, str]:
    """(``binding:host_id``, ``binding:vnic_type``) of a binding through ``target``.

    A Smart NIC port is bound to the host its ``local_link_connection`` names
    (``hostname``: the NIC's own operating system, whose agent wires it) with the
    ``smart-nic`` vnic type; any other port or portgroup to the node, as ``baremetal``.
    """
    if is_smart_nic(target):
        assert isinstance(target, Port)
        return str((target.local_link_connection or {}).get("hostname") or ""), VNIC_SMARTNIC
    return node_uuid, VNIC_BAREMETAL


def binding_fields(host_id: str, profile: Json, vnic_type: str = VNIC_BAREMETAL) -> Json:
    return {
        "binding:vnic_type": vnic_type,
        "binding:host_id": host_id,
        "binding:profile": profile,
    }


def target_binding_fields(node_uuid: str, target: Port | Portgroup, profile: Json) -> Json:
    """The binding fields through ``target`` (:func:`binding_host`) with ``profile``."""
    host_id, vnic_type = binding_host(node_uuid, target)
    return binding_fields(host_id, profile, vnic_type)


def seed_fields(node_uuid: str) -> Json:
    """The binding an attach to a node that is not deployed sets (see the module's text)."""
    return binding_fields(node_uuid, {})


def current_binding(port: NeutronPort) -> Json:
    """The binding fields of a port as they are, to put them back."""
    return {
        "binding:host_id": port.host_id,
        "binding:profile": port.profile,
        "binding:vnic_type": port.vnic_type,
    }


def is_seed(port: NeutronPort, node_uuid: str) -> bool:
    """Whether a port's binding is at most what a VIF of a node that is not deployed may
    have: none, or the seed of an attach (:func:`seed_fields`: the node, ``baremetal``,
    an empty profile), which ``flat``'s binding while deploying keeps."""
    return not port.bound or not seed_difference(port, node_uuid)


def seed_difference(port: NeutronPort, node_uuid: str) -> str:
    """How a bound port's binding differs from the seed to the node ('' if it does not)."""
    if port.host_id != node_uuid:
        return f"is bound to host {port.host_id}"
    if port.vnic_type != VNIC_BAREMETAL:
        return f"is bound to the node with binding:vnic_type {port.vnic_type or 'unset'}"
    if port.profile:
        return f"is bound to the node with binding:profile {port.profile!r}"
    return ""


def client_id_fields(target: Port | Portgroup) -> Json:
    """The Neutron port fields that give DHCP a port's ``extra["client-id"]``, if it has one.

    Without the option Neutron's DHCP server does not answer a client (InfiniBand) that
    identifies itself by client identifier rather than by MAC.
    """
    client_id = (target.extra or {}).get("client-id") if isinstance(target, Port) else None
    if not client_id:
        return {}
    option = {"opt_name": DHCP_CLIENT_ID_OPTION, "opt_value": str(client_id)}
    return {"extra_dhcp_opts": [option]}


def _client_id_of(port: NeutronPort) -> str | None:
    """The DHCP client identifier option a Neutron port carries, if any."""
    for option in port.raw.get("extra_dhcp_opts") or []:
        if str(option.get("opt_name")) == DHCP_CLIENT_ID_OPTION:
            return str(option.get("opt_value"))
    return None


def truthy(value: object) -> bool:
    """A driver_info flag as a boolean: a string is read as a word ("false", "no", "off" and
    "0" are false, in any case), anything else by its truth value."""
    if isinstance(value, str):
        return value.strip().lower() not in {"false", "no", "off", "0", ""}
    return bool(value)


def same_mac(a: str | None, b: str | None) -> bool:
    return (a or "").lower() == (b or "").lower()


class Rollback:
    """Undo steps of an operation, run newest first when a later step fails."""

    def __init__(self) -> None:
        self._steps: list[tuple[str, Callable[[], object]]] = []

    def add(self, what: str, step: Callable[[], object]) -> None:
        self._steps.append((what, step))

    def run(self) -> list[str]:
        """Run every step (a failing one does not stop the others); the failures."""
        failures: list[str] = []
        for what, step in reversed(self._steps):
            try:
                step()
            except Exception as exc:
                LOG.warning("Rollback step %r failed: %s", what, exc)
                failures.append(f"{what}: {exc}")
        self._steps.clear()
        return failures


def rolled_back(prefix: str, error: NetworkError, failures: Sequence[str]) -> NetworkError:
    """The error for an operation whose rollback ran: what failed, and what was undone."""
    if failures:
        tail = " Undoing the steps already done failed too: " + "; ".join(failures)
    else:
        tail = " Everything already done was undone."
    message = str(error).rstrip()
    if not message.endswith("."):
        message += "."
    return NetworkError(f"{prefix}: {message}{tail}", error.code)


# -- shared by neutron and flat ------------------------------------------------------------


class NeutronPortsMixin(StoredVifMixin):
    """VIF bookkeeping that keeps each VIF's Neutron port in step, when Neutron is configured.

    Without a Neutron (``[neutron] endpoint_override`` or the Keystone catalog) every method
    behaves as :class:`StoredVifMixin`'s.
    An attach to an ``active`` node binds at once (:meth:`hot_plug`, by default as
    :meth:`bind`; subclasses may change either); to any other node it seeds the binding
    (:meth:`seed`).
    """

    config: Config
    _neutron: NeutronClient | None = None

    def uses_neutron(self) -> bool:
        return self.config.neutron.configured

    def neutron(self) -> NeutronClient:
        """The process's Neutron client for this interface, made on first use."""
        client = self._neutron
        if client is None:
            with _CLIENT_LOCK:
                client = self._neutron
                if client is None:
                    client = self._neutron = NeutronClient(self.config.neutron)
        return client

    def binds_on_attach(self, task: Task) -> bool:
        """Whether an attach binds the VIF at once (hot-plug), rather than seeding it."""
        return task.node.provision_state == "active"

    # -- physical networks ---------------------------------------------------------------

    def vif_physnets(self, task: Task, vif_info: VifInfo) -> set[str]:
        if not self.uses_neutron():
            return set()
        vif_id = str(vif_info["id"])
        return self._physnets(task, self.neutron(), self._vif_port(task, vif_id))

    def _physnets(self, task: Task, client: NeutronClient, port: NeutronPort) -> set[str]:
        """The VIF's physical networks; not looked up when no port or portgroup of the node
        has one."""
        node_physnets = {p.physical_network for p in task.ports if p.physical_network}
        node_physnets |= {g.physical_network for g in task.portgroups if g.physical_network}
        if not node_physnets:
            return set()
        network = client.get_network(
            port.network_id, f"read the network of VIF port {port.id} for its physical networks"
        )
        physnets = set(network.physnets)
        if len(physnets & node_physnets) > 1:
            raise Invalid(
                f"Unable to attach VIF {port.id} to node {task.node.uuid}: its network "
                f"{network.id} has segments on physical networks "
                f"{', '.join(sorted(physnets & node_physnets))}, and the node has ports on "
                "more than one of them; Neutron can bind a host to one segment of a network "
                "only."
            )
        return physnets

    def _vif_port(self, task: Task, vif_id: str) -> NeutronPort:
        client = self.neutron()
        port = client.find_port(vif_id, f"read VIF port {vif_id}")
        if port is None:
            raise InvalidParameterValue(
                f"Unable to attach VIF {vif_id} to node {task.node.uuid}: Neutron has no port "
                f"{vif_id} (GET {client.path('/ports/' + vif_id)} answered 404)."
            )
        return port

    # -- binding ---------------------------------------------------------------------------

    def profile_for(self, task: Task, target: Port | Portgroup) -> Json:
        if isinstance(target, Portgroup):
            physnet = selection.portgroup_physnet(task, target)
            return binding_profile(target, task.members(target), physnet)
        return binding_profile(target, (), target.physical_network)

    def bind_attached(self, task: Task, attachments: Sequence[VifAttachment]) -> None:
        """Bind the attachments' VIFs to the node (:meth:`bind`), all or none: a failure
        undoes the bindings made, newest first, and raises NetworkError naming it."""
        client = self.neutron()
        rollback = Rollback()
        try:
            for attachment in attachments:
                target = task.find_target(attachment.vif_id)
                if target is not None:
                    self.bind(task, client, attachment.vif_id, target, rollback)
        except NetworkError as exc:
            raise rolled_back(
                f"Binding the VIFs of node {task.node.uuid} failed", exc, rollback.run()
            ) from None

    def bind(
        self,
        task: Task,
        client: NeutronClient,
        vif_id: str,
        target: Port | Portgroup,
        rollback: Rollback,
    ) -> NeutronPort:
        """Bind the VIF's Neutron port to the node through ``target``, with the target's
        MAC (:meth:`mac_for_binding`); wait for ACTIVE."""
        mac = self.mac_for_binding(client, vif_id, target, rollback)
        return self._bind_and_wait(task, client, vif_id, target, rollback, mac)

    def _bind_and_wait(
        self,
        task: Task,
        client: NeutronClient,
        vif_id: str,
        target: Port | Portgroup,
        rollback: Rollback,
        extra: Json,
    ) -> NeutronPort:
        """Send the binding through ``target`` (and the ``extra`` fields); wait for ACTIVE
        if a binding failure is fatal for the node (:meth:`binding_failure_fatal`)."""
        purpose = f"bind VIF port {vif_id} to node {task.node.uuid}"
        self.wait_for_host_agent(task, client, target)
        fields = {
            **target_binding_fields(task.node.uuid, target, self.profile_for(task, target)),
            **client_id_fields(target),
            **extra,
        }
        rollback.add(f"unbind VIF port {vif_id}", lambda: self._unbind(client, vif_id))
        port = client.update_port(vif_id, fields, purpose)
        failed = port.vif_type == VIF_TYPE_BINDING_FAILED
        if not self.binding_failure_fatal(task, target):
            if failed:
                LOG.warning(
                    "Neutron could not bind VIF port %s to node %s (binding:vif_type %s); "
                    "going on, as binding failures are not fatal for the node",
                    vif_id,
                    task.node.uuid,
                    port.vif_type,
                )
            return port
        if failed:
            raise binding_failed_error("PUT", client.path(f"/ports/{vif_id}"), port, purpose)
        return client.wait_for_port_status(vif_id, "ACTIVE")

    def wait_for_host_agent(
        self, task: Task, client: NeutronClient, target: Port | Portgroup
    ) -> None:
        """Before a binding through a Smart NIC port, wait until a Neutron agent on the
        NIC's host is alive, as Ironic does: ``[agent] neutron_agent_max_attempts`` checks,
        ``neutron_agent_status_retry_interval`` seconds apart; then fail (503)."""
        if not is_smart_nic(target):
            return
        host, _ = binding_host(task.node.uuid, target)
        options = self.config.agent
        purpose = f"check the Neutron agent of host {host}"
        for attempt in range(options.neutron_agent_max_attempts):
            if attempt:
                time.sleep(options.neutron_agent_status_retry_interval)
            if client.agent_alive(host, purpose):
                return
        raise NetworkError(
            f"No Neutron agent on host {host} (the hostname of Smart NIC port {target.uuid} "
            f"of node {task.node.uuid}) is alive after {options.neutron_agent_max_attempts} "
            "checks ([agent] neutron_agent_max_attempts); the port is not bound. Start the "
            "agent on the Smart NIC, or check that it reports to Neutron."
        )

    def binding_failure_fatal(self, task: Task, target: Port | Portgroup | None = None) -> bool:
        """Whether a binding through ``target`` waits for ACTIVE and fails when Neutron
        cannot bind, as Ironic decides it: the node's
        ``driver_info["fail_on_binding_failure"]``, else true for a Smart NIC port, else
        the interface's default (:meth:`binding_failure_default`)."""
        value = (task.node.driver_info or {}).get(FAIL_ON_BINDING_FAILURE)
        if value is None:
            smart_nic = target is not None and is_smart_nic(target)
            return smart_nic or self.binding_failure_default()
        return truthy(value)

    def binding_failure_default(self) -> bool:
        """Without the node saying so, a binding failure is not fatal (Ironic's ``flat``)."""
        return False

    def mac_for_binding(
        self, client: NeutronClient, vif_id: str, target: Port | Portgroup, rollback: Rollback
    ) -> Json:
        """The ``mac_address`` a binding sends with it: the target's, as Ironic's bindings
        send it, so that a deploy heals a MAC changed behind metalwire's back (none for a
        portgroup without an address). A port still bound with another MAC is unbound
        first: Neutron refuses a MAC change on a bound port (409 PortBound)."""
        if not target.address:
            return {}
        port = client.get_port(vif_id, f"read VIF port {vif_id} before binding it")
        if port.bound and not same_mac(port.mac_address, target.address):
            binding = current_binding(port)
            rollback.add(
                f"bind VIF port {vif_id} again",
                lambda: client.update_port(vif_id, binding, f"restore the binding of {vif_id}"),
            )
            client.update_port(vif_id, UNBIND, f"unbind VIF port {vif_id} to change its MAC")
        return {"mac_address": target.address}

    def hot_plug(
        self,
        task: Task,
        client: NeutronClient,
        vif_id: str,
        target: Port | Portgroup,
        rollback: Rollback,
    ) -> None:
        """Bind a VIF attached to an ``active`` node at once, with its links, as the deploy
        of ``neutron`` binds, but without reading the port's MAC again: the attach has just
        set it."""
        self._bind_and_wait(task, client, vif_id, target, rollback, {})

    def expected_links(self, task: Task, target: Port | Portgroup) -> list[Json] | None:
        """The ``local_link_information`` a deployed node's VIF is bound with, or None when
        the interface sends none (the drift audit compares it)."""
        return list(self.profile_for(task, target).get("local_link_information") or [])

    def expected_hosts(self, task: Task, target: Port | Portgroup) -> list[tuple[str, str]]:
        """The (``binding:host_id``, ``binding:vnic_type``) pairs a deployed node's VIF
        through ``target`` may be bound with (the drift audit compares them): the one
        :func:`binding_host` gives."""
        return [binding_host(task.node.uuid, target)]

    def seed(
        self, task: Task, client: NeutronClient, port: NeutronPort, rollback: Rollback
    ) -> None:
        """Give an attached VIF's Neutron port the seed binding to the node
        (:func:`seed_fields`); a port bound otherwise is unbound first."""
        vif_id = port.id
        if not is_seed(port, task.node.uuid):
            binding = current_binding(port)
            rollback.add(
                f"bind VIF port {vif_id} again",
                lambda: client.update_port(vif_id, binding, f"restore the binding of {vif_id}"),
            )
            client.update_port(vif_id, UNBIND, f"unbind VIF port {vif_id} before seeding it")
        rollback.add(f"unbind VIF port {vif_id}", lambda: self._unbind(client, vif_id))
        client.update_port(
            vif_id,
            seed_fields(task.node.uuid),
            f"seed the binding of VIF port {vif_id} to node {task.node.uuid}",
        )

    def unconfigure_tenant_networks(self, task: Task) -> None:
        """Unbind every attached VIF (one that no longer exists in Neutron is skipped)."""
        if not self.uses_neutron():
            return
        client = self.neutron()
        for attachment in task.attachments:
            try:
                self._unbind(client, attachment.vif_id)
            except NetworkError as exc:
                raise NetworkError(
                    f"Unbinding the VIFs of node {task.node.uuid} failed: {exc}", exc.code
                ) from None

    @staticmethod
    def _unbind(client: NeutronClient, vif_id: str) -> bool:
        """Unbind a Neutron port; False if it no longer exists."""
        done = client.update_port_if_exists(vif_id, UNBIND, f"unbind VIF port {vif_id}")
        if done is None:
            LOG.warning("Neutron port %s no longer exists; nothing to unbind", vif_id)
        return done is not None

    def settle(self) -> None:
        """Give the network time to set up bound ports (``[neutron] port_setup_delay``)."""
        if self.config.neutron.port_setup_delay > 0:
            time.sleep(self.config.neutron.port_setup_delay)

    @staticmethod
    def change_mac(
        client: NeutronClient, port: NeutronPort, mac: str | None, rollback: Rollback
    ) -> None:
        """Set a Neutron port's MAC (None: Neutron generates one), unbinding it around the
        change if it is bound, since Neutron refuses a MAC change on a bound port."""
        vif_id = port.id
        old = port.mac_address
        binding = current_binding(port)
        if port.bound:
            rollback.add(
                f"bind VIF port {vif_id} again",
                lambda: client.update_port(vif_id, binding, f"restore the binding of {vif_id}"),
            )
            client.update_port(vif_id, UNBIND, f"unbind VIF port {vif_id} to change its MAC")
        rollback.add(
            f"restore MAC {old} of VIF port {vif_id}",
            lambda: client.update_port(
                vif_id, {"mac_address": old}, f"restore MAC {old} of VIF port {vif_id}"
            ),
        )
        client.update_port(
            vif_id, {"mac_address": mac}, f"set MAC of VIF port {vif_id} to {mac or 'a new one'}"
        )
        if port.bound:
            rollback.add(
                f"unbind VIF port {vif_id}",
                lambda: client.update_port(vif_id, UNBIND, f"unbind VIF port {vif_id}"),
            )
            client.update_port(
                vif_id, binding, f"bind VIF port {vif_id} again after changing its MAC"
            )

    # -- attach / detach -----------------------------------------------------------------

    def vif_attach(self, task: Task, vif_info: VifInfo) -> VifAttachment | None:
        if not self.uses_neutron():
            return super().vif_attach(task, vif_info)
        vif_id = str(vif_info["id"])
        client = self.neutron()
        try:
            port = self._vif_port(task, vif_id)
            physnets = self._physnets(task, client, port)
        except NetworkError as exc:
            raise NetworkError(
                f"Attaching VIF {vif_id} to node {task.node.uuid} failed; nothing was changed: "
                f"{exc}",
                exc.code,
            ) from None
        choice = self.choose_target(task, vif_info, physnets)
        info = {k: v for k, v in vif_info.items() if k != "id"}
        info[ORIGINAL_MAC_KEY] = port.mac_address
        # The record comes first: its keys reserve the VIF and the target, so a racing
        # attach of the same VIF to another node fails before touching Neutron. A dynamic
        # portgroup is built in the same transaction, and forgetting the record removes it.
        with task.atomic():
            target = realize(task, choice)
            attachment = task.attachments.record(vif_id, target, info, pending=True)
        where = f"{selection.describe(target)} of node {task.node.uuid}"
        rollback = Rollback()
        rollback.add(f"forget the attachment of VIF {vif_id}", lambda: self._forget(task, vif_id))
        try:
            if target.address and not same_mac(target.address, port.mac_address):
                self.change_mac(client, port, target.address, rollback)
            if self.binds_on_attach(task):
                self.hot_plug(task, client, vif_id, target, rollback)
                self.settle()
            else:
                self.seed(task, client, port, rollback)
            # Inside: a confirmation that cannot be stored (the node's lease was taken
            # meanwhile, NodeLockLost) undoes Neutron's changes too. The record then stays
            # pending, for the operation that holds the node next to drop.
            task.attachments.confirm(vif_id)
        except Exception as exc:
            failures = rollback.run()
            if isinstance(exc, NetworkError):
                raise rolled_back(
                    f"Attaching VIF {vif_id} to {where} failed", exc, failures
                ) from None
            raise
        LOG.info("VIF %s attached to %s", vif_id, where)
        return attachment

    def _forget(self, task: Task, vif_id: str) -> None:
        task.attachments.remove(vif_id)

    def vif_detach(self, task: Task, vif_id: str) -> None:
        if not self.uses_neutron():
            super().vif_detach(task, vif_id)
            return
        target = task.find_target(vif_id)
        if target is None:
            raise VifNotAttached(
                f"Unable to detach VIF {vif_id} from node {task.node.uuid} because it is not "
                "attached to it."
            )
        attachment = next(a for a in task.attachments if a.vif_id == vif_id)
        original = (attachment.info or {}).get(ORIGINAL_MAC_KEY)
        client = self.neutron()
        try:
            port = client.find_port(vif_id, f"read VIF port {vif_id} to detach it")
            if port is None:
                LOG.warning(
                    "Neutron port %s of node %s no longer exists; forgetting the VIF",
                    vif_id,
                    task.node.uuid,
                )
            else:
                self._release(client, port, target, original)
        except NetworkError as exc:
            raise NetworkError(
                f"Detaching VIF {vif_id} from node {task.node.uuid} failed; it stays attached "
                f"and the detach can be retried: {exc}",
                exc.code,
            ) from None
        self._forget(task, vif_id)
        LOG.info("VIF %s detached from node %s", vif_id, task.node.uuid)

    def recover_interrupted_attach(self, task: Task, attachment: VifAttachment) -> None:
        if not self.uses_neutron():
            return
        target = task.find_target(attachment.vif_id)
        original = (attachment.info or {}).get(ORIGINAL_MAC_KEY)
        try:
            client = self.neutron()
            port = client.find_port(attachment.vif_id, "read an interrupted attach's VIF port")
            if port is not None and target is not None:
                self._release(client, port, target, original)
        except NetworkError as exc:
            LOG.warning(
                "Could not undo the interrupted attach of VIF %s in Neutron: %s",
                attachment.vif_id,
                exc,
            )

    def _release(
        self,
        client: NeutronClient,
        port: NeutronPort,
        target: Port | Portgroup,
        original: str | None,
    ) -> None:
        """Unbind a detached VIF's port and give it back the MAC it had before the attach."""
        if port.bound and self._unbind(client, port.id) is False:
            return
        if not target.address or not same_mac(port.mac_address, target.address):
            return  # the MAC is not the node's (any more): leave it as it is
        if original and same_mac(original, port.mac_address):
            return
        purpose = f"reset MAC of VIF port {port.id} to {original or 'a new one'}"
        client.update_port_if_exists(port.id, {"mac_address": original or None}, purpose)

    # -- MAC changes -----------------------------------------------------------------------

    def port_changed(self, task: Task, port: Port, changed: Collection[str]) -> None:
        super().port_changed(task, port, changed)
        if not self.uses_neutron() or not {"address", "extra"} & set(changed):
            return
        vif = task.vif_on(port)
        if vif is None:
            return
        what = f"port {port.uuid}"
        if "extra" in changed:
            self._follow_client_id(vif, port, what)
        if "address" in changed:
            self._follow_mac(task, vif, port.address, what)

    def portgroup_changed(self, task: Task, portgroup: Portgroup, changed: Collection[str]) -> None:
        if self.uses_neutron() and "address" in changed and portgroup.address:
            vif = task.vif_on(portgroup)
            if vif is not None:
                self._follow_mac(task, vif, portgroup.address, f"portgroup {portgroup.uuid}")

    def _follow_client_id(self, vif_id: str, port: Port, what: str) -> None:
        """Give the VIF's Neutron port the port's new DHCP client identifier (or none)."""
        client = self.neutron()
        wanted = client_id_fields(port).get("extra_dhcp_opts", [])
        value = wanted[0]["opt_value"] if wanted else None
        try:
            neutron_port = client.find_port(vif_id, f"read VIF port {vif_id} for its client-id")
            if neutron_port is None or _client_id_of(neutron_port) == value:
                return
            option = {"opt_name": DHCP_CLIENT_ID_OPTION, "opt_value": value}
            client.update_port(
                vif_id, {"extra_dhcp_opts": [option]}, f"set the client-id of VIF port {vif_id}"
            )
        except NetworkError as exc:
            raise NetworkError(
                f"Changing the client-id of {what} failed (VIF {vif_id} is attached to it, and "
                f"its Neutron port's DHCP option must follow); nothing was stored: {exc}",
                exc.code,
            ) from None

    def _follow_mac(self, task: Task, vif_id: str, mac: str, what: str) -> None:
        client = self.neutron()
        rollback = Rollback()
        try:
            port = client.find_port(vif_id, f"read VIF port {vif_id} to change its MAC")
            if port is None:
                LOG.warning("Neutron port %s of %s no longer exists", vif_id, what)
                return
            if not same_mac(port.mac_address, mac):
                self.change_mac(client, port, mac, rollback)
        except NetworkError as exc:
            raise rolled_back(
                f"Changing the MAC of {what} to {mac} failed (VIF {vif_id} is attached to it, "
                "and its Neutron port must follow); nothing was stored",
                exc,
                rollback.run(),
            ) from None
