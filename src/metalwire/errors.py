"""The one exception catalog of metalwire.

Every error the service can report is a subclass of :class:`MetalwireError`. Each class knows
the HTTP status it maps to, so the API layer translates them in one place and no lower layer
ever deals with HTTP.

    MetalwireError (500)
    +-- Invalid (400)                  malformed or semantically wrong input
    |   +-- InvalidParameterValue      a named field has a bad value
    |   +-- MissingParameterValue      a required field is absent
    |   +-- PatchError                 a JSON patch cannot be applied
    |   +-- BadRouteParameter          the path names a resource by neither UUID nor name
    |   +-- NoFreePhysicalPort         no port or portgroup can take the VIF
    |   +-- VifNotAttached             detach of a VIF the node does not have
    |   +-- InvalidStateRequested      provision verb not allowed from this state
    |   +-- NetworkInterfaceInvalid    the node's network interface refuses to work
    |   +-- TbnRulesInvalid            a trait-based networking file or filter is malformed
    |   +-- NoTraitMatches             no trait-based networking rule places the VIF
    |   +-- UnsupportedDriverExtension the node's hardware interface cannot do this
    |   +-- NodeConsoleNotEnabled      console information asked while it is off
    |   +-- InstanceDeployFailure      a deploy or rebuild its deploy interface refuses
    |   +-- InstanceRescueFailure      a rescue its power, rescue or boot interface refuses
    |   +-- InstanceUnrescueFailure    an unrescue its power interface refuses
    |   +-- AllocationFailed           a backfilled allocation does not fit its node
    +-- NotAuthorized (401)            no credentials, or credentials that do not verify
    +-- Forbidden (403)
    |   +-- NodeProtected              the node is protected from this action
    |   +-- PolicyForbidden            the policy does not allow this user the action
    +-- NotFound (404)
    |   +-- NodeNotFound, PortNotFound, PortgroupNotFound
    |   +-- VolumeConnectorNotFound, VolumeTargetNotFound
    |   +-- ConductorNotFound          no conductor registered under this host name
    |   +-- AllocationNotFound         no allocation has this UUID or name
    |   +-- RouteNotFound              no resource at this path for the request's version
    +-- MethodNotAllowed (405)         the path exists, the method does not
    +-- MethodNotServed (405)          a resource newer than the version, any method but GET
    +-- MethodNotYetAllowed (405)      a method its handler takes only from a later version
    +-- NotAcceptable (406)            field too new for the request's version
    |   +-- VersionNotAcceptable       microversion malformed or out of range
    +-- RequestTooLarge (413)          the request body is larger than accepted
    +-- RequestTimeout (408)           the request body did not arrive within [api] body_timeout
    +-- HeadersTooLarge (431)          a header line, all of them or their count is over the limit
    +-- UnsupportedMediaType (415)     a metalwire write sent without a JSON content type

Errors marked ``routing`` are the router's answers (no such path, method or version), which
Ironic's clients receive in a different error body from the errors of objects.
    +-- Conflict (409)
    |   +-- Duplicate                  unique name or MAC address already used
    |   +-- NodeLocked                 the node lock was not free within the wait budget
    |   +-- NodeLockLost               the operation's lease ran out and another took the node
    |   +-- VifAlreadyAttached         the VIF is on this node or another one
    |   +-- ResourceInUse              deleting something that is still in use
    |   +-- InvalidState               the node's state does not allow the change
    |   +-- StaleUpdate                the object changed since the update was prepared
    +-- NetworkError (503 or 502)      an external network service failed
    +-- DatabaseFailure (503)          an expected failure of the database itself
    |   +-- DatabaseBusy               SQLite: no write turn (another process's lock) in time
    |   +-- DatabaseUnavailable        it cannot be reached or is failing over
    |   |   +-- CommitOutcomeUnknown   a COMMIT failed that may have been made (Galera 1180)
    |   +-- TransactionConflict        deadlocks or serialization failures outlasted the retries
    +-- ConnectionLimitReached (503)   [api] max_connections are open; retry later
    +-- NoFreeConductorWorker (503)    [conductor] workers_pool_size operations are under way
    +-- HardwareInspectionFailure (500) an inspection could not start (its last_error)
    +-- InventoryInconsistent (500)    stored rows break a rule a schema upgrade enforces
        +-- PortgroupPhysnetInconsistent  a portgroup's members are on different physical networks
"""

from __future__ import annotations

