"""The RPC API: the only way the REST layer reaches the conductor.

:class:`ConductorAPI` is the contract. :class:`LocalConductorAPI` runs the conductor in the
API's own process; a remote transport implements the same class (serialising the arguments and
the catalog's errors) and is swapped in by :func:`metalwire.api.app.create_app`'s ``rpcapi``
argument, without any change to the REST layer.

The VIF methods, the busiest, are coroutines, so that an implementation can answer them
without a thread of its own; the others are plain calls.

Every method raises the catalog's errors (:mod:`metalwire.errors`): NotFound when the node,
port or portgroup does not exist, Invalid for a request that cannot be satisfied, Conflict
(NodeLocked among them) for a clash with existing state, NetworkError when an external
network service fails.
"""

from __future__ import annotations

import abc
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from metalwire import metrics
from metalwire.conductor import (
    allocations,
    audit_repair,
    boot_device,
    boot_mode,
    callback_timeouts,
    chassis,
    dry_run,
    indicators,
    inspection,
    inventory,
    legacy_vifs,
    management,
    network_events,
    power,
    provisioning,
    raid,
    step_sets,
    stuck_states,
    timed_waits,
    vifs,
    vmedia,
    volumes,
)
from metalwire.conductor import audit as drift
from metalwire.conductor.audit import AuditReport
from metalwire.conductor.audit_repair import RepairReport
from metalwire.conductor.background import BackgroundOperations
from metalwire.conductor.dry_run import DryRunAttach
from metalwire.conductor.inspection import LookupKeys
from metalwire.conductor.locks import WouldWait
from metalwire.conductor.network_events import NetworkEvent
from metalwire.conductor.provision_states import ProvisionOptions
from metalwire.conductor.step_runner import Stopped
from metalwire.conductor.tasks import Conductor
from metalwire.conductor.volumes import Resource
from metalwire.context import RequestContext
from metalwire.db import outage
from metalwire.db.models import (
    Allocation,
    Chassis,
    DeployTemplate,
    Node,
    Port,
    Portgroup,
    Runbook,
    VolumeConnector,
    VolumeTarget,
)
from metalwire.errors import MetalwireError, NoFreeConductorWorker, TransactionConflict
from metalwire.networking.base import VifInfo

LOG = logging.getLogger(__name__)
T = TypeVar("T")


