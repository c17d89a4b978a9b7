"""The services the REST layer is given: reads from the database, writes via the RPC API."""

from __future__ import annotations

from dataclasses import dataclass, field

from metalwire.conductor.audit_runner import LatestAudit
from metalwire.conductor.rpcapi import ConductorAPI
from metalwire.config import Config
from metalwire.db.engine import Database


@dataclass
class Services:
    config: Config
    db: Database
    rpcapi: ConductorAPI
    # The latest drift audit of every node, for operators and the metrics endpoint.
    audit: LatestAudit = field(default_factory=LatestAudit)
