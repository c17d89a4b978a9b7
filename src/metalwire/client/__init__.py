"""A typed Python client of the Bare Metal v1 API served by metalwire (and by Ironic).

    from metalwire.client import Client, patch

    with Client("http://127.0.0.1:6385") as client:
        node = client.create_node("fake-hardware", name="compute-0")
        client.create_port(node.uuid, "52:54:00:12:34:56")
        client.update_node(node, patch.set_fields({"properties/cpus": 8}))
        client.vif_attach(node, "9b0f4d47-9f0a-4f5b-8f85-2c4c7c1c7d30")

The client negotiates the API microversion on first use (or uses a pinned one), retries only
failures that are safe to retry (:class:`RetryPolicy`), and raises the exceptions documented
in :mod:`metalwire.client.exceptions`.
"""

from metalwire.client import patch
from metalwire.client.client import (
    DEFAULT_URL,
    AllocationQuery,
    ChassisQuery,
    Client,
    ConductorQuery,
    DeployTemplateQuery,
    ListQuery,
    NodeQuery,
    PortgroupQuery,
    PortQuery,
    ProvisionTarget,
    RunbookQuery,
    VolumeQuery,
)
from metalwire.client.exceptions import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    BadRequest,
    Conflict,
    DryRunNotSupported,
    EndpointNotFound,
    FeatureNotSupported,
    Forbidden,
    HTTPError,
    InvalidResponse,
    MetalwireClientError,
    NodeLocked,
    NotAcceptable,
    NotFound,
    ProvisionStateError,
    ServerError,
    ServiceUnavailable,
    Unauthorized,
    VersionError,
    VersionNegotiationError,
    VifAlreadyAttached,
)
from metalwire.client.resources import (
    Allocation,
    Chassis,
    Conductor,
    DeployTemplate,
    Driver,
    HistoryEvent,
    Node,
    Port,
    Portgroup,
    Resource,
    Runbook,
    VolumeConnector,
    VolumeTarget,
)
from metalwire.client.retry import NO_RETRIES, RetryEvent, RetryPolicy
from metalwire.client.versions import LATEST_VERSION, APIVersion

__all__ = [
    "DEFAULT_URL",
    "LATEST_VERSION",
    "NO_RETRIES",
    "APIConnectionError",
    "APITimeoutError",
    "APIVersion",
    "Allocation",
    "AllocationQuery",
    "AuthenticationError",
    "BadRequest",
    "Chassis",
    "ChassisQuery",
    "Client",
    "Conductor",
    "ConductorQuery",
    "Conflict",
    "DeployTemplate",
    "DeployTemplateQuery",
    "Driver",
    "DryRunNotSupported",
    "EndpointNotFound",
    "FeatureNotSupported",
    "Forbidden",
    "HTTPError",
    "HistoryEvent",
    "InvalidResponse",
    "ListQuery",
    "MetalwireClientError",
    "Node",
    "NodeLocked",
    "NodeQuery",
    "NotAcceptable",
    "NotFound",
    "Port",
    "PortQuery",
    "Portgroup",
    "PortgroupQuery",
    "ProvisionStateError",
    "ProvisionTarget",
    "Resource",
    "RetryEvent",
    "RetryPolicy",
    "Runbook",
    "RunbookQuery",
    "ServerError",
    "ServiceUnavailable",
    "Unauthorized",
    "VersionError",
    "VersionNegotiationError",
    "VifAlreadyAttached",
    "VolumeConnector",
    "VolumeQuery",
    "VolumeTarget",
    "patch",
]