class ConductorAPI(abc.ABC):
    @abc.abstractmethod
    async def vif_attach(self, context: RequestContext, node_id: str, vif: VifInfo) -> None:
        """Attach ``vif["id"]`` to the node (by UUID or name).

        Raises NoFreePhysicalPort (400), VifAlreadyAttached (409), NodeLocked (409).
        """

    @abc.abstractmethod
    async def vif_detach(self, context: RequestContext, node_id: str, vif_id: str) -> None:
        """Detach a VIF from the node; raises VifNotAttached (400), NodeLocked (409)."""

    @abc.abstractmethod
    async def vif_list(self, context: RequestContext, node_id: str) -> list[dict[str, str]]:
        """The node's VIFs as ``[{"id": ...}]``, ports first, then portgroups."""

    @abc.abstractmethod
    def vif_refused(self, operation: str, node_id: str, error: MetalwireError) -> None:
        """Count a VIF request the API refused before making its call (authorization,
        headers, body) as the calls count theirs: each request once, by its outcome."""

    @abc.abstractmethod
    async def vif_attach_dry_run(
        self, context: RequestContext, node_id: str, vif: VifInfo
    ) -> DryRunAttach:
        """Where ``vif_attach`` would put the VIF and why no other target; writes nothing.

        Raises what the attach raises before choosing (NodeNotFound, VifAlreadyAttached,
        NetworkError, ...); no free target is not an error but part of the answer.
        """

    @abc.abstractmethod
    def do_provisioning_action(
        self,
        context: RequestContext,
        node_id: str,
        verb: str,
        options: ProvisionOptions | None = None,
    ) -> None:
        """Run a provision verb (manage, provide, active, deleted, rebuild, clean, rescue,
        unrescue, abort) with the request's configdrive or rescue password.

        Returns once the verb is accepted; on a node whose network interface calls an
        external service its steps then go on in the background (the node shows the verb's
        transient state until they are done)."""

    def wait_for_background(self, timeout: float) -> list[str]:
        """At shutdown: wait for the operations still running after their request was
        answered, ``timeout`` seconds at most (0: without end); those still running then."""
        return []

    @abc.abstractmethod
    def fail_expired_waits(self, context: RequestContext) -> list[str]:
        """Fail the nodes whose wait for an agent's call-back outlived its timeout; their
        UUIDs."""

    @abc.abstractmethod
    def resume_timed_waits(self, context: RequestContext, at_start: bool) -> list[str]:
        """Go on, in the background, with the timed ``wait`` steps no running conductor
        goes on with: a conductor's no longer alive, and ``at_start`` this one's, left by
        its earlier process; the UUIDs of their nodes. Each node ends its wait when it would
        have, and its steps go on."""

    @abc.abstractmethod
    def fail_stuck_nodes(self, context: RequestContext) -> list[str]:
        """Recover the nodes an interrupted operation left in a transient provision state
        (``deploying``, ...), with a power change under way or a lease run out, once their
        lock is free; the UUIDs of those failed or cleared."""

    @abc.abstractmethod
    def set_power_state(
        self, context: RequestContext, node_id: str, target: str, timeout: int | None = None
    ) -> None:
        """Power on, off, reboot, soft reboot or soft power off the node.

        Raises InvalidStateRequested (400) for an unknown target or a node being cleaned,
        InvalidParameterValue (400) when the power interface cannot, NodeLocked (409).
        """

    @abc.abstractmethod
    def validate_interfaces(self, context: RequestContext, node_id: str) -> dict[str, Any]:
        """Each hardware interface's and the network interface's validation result."""

    @abc.abstractmethod
    def get_console(self, context: RequestContext, node_id: str) -> dict[str, Any]:
        """The console's connection information; NodeConsoleNotEnabled (400) when off."""

    @abc.abstractmethod
    def set_console_mode(self, context: RequestContext, node_id: str, enabled: bool) -> None:
        """Start or stop the console; UnsupportedDriverExtension (400) without one."""

    @abc.abstractmethod
    def inject_nmi(self, context: RequestContext, node_id: str) -> None:
        """Inject an NMI; UnsupportedDriverExtension (400) where the management cannot."""

    @abc.abstractmethod
    def attach_virtual_media(
        self,
        context: RequestContext,
        node_id: str,
        device_type: str,
        image_url: str,
        download_source: str = "local",
    ) -> None:
        """Attach an image as a virtual device (``download_source``: how Ironic would serve
        it to the BMC, ``http``, ``local`` or ``swift``); a management interface without virtual
        media records its refusal in the node's history and ``last_error`` (as Ironic does
        after answering), UnsupportedDriverExtension (400) for ``no-management``,
        NodeLocked (409)."""

    @abc.abstractmethod
    def detach_virtual_media(
        self, context: RequestContext, node_id: str, device_types: list[str] | None
    ) -> None:
        """Detach these virtual devices (None: all); refusals as for the attach."""

    @abc.abstractmethod
    def get_virtual_media(self, context: RequestContext, node_id: str) -> list[dict[str, Any]]:
        """The node's virtual devices; UnsupportedDriverExtension (400) for a management
        interface without virtual media."""

    @abc.abstractmethod
    def set_boot_device(
        self, context: RequestContext, node_id: str, device: str, persistent: bool
    ) -> None:
        """Set the device the node boots from next (or always); InvalidParameterValue (400)
        for a device its management interface does not offer or when that interface cannot
        work, NodeLocked (409)."""

    @abc.abstractmethod
    def get_boot_device(self, context: RequestContext, node_id: str) -> dict[str, Any]:
        """``{"boot_device", "persistent"}``, null for both when unknown; errors as for
        the set."""

    @abc.abstractmethod
    def get_supported_boot_devices(self, context: RequestContext, node_id: str) -> list[str]:
        """The devices the node's management interface can boot it from."""

    @abc.abstractmethod
    def get_supported_indicators(
        self, context: RequestContext, node_id: str
    ) -> dict[str, dict[str, dict[str, Any]]]:
        """Component -> indicator -> ``{"readonly", "states"}``; UnsupportedDriverExtension
        (400) for a management interface without indicators."""

    @abc.abstractmethod
    def get_indicator_state(
        self, context: RequestContext, node_id: str, component: str, indicator: str
    ) -> str:
        """The indicator's state; InvalidParameterValue (400) for one the node lacks."""

    @abc.abstractmethod
    def set_indicator_state(
        self, context: RequestContext, node_id: str, component: str, indicator: str, state: str
    ) -> None:
        """Set an indicator; UnsupportedDriverExtension (400) where the interface cannot."""

    @abc.abstractmethod
    def change_boot_mode(self, context: RequestContext, node_id: str, mode: str) -> None:
        """Change the boot mode (``uefi`` or ``bios``); InvalidState (409) while the node is
        in a transient state, InvalidParameterValue (400) when its management interface
        cannot work; the interface's refusal is recorded in ``last_error`` and the history."""

    @abc.abstractmethod
    def change_secure_boot(self, context: RequestContext, node_id: str, enabled: bool) -> None:
        """Turn secure boot on or off; as :meth:`change_boot_mode`."""

    @abc.abstractmethod
    def set_target_raid_config(
        self, context: RequestContext, node_id: str, config: dict[str, Any]
    ) -> None:
        """Record the node's target RAID configuration (``{}`` clears it); InvalidParameterValue
        (400) for one its RAID interface refuses, RaidNotSupported (404) without one,
        NodeLocked (409)."""

    @abc.abstractmethod
    def create_volume(
        self, context: RequestContext, resource: Resource, values: dict[str, Any]
    ) -> VolumeConnector | VolumeTarget:
        """Create a volume connector or target; Duplicate-like Conflict (409)."""

    @abc.abstractmethod
    def update_volume(
        self, context: RequestContext, resource: Resource, uuid: str, changes: dict[str, Any]
    ) -> VolumeConnector | VolumeTarget:
        """Change one; InvalidStateRequested (400) unless its node is powered off."""

    @abc.abstractmethod
    def delete_volume(self, context: RequestContext, resource: Resource, uuid: str) -> None:
        """Delete one; InvalidStateRequested (400) unless its node is powered off."""

    @abc.abstractmethod
    def create_chassis(self, context: RequestContext, values: dict[str, Any]) -> Chassis:
        """Create a chassis; Conflict (409) for a UUID taken."""

    @abc.abstractmethod
    def update_chassis(
        self,
        context: RequestContext,
        uuid: str,
        changes: dict[str, Any],
        expected: dict[str, Any],
    ) -> Chassis:
        """Change a chassis's description or extra if it still holds the ``expected`` values
        (else StaleUpdate); ChassisNotFound (404)."""

    @abc.abstractmethod
    def delete_chassis(self, context: RequestContext, uuid: str) -> None:
        """Delete a chassis; ChassisNotEmpty (400) while a node is in it."""

    @abc.abstractmethod
    def create_deploy_template(
        self, context: RequestContext, values: dict[str, Any]
    ) -> DeployTemplate:
        """Create a deploy template; Conflict (409) for a name or UUID taken."""

    @abc.abstractmethod
    def update_deploy_template(
        self,
        context: RequestContext,
        uuid: str,
        changes: dict[str, Any],
        expected: dict[str, Any],
    ) -> DeployTemplate:
        """Change a deploy template if it still holds the ``expected`` values (else
        StaleUpdate); DeployTemplateNotFound (404), Conflict (409) for a name taken."""

    @abc.abstractmethod
    def delete_deploy_template(self, context: RequestContext, uuid: str) -> None:
        """Delete a deploy template; DeployTemplateNotFound (404)."""

    @abc.abstractmethod
    def create_runbook(self, context: RequestContext, values: dict[str, Any]) -> Runbook:
        """Create a runbook; Conflict (409) for a name or UUID taken."""

    @abc.abstractmethod
    def update_runbook(
        self,
        context: RequestContext,
        uuid: str,
        changes: dict[str, Any],
        expected: dict[str, Any],
    ) -> Runbook:
        """Change a runbook (its traits included) if it still holds the ``expected`` values
        (else StaleUpdate); RunbookNotFound (404), Conflict (409) for a name taken."""

    @abc.abstractmethod
    def delete_runbook(self, context: RequestContext, uuid: str) -> None:
        """Delete a runbook; RunbookNotFound (404)."""

    @abc.abstractmethod
    def create_allocation(
        self, context: RequestContext, values: dict[str, Any], node_ident: str | None = None
    ) -> Allocation:
        """Create an allocation and reserve a node for it at once: the answer is ``active``
        (its node reserved) or ``error`` (``last_error`` says why). ``node_ident`` backfills
        the allocation of a deployed node (AllocationFailed, 400, when it does not fit;
        InvalidState, 409, for a node with another instance). Conflict (409) for a UUID or
        name taken."""

    @abc.abstractmethod
    def update_allocation(
        self,
        context: RequestContext,
        uuid: str,
        changes: dict[str, Any],
        expected: dict[str, Any],
    ) -> Allocation:
        """Change an allocation's name or extra if it still holds the ``expected`` values
        (else StaleUpdate); AllocationNotFound (404), Conflict (409) for a name taken."""

    @abc.abstractmethod
    def delete_allocation(self, context: RequestContext, ident: str) -> None:
        """Delete an allocation and release its node; InvalidState (409) while the node is
        active or in transition outside maintenance, AllocationNotFound (404)."""

    @abc.abstractmethod
    def create_node(self, context: RequestContext, values: dict[str, Any]) -> Node: ...

    @abc.abstractmethod
    def update_node(
        self,
        context: RequestContext,
        node_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
        patched: bool = False,
    ) -> Node:
        """Apply ``changes``; with ``expected``, raise StaleUpdate (409) if any of those
        fields no longer holds the given value (compare-and-swap under the node lock).
        ``patched``: the changes are a node PATCH's, which a node in the middle of a provision
        state transition refuses (409), unlike its maintenance and traits."""

    @abc.abstractmethod
    def delete_node(self, context: RequestContext, node_id: str) -> None: ...

    @abc.abstractmethod
    def create_port(self, context: RequestContext, values: dict[str, Any]) -> Port: ...

    @abc.abstractmethod
    def update_port(
        self,
        context: RequestContext,
        port_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
    ) -> Port:
        """Apply ``changes``; with ``expected``, raise StaleUpdate (409) if any of those
        fields no longer holds the given value (compare-and-swap under the node lock)."""

    @abc.abstractmethod
    def delete_port(self, context: RequestContext, port_id: str) -> None: ...

    @abc.abstractmethod
    def create_portgroup(self, context: RequestContext, values: dict[str, Any]) -> Portgroup: ...

    @abc.abstractmethod
    def update_portgroup(
        self,
        context: RequestContext,
        portgroup_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
    ) -> Portgroup:
        """Apply ``changes``; with ``expected``, raise StaleUpdate (409) if any of those
        fields no longer holds the given value (compare-and-swap under the node lock)."""

    @abc.abstractmethod
    def delete_portgroup(self, context: RequestContext, portgroup_id: str) -> None: ...

    @abc.abstractmethod
    def audit_unavailable(self) -> str | None:
        """Why no enabled network interface can take part in the drift audit (the message
        :meth:`audit` would refuse with), or None if one can."""

    @abc.abstractmethod
    def audit(self, context: RequestContext, nodes: list[str]) -> AuditReport:
        """Ask each node's network interface where its VIF attachments and the outside world
        disagree (no lock, nothing written).

        Raises Invalid (400) when no enabled interface can be audited (for ``flat`` and
        ``neutron``: no Neutron is configured), NetworkError when the service fails.
        """

    @abc.abstractmethod
    def audit_repair(self, context: RequestContext, nodes: list[str]) -> RepairReport:
        """Audit the nodes, fix the safe findings under each node's lock (each fix in its
        history) and audit them again; raises as :meth:`audit`."""

    @abc.abstractmethod
    def continue_inspection(
        self,
        context: RequestContext,
        keys: LookupKeys,
        inventory: dict[str, Any],
        plugin_data: dict[str, Any],
    ) -> Node:
        """Take an inspection ramdisk's report (``POST /v1/continue_inspection``): find its
        node by ``keys`` (NotFound, naming no reason, when no node in ``inspect wait``
        matches), then process it, which ends the node's inspection (``manageable``, or
        ``inspect failed`` when processing fails). Returns the node as it was found."""

    @abc.abstractmethod
    def network_events(self, context: RequestContext, events: list[NetworkEvent]) -> None:
        """Take the network service's events about its ports (``POST /v1/events``): logged,
        never acted on; takes no node lock."""


