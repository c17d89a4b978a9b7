"""The parts of Ironic's API that metalwire does not serve, named in their 404.

A client written for Ironic that asks for one of them gets a 404, as for any path metalwire
does not serve, but with a message saying which part of the API it asked for and why it is not
there, instead of "The resource could not be found." (which ``baremetal node passthru list
NODE`` shows as if the node were missing). docs/api-ref/index.md lists the same parts.
"""

from __future__ import annotations

import re

_NOT_SERVED: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern + r"(?:/.*)?"), message)
    for pattern, message in (
        (
            r"/v1/nodes/[^/]+/vendor_passthru",
            "A node's vendor passthru is not served by metalwire: its hardware interfaces "
            "have no vendor methods.",
        ),
        (
            r"/v1/drivers/[^/]+/vendor_passthru",
            "A driver's vendor passthru is not served by metalwire: its hardware types have "
            "no vendor methods.",
        ),
        (
            r"/v1/(?:lookup|heartbeat)",
            "The ramdisk agent's lookup and heartbeat are not served by metalwire: a node that "
            "waits for its agent (wait call-back, clean wait) waits for an abort or its timeout.",
        ),
        (
            r"/v1/inspection_rules",
            "Inspection rules (API 1.96) are not served by metalwire.",
        ),
    )
)


def message_for(path: str) -> str | None:
    """Why ``path`` is not served, if it belongs to a part of Ironic's API metalwire leaves out."""
    for pattern, message in _NOT_SERVED:
        if pattern.fullmatch(path):
            return message
    return None
