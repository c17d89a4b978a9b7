"""The services the REST layer is given: reads from the database, writes via the RPC API."""

from __future__ import annotations

from dataclasses import dataclass

from metalwire.conductor.rpcapi import ConductorAPI
from metalwire.config import Config
from metalwire.db.engine import Database


@dataclass
class Services:
    config: Config
    db: Database
    rpcapi: ConductorAPI