def _outcome(error: Exception) -> str:
    """A failed VIF request's label: the catalog's class, so the label's values stay few."""
    return type(error).__name__ if isinstance(error, MetalwireError) else "unexpected"


def _run_all(steps: list[Callable[[], None]]) -> None:
    for step in steps:
        step()


class LocalConductorAPI(ConductorAPI):
    """Runs each call in this process: plain calls on the calling thread, VIF calls as below.

    On SQLite and PostgreSQL, a VIF call on a node whose interface calls no external service
    runs at once on the event loop when nothing would make it wait (the node free in this
    process, no other process's lease on it; on SQLite the database free, on PostgreSQL the
    node's row free: it is locked with NOWAIT): two round trips to PostgreSQL, or a few
    statements on a local file, cost less than handing the call to a thread and back
    (docs/scaling.md). Anything that would wait, and every call on MariaDB, goes to a worker
    thread instead: at most
    ``[conductor] db_workers`` at once for nodes known to call no external service (threads
    of one process beyond a few only contend for the interpreter, and throughput falls),
    the shared pool of worker threads for the others, which wait on the network.
    """

    def __init__(self, conductor: Conductor) -> None:
        self.conductor = conductor
        self._inline = conductor.db.kind in ("sqlite", "postgresql") and (
            conductor.config.conductor.event_loop_vif_calls
        )
        self._db_workers = conductor.config.conductor.db_workers
        self._db_limiter: anyio.CapacityLimiter | None = None
        self._metrics = conductor.config.metrics.enabled
        self._background = BackgroundOperations(conductor.config.conductor.workers_pool_size)

    async def _run(
        self, operation: Callable[..., T], context: RequestContext, node_id: str, *args: Any
    ) -> T:
        external = self.conductor.remembered_external(node_id)
        if self._inline and not external:
            # Runs here unless it would wait; then WouldWait, nothing done, and a thread below.
            deferred: list[Callable[[], None]] = []
            committed_before = outage.commits()
            try:
                with self.conductor.without_waiting() as deferred:
                    return operation(self.conductor, context, node_id, *args)
            except WouldWait:
                pass  # nothing was done: the worker thread below runs it and waits its turn
            except TransactionConflict:
                if outage.commits() != committed_before:
                    raise  # something of it is stored: the client decides
                # rolled back whole: run again below, as outage.retrying runs a conflict
            finally:
                if deferred:  # a failure to record: a worker thread waits for the database
                    await anyio.to_thread.run_sync(_run_all, deferred)
        limiter = None
        if external is False:
            if self._db_limiter is None:  # made on the event loop that uses it
                self._db_limiter = anyio.CapacityLimiter(self._db_workers)
            limiter = self._db_limiter
        call = functools.partial(operation, self.conductor, context, node_id, *args)
        return await anyio.to_thread.run_sync(outage.retrying, call, limiter=limiter)

    def _retried(self, operation: Callable[..., T], *args: Any) -> T:
        """``operation(conductor, *args)``, run again after a database conflict that rolled
        back all it did (:func:`metalwire.db.outage.retrying`)."""
        return outage.retrying(functools.partial(operation, self.conductor, *args))

    async def _counted(self, operation: str, node_id: str, call: Awaitable[T]) -> T:
        """``call``'s result, counted in the VIF operation metrics by its outcome."""
        if not self._metrics:
            return await call
        try:
            result = await call
        except Exception as exc:
            self._count(operation, node_id, _outcome(exc))
            raise
        self._count(operation, node_id, "success")
        return result

    def vif_refused(self, operation: str, node_id: str, error: MetalwireError) -> None:
        if self._metrics:
            self._count(operation, node_id, _outcome(error))

    def _count(self, operation: str, node_id: str, result: str) -> None:
        # The interface as remembered by the node lookups: no query on the busy path.
        ref = self.conductor.directory.peek(node_id)
        interface = ref.network_interface if ref is not None else "unknown"
        metrics.vif_operation(operation, interface, result).inc()

    async def vif_attach(self, context: RequestContext, node_id: str, vif: VifInfo) -> None:
        await self._counted("attach", node_id, self._run(vifs.vif_attach, context, node_id, vif))

    async def vif_detach(self, context: RequestContext, node_id: str, vif_id: str) -> None:
        call = self._run(vifs.vif_detach, context, node_id, vif_id)
        await self._counted("detach", node_id, call)

    async def vif_list(self, context: RequestContext, node_id: str) -> list[dict[str, str]]:
        return await self._counted("list", node_id, self._run(vifs.vif_list, context, node_id))

    async def vif_attach_dry_run(
        self, context: RequestContext, node_id: str, vif: VifInfo
    ) -> DryRunAttach:
        # Reads only, but may call Neutron: a worker thread, never the event loop.
        call = functools.partial(dry_run.vif_attach_dry_run, self.conductor, context, node_id, vif)
        return await self._counted("attach_dry_run", node_id, anyio.to_thread.run_sync(call))

    def do_provisioning_action(
        self,
        context: RequestContext,
        node_id: str,
        verb: str,
        options: ProvisionOptions | None = None,
    ) -> None:
        def operation(accepted: Callable[[], None]) -> None:
            action = provisioning.do_provisioning_action
            self._retried(action, context, node_id, verb, options, accepted, self._background.pause)

        self._background.start(f"provision {verb} of node {node_id}", operation)

    def wait_for_background(self, timeout: float) -> list[str]:
        return self._background.wait(timeout)

    def fail_expired_waits(self, context: RequestContext) -> list[str]:
        return callback_timeouts.fail_expired_waits(self.conductor, context)

    def resume_timed_waits(self, context: RequestContext, at_start: bool) -> list[str]:
        resumed = []
        running = set(self._background.running())
        for node_id, waited in timed_waits.interrupted(self.conductor, at_start):
            name = f"timed wait of node {node_id}"
            if name in running:  # taken over at an earlier check, still waiting
                continue

            def operation(
                accepted: Callable[[], None], node_id: str = node_id, waited: Stopped = waited
            ) -> None:
                go_on = timed_waits.wait_and_go_on
                self._retried(go_on, context, node_id, waited, accepted, self._background.pause)

            try:
                self._background.start(name, operation)
            except NoFreeConductorWorker as exc:  # the next check tries again
                LOG.warning("Node %s: its wait step does not go on now: %s", node_id, exc)
                break
            resumed.append(node_id)
        return resumed

    def fail_stuck_nodes(self, context: RequestContext) -> list[str]:
        return stuck_states.fail_stuck_nodes(self.conductor, context)

    def set_power_state(
        self, context: RequestContext, node_id: str, target: str, timeout: int | None = None
    ) -> None:
        self._retried(power.set_power_state, context, node_id, target, timeout)

    def validate_interfaces(self, context: RequestContext, node_id: str) -> dict[str, Any]:
        return self._retried(management.validate, context, node_id)

    def get_console(self, context: RequestContext, node_id: str) -> dict[str, Any]:
        return self._retried(management.get_console, context, node_id)

    def set_console_mode(self, context: RequestContext, node_id: str, enabled: bool) -> None:
        self._retried(management.set_console_mode, context, node_id, enabled)

    def inject_nmi(self, context: RequestContext, node_id: str) -> None:
        self._retried(management.inject_nmi, context, node_id)

    def attach_virtual_media(
        self,
        context: RequestContext,
        node_id: str,
        device_type: str,
        image_url: str,
        download_source: str = "local",
    ) -> None:
        self._retried(vmedia.attach, context, node_id, device_type, image_url, download_source)

    def detach_virtual_media(
        self, context: RequestContext, node_id: str, device_types: list[str] | None
    ) -> None:
        self._retried(vmedia.detach, context, node_id, device_types)

    def get_virtual_media(self, context: RequestContext, node_id: str) -> list[dict[str, Any]]:
        return self._retried(vmedia.listed, context, node_id)

    def set_boot_device(
        self, context: RequestContext, node_id: str, device: str, persistent: bool
    ) -> None:
        self._retried(boot_device.set_boot_device, context, node_id, device, persistent)

    def get_boot_device(self, context: RequestContext, node_id: str) -> dict[str, Any]:
        return self._retried(boot_device.get_boot_device, context, node_id)

    def get_supported_boot_devices(self, context: RequestContext, node_id: str) -> list[str]:
        return self._retried(boot_device.supported_boot_devices, context, node_id)

    def get_supported_indicators(
        self, context: RequestContext, node_id: str
    ) -> dict[str, dict[str, dict[str, Any]]]:
        return self._retried(indicators.supported_indicators, context, node_id)

    def get_indicator_state(
        self, context: RequestContext, node_id: str, component: str, indicator: str
    ) -> str:
        return self._retried(indicators.indicator_state, context, node_id, component, indicator)

    def set_indicator_state(
        self, context: RequestContext, node_id: str, component: str, indicator: str, state: str
    ) -> None:
        operation = indicators.set_indicator_state
        self._retried(operation, context, node_id, component, indicator, state)

    def change_boot_mode(self, context: RequestContext, node_id: str, mode: str) -> None:
        self._retried(boot_mode.change_boot_mode, context, node_id, mode)

    def change_secure_boot(self, context: RequestContext, node_id: str, enabled: bool) -> None:
        self._retried(boot_mode.change_secure_boot, context, node_id, enabled)

    def set_target_raid_config(
        self, context: RequestContext, node_id: str, config: dict[str, Any]
    ) -> None:
        self._retried(raid.set_target_raid_config, context, node_id, config)

    def create_volume(
        self, context: RequestContext, resource: Resource, values: dict[str, Any]
    ) -> VolumeConnector | VolumeTarget:
        return self._retried(volumes.create, context, resource, values)

    def update_volume(
        self, context: RequestContext, resource: Resource, uuid: str, changes: dict[str, Any]
    ) -> VolumeConnector | VolumeTarget:
        return self._retried(volumes.update, context, resource, uuid, changes)

    def delete_volume(self, context: RequestContext, resource: Resource, uuid: str) -> None:
        self._retried(volumes.delete, context, resource, uuid)

    def create_chassis(self, context: RequestContext, values: dict[str, Any]) -> Chassis:
        return self._retried(chassis.create, values)

    def update_chassis(
        self,
        context: RequestContext,
        uuid: str,
        changes: dict[str, Any],
        expected: dict[str, Any],
    ) -> Chassis:
        return self._retried(chassis.update, uuid, changes, expected)

    def delete_chassis(self, context: RequestContext, uuid: str) -> None:
        self._retried(chassis.delete, uuid)

    def create_deploy_template(
        self, context: RequestContext, values: dict[str, Any]
    ) -> DeployTemplate:
        created: DeployTemplate = self._retried(
            step_sets.create, step_sets.deploy_templates, values
        )
        return created

    def update_deploy_template(
        self,
        context: RequestContext,
        uuid: str,
        changes: dict[str, Any],
        expected: dict[str, Any],
    ) -> DeployTemplate:
        updated: DeployTemplate = self._retried(
            step_sets.update, step_sets.deploy_templates, uuid, changes, expected
        )
        return updated

    def delete_deploy_template(self, context: RequestContext, uuid: str) -> None:
        self._retried(step_sets.delete, step_sets.deploy_templates, uuid)

    def create_runbook(self, context: RequestContext, values: dict[str, Any]) -> Runbook:
        created: Runbook = self._retried(step_sets.create, step_sets.runbooks, values)
        return created

    def update_runbook(
        self,
        context: RequestContext,
        uuid: str,
        changes: dict[str, Any],
        expected: dict[str, Any],
    ) -> Runbook:
        updated: Runbook = self._retried(
            step_sets.update, step_sets.runbooks, uuid, changes, expected
        )
        return updated

    def delete_runbook(self, context: RequestContext, uuid: str) -> None:
        self._retried(step_sets.delete, step_sets.runbooks, uuid)

    def create_allocation(
        self, context: RequestContext, values: dict[str, Any], node_ident: str | None = None
    ) -> Allocation:
        return self._retried(allocations.create, context, values, node_ident)

    def update_allocation(
        self,
        context: RequestContext,
        uuid: str,
        changes: dict[str, Any],
        expected: dict[str, Any],
    ) -> Allocation:
        return self._retried(allocations.update, uuid, changes, expected)

    def delete_allocation(self, context: RequestContext, ident: str) -> None:
        self._retried(allocations.delete, context, ident)

    def create_node(self, context: RequestContext, values: dict[str, Any]) -> Node:
        return self._retried(inventory.create_node, values)

    def update_node(
        self,
        context: RequestContext,
        node_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
        patched: bool = False,
    ) -> Node:
        update = inventory.update_node
        return self._retried(update, context, node_id, changes, expected, patched)

    def delete_node(self, context: RequestContext, node_id: str) -> None:
        self._retried(inventory.delete_node, context, node_id)

    def _legacy_vifs_counted(self, operation: Callable[..., T], *args: Any) -> T:
        """``_retried(operation, *args)``, a create or update of a port or portgroup, with
        the VIF changes its extra/vif_port_id asked for counted as the VIF calls are."""
        if not self._metrics:
            return self._retried(operation, *args)
        with legacy_vifs.noting_vif_changes() as noted:
            try:
                result = self._retried(operation, *args)
            except Exception as exc:
                self._count_legacy(noted, _outcome(exc))
                raise
            self._count_legacy(noted, "success")
            return result

    @staticmethod
    def _count_legacy(noted: legacy_vifs.LegacyVifChanges, result: str) -> None:
        for vif_operation in noted.operations:
            metrics.vif_operation(vif_operation, noted.network_interface, result).inc()

    def create_port(self, context: RequestContext, values: dict[str, Any]) -> Port:
        return self._legacy_vifs_counted(inventory.create_port, context, values)

    def update_port(
        self,
        context: RequestContext,
        port_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
    ) -> Port:
        return self._legacy_vifs_counted(inventory.update_port, context, port_id, changes, expected)

    def delete_port(self, context: RequestContext, port_id: str) -> None:
        self._retried(inventory.delete_port, context, port_id)

    def create_portgroup(self, context: RequestContext, values: dict[str, Any]) -> Portgroup:
        return self._legacy_vifs_counted(inventory.create_portgroup, context, values)

    def update_portgroup(
        self,
        context: RequestContext,
        portgroup_id: str,
        changes: dict[str, Any],
        expected: dict[str, Any] | None = None,
    ) -> Portgroup:
        return self._legacy_vifs_counted(
            inventory.update_portgroup, context, portgroup_id, changes, expected
        )

    def delete_portgroup(self, context: RequestContext, portgroup_id: str) -> None:
        self._retried(inventory.delete_portgroup, context, portgroup_id)

    def audit_unavailable(self) -> str | None:
        return drift.audit_unavailable(self.conductor)

    def audit(self, context: RequestContext, nodes: list[str]) -> AuditReport:
        return drift.audit(self.conductor, context, nodes)

    def audit_repair(self, context: RequestContext, nodes: list[str]) -> RepairReport:
        return self._retried(audit_repair.repair, context, nodes)

    def continue_inspection(
        self,
        context: RequestContext,
        keys: LookupKeys,
        inventory: dict[str, Any],
        plugin_data: dict[str, Any],
    ) -> Node:
        node = inspection.lookup(self.conductor, keys)
        self._retried(inspection.continue_inspection, context, node.uuid, inventory, plugin_data)
        return node

    def network_events(self, context: RequestContext, events: list[NetworkEvent]) -> None:
        network_events.receive(self.conductor, context, events)
