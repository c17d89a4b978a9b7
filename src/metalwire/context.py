"""Who asked for an operation, carried from the API down to the network interfaces."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field


def new_request_id() -> str:
    return f"req-{uuid.uuid4()}"


@dataclass(frozen=True)
class RequestContext:
    request_id: str = field(default_factory=new_request_id)
    user: str | None = None
    project: str | None = None