from collections.abc import Sequence


class MetalwireError(Exception):
    """Base of every metalwire error; ``code`` is the HTTP status it maps to."""

    code: int = 500
    safe: bool = False  # a safe message may be shown to clients even for a 5xx
    routing: bool = False  # the router's answer rather than a handler's

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class Invalid(MetalwireError):
    """Malformed or semantically wrong input."""

    code = 400
    safe = True


class InvalidParameterValue(Invalid):
    """A named field has a bad value."""


class MissingParameterValue(Invalid):
    """A required field is absent."""


class PatchError(Invalid):
    """A JSON patch cannot be applied."""


class NoFreePhysicalPort(Invalid):
    """No port or portgroup of the node can take the VIF."""


class VifNotAttached(Invalid):
    """Detach of a VIF the node does not have."""


class AllocationFailed(Invalid):
    """An allocation could not be given a node (Ironic's words); the allocation is kept in
    the ``error`` state with this message as its ``last_error``."""

    def __init__(self, uuid: str, error: str) -> None:
        super().__init__(f"Failed to process allocation {uuid}: {error}.")


class UnknownChassis(Invalid):
    """A node's ``chassis_uuid`` names no chassis: a bad value of the node (400), in
    Ironic's words for a chassis that does not exist."""

    def __init__(self, chassis: str) -> None:
        super().__init__(f"Chassis {chassis} could not be found.")


class ChassisNotEmpty(Invalid):
    """A chassis nodes are still in cannot be deleted (Ironic's 400)."""

    def __init__(self, chassis: str) -> None:
        super().__init__(
            f"Cannot complete the requested action because chassis {chassis} contains nodes."
        )


class InvalidStateRequested(Invalid):
    """A provision verb that the node's state does not allow."""


class NetworkInterfaceInvalid(Invalid):
    """The node's network interface cannot work for it."""


class TbnRulesInvalid(Invalid):
    """A trait-based networking rules file or filter expression is malformed.

    ``problems`` lists each mistake, each naming its line (and column in a filter).
    """

    def __init__(self, message: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems) or (message,)


class NoTraitMatches(Invalid):
    """No trait-based networking rule places the VIF on the node (names each trait tried)."""


class UnsupportedDriverExtension(Invalid):
    """The node's hardware interface does not implement the operation."""

    def __init__(self, driver: str, extension: str) -> None:
        super().__init__(
            f"Driver {driver} does not support {extension} (disabled or not implemented)."
        )


class NodeConsoleNotEnabled(Invalid):
    def __init__(self, node: str) -> None:
        super().__init__(f"Console access is not enabled on node {node}")


class InstanceDeployFailure(Invalid):
    """A deploy or rebuild that the node's deploy interface refuses (``instance_info``)."""


class InstanceRescueFailure(Invalid):
    """A rescue that the node's power, rescue or boot interface refuses. (Ironic answers
    500 for it, although the request, not the service, is at fault.)"""


class InstanceUnrescueFailure(Invalid):
    """An unrescue that the node's power interface refuses (400, as a refused rescue)."""


class HardwareInspectionFailure(MetalwireError):
    """An inspection that could not start once accepted; its message, Ironic's, is the
    node's ``last_error``."""

    safe = True

    def __init__(self, reason: str) -> None:
        super().__init__(f"Failed to inspect hardware. Reason: {reason}")


class NotAuthorized(MetalwireError):
    """The request carries no credentials, or credentials that do not verify."""

    code = 401
    safe = True


class Forbidden(MetalwireError):
    """The action is not allowed on this object."""

    code = 403
    safe = True


class NodeProtected(Forbidden):
    """The node is protected from this action."""


class PolicyForbidden(Forbidden):
    """The policy does not allow this user the action (names the rule)."""


class NotFound(MetalwireError):
    """The object does not exist."""

    code = 404
    safe = True


# Said of an object looked up by its database id, which no message names.
_GONE = "could not be found: it was deleted while the request ran."


class ChassisNotFound(NotFound):
    """No chassis has this UUID."""

    def __init__(self, chassis: str) -> None:
        super().__init__(f"Chassis {chassis} could not be found.")


class DeployTemplateNotFound(NotFound):
    """No deploy template has this UUID or name."""

    def __init__(self, template: str) -> None:
        super().__init__(f"Deploy template {template} could not be found.")


class RunbookNotFound(NotFound):
    """No runbook has this UUID or name."""

    def __init__(self, runbook: str) -> None:
        super().__init__(f"Runbook {runbook} could not be found.")


class DriverNotFound(NotFound):
    """No enabled hardware type has this name."""

    def __init__(self, driver: str) -> None:
        super().__init__(f"Could not find the following driver(s) or hardware type(s): {driver}.")


class ConductorNotFound(NotFound):
    """No conductor is registered under this host name (Ironic's words)."""

    def __init__(self, hostname: str) -> None:
        super().__init__(f"Conductor {hostname} could not be found.")


class AllocationNotFound(NotFound):
    """No allocation has this UUID or name (Ironic's words)."""

    def __init__(self, allocation: str, message: str | None = None) -> None:
        super().__init__(message or f"Allocation {allocation} could not be found.")


class RaidNotSupported(NotFound):
    """The node's RAID interface takes no RAID configuration: a 404, as Ironic answers for
    RAID, an interface a hardware type may lack."""

    def __init__(self, driver: str) -> None:
        super().__init__(f"Driver {driver} does not support raid (disabled or not implemented).")


class NodeNotFound(NotFound):
    def __init__(self, node: str | int) -> None:
        """``node`` as the request named it, or the database id it was looked up by."""
        known = isinstance(node, str)
        super().__init__(f"Node {node} could not be found." if known else f"The node {_GONE}")


class NodeInventoryNotFound(NotFound):
    """No inspection stored an inventory for the node."""

    def __init__(self, node: str) -> None:
        super().__init__(f"Node inventory record for node {node} could not be found.")


class PortNotFound(NotFound):
    def __init__(self, port: str) -> None:
        super().__init__(f"Port {port} could not be found.")


class PortgroupNotFound(NotFound):
    def __init__(self, portgroup: str | int) -> None:
        """``portgroup`` as the request named it, or the database id it was looked up by."""
        known = isinstance(portgroup, str)
        super().__init__(
            f"Portgroup {portgroup} could not be found." if known else f"The portgroup {_GONE}"
        )


class VolumeConnectorNotFound(NotFound):
    def __init__(self, connector: str) -> None:
        super().__init__(f"Volume connector {connector} could not be found.")


class VolumeTargetNotFound(NotFound):
    def __init__(self, target: str) -> None:
        super().__init__(f"Volume target {target} could not be found.")


class RouteNotFound(NotFound):
    """No resource answers at this path, or not at the request's microversion."""

    routing = True


class BadRouteParameter(Invalid):
    """The path names a resource by something that cannot name one, refused as Ironic's
    router refuses it, before any handler runs."""

    routing = True


class MethodNotServed(MetalwireError):
    """A resource newer than the request's version refuses a method other than GET (405),
    as Ironic's router refuses it there, naming the resource; no method is allowed."""

    code = 405
    safe = True
    routing = True


class MethodNotYetAllowed(MetalwireError):
    """A handler's refusal of a method its resource takes only from a later microversion
    (405 in an object's error body, as Ironic's allocation handlers answer)."""

    code = 405
    safe = True


class MethodNotAllowed(MetalwireError):
    """The path exists but does not take this method; ``allowed`` lists the methods it takes."""

    code = 405
    safe = True
    routing = True

    def __init__(self, method: str, allowed: Sequence[str], why: str | None = None) -> None:
        super().__init__(
            why
            or f"The method {method} is not allowed for this resource; it allows "
            f"{', '.join(allowed)}."
        )
        self.allowed = tuple(allowed)


class NotAcceptable(MetalwireError):
    """The field or action is too new for the request's microversion."""

    code = 406
    safe = True


class VersionNotAcceptable(NotAcceptable):
    """The requested microversion is malformed or not served.

    ``names_range`` is true when the version was well formed but outside the served range: the
    answer then carries the range in its headers, which clients negotiate from.
    """

    routing = True

    def __init__(self, message: str, names_range: bool) -> None:
        super().__init__(message)
        self.names_range = names_range


class RequestTooLarge(MetalwireError):
    """The request body is larger than the endpoint accepts."""

    code = 413
    safe = True


class RequestTimeout(MetalwireError):
    """The request body was not received within its deadline."""

    code = 408
    safe = True


class HeadersTooLarge(MetalwireError):
    """The request's headers are longer or more numerous than the server accepts."""

    code = 431
    safe = True


class UnsupportedMediaType(MetalwireError):
    """The request's content type is not one the endpoint accepts."""

    code = 415
    safe = True


class Conflict(MetalwireError):
    """The request clashes with the current state."""

    code = 409
    safe = True


class Duplicate(Conflict):
    """A unique name or MAC address is already used."""


class NodeLocked(Conflict):
    def __init__(self, node: str, holder: str, waited: float) -> None:
        super().__init__(
            f"Node {node} is locked by host {holder}, please retry after the current "
            f"operation is completed (waited {waited:.1f} s)."
        )


class NodeLockLost(Conflict):
    """An operation holding its node by a lease found the lease gone (it ran out while the
    process could not renew it, and another operation took the node): it stops writing."""

    def __init__(self, node: str, holder: str | None) -> None:
        now = f"host {holder} holds it now" if holder else "no one holds it now"
        super().__init__(
            f"Node {node} was taken from this operation: its lock ran out before it could be "
            f"renewed ({now}); nothing more of the operation was stored."
        )


class VifAlreadyAttached(Conflict):
    """The VIF is attached to this node or another one."""


class ResourceInUse(Conflict):
    """The object is still in use."""


class InvalidState(Conflict):
    """The node's state does not allow the change."""


class StaleUpdate(Conflict):
    """An update prepared from values that another request changed meanwhile."""


class NetworkError(MetalwireError):
    """An external network service (Neutron) failed or could not be reached."""

    code = 503
    safe = True

    def __init__(self, message: str, code: int = 503) -> None:
        super().__init__(message)
        self.code = code


class DatabaseFailure(MetalwireError):
    """An expected failure of the database itself, answered 503 with ``Retry-After`` and
    logged as one rate-limited warning where it is detected (:mod:`metalwire.db.outage`);
    it is not recorded in node history, which is in that database."""

    code = 503
    safe = True
    retry_after = 1  # seconds


class DatabaseUnavailable(DatabaseFailure):
    """The database server cannot be reached, dropped the connection or is not ready (a
    restart, a failover, a Galera node rejoining)."""

    retry_after = 2  # a failover or restart usually takes a few seconds

    def __init__(self, message: str, not_ready: bool = False) -> None:
        super().__init__(message)
        # The server answered, but is between states (Galera's 1047 while the cluster's
        # membership changes, PostgreSQL's 57P03 while it starts): usually gone in a second.
        self.not_ready = not_ready


class CommitOutcomeUnknown(DatabaseUnavailable):
    """The database failed a COMMIT that it may have made all the same: Galera's 1180, the
    node out of the primary component while it replicated the transaction (cut off, or for
    a moment as the cluster evicts a crashed member). Not run again; the client reads what
    it wrote before writing again."""

    what = (
        "The database could not confirm the commit of this change (its cluster's membership "
        "changed while the commit was being replicated): it may have been stored. Read "
        "before writing again"
    )

    def __init__(self) -> None:
        super().__init__(f"{self.what}; retry in {self.retry_after} seconds.")


class DatabaseBusy(DatabaseFailure):
    """SQLite gave no write turn within ``[database] sqlite_write_wait`` seconds: another
    process held the file's write lock (or this process's other writes held the turn); or a
    read found the file locked as long. Nothing was begun."""

    retry_after = 2  # as for an outage: the lock outlasted a whole write wait


class TransactionConflict(DatabaseFailure):
    """The database kept refusing a transaction because of concurrent ones (deadlock,
    serialization failure, Galera certification conflict) after the bounded retries."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason  # the database's own words, for the log


class ConnectionLimitReached(MetalwireError):
    """The server already holds ``[api] max_connections`` connections."""

    code = 503
    safe = True


class NoFreeConductorWorker(MetalwireError):
    """This process already runs ``[conductor] workers_pool_size`` operations after their
    requests were answered (or no thread could be started for another): the verb is refused
    before anything of it is done."""

    code = 503
    safe = True
    retry_after = 5  # operations of this kind take seconds to minutes


class InventoryInconsistent(MetalwireError):
    """Stored rows break an inventory rule (found by a schema upgrade that enforces it)."""


class PortgroupPhysnetInconsistent(InventoryInconsistent):
    """A portgroup's member ports are on different physical networks (rows written before
    metalwire kept them on one); a 500, as in Ironic."""

    safe = True


class InvalidNodeInventory(Invalid):
    """An inspection's inventory that cannot be used (Ironic's message)."""

    def __init__(self, node: str, reason: str) -> None:
        super().__init__(f"Inventory for node {node} is invalid: {reason}")
