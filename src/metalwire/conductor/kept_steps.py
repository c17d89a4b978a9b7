"""What a cleaning or a servicing keeps on its node while its steps run, and what clearing it
takes, once the steps end, fail or are aborted, or once the stuck-state recovery fails a node
whose process stopped during them.

The node shows the current step in ``clean_step`` / ``service_step``; its
``driver_internal_info`` keeps the list (``clean_steps`` / ``service_steps``), the current
step's index (``clean_step_index`` / ``service_step_index``), whether the verb boots no
ramdisk (``cleaning_disable_ramdisk`` / ``service_disable_ramdisk``), and a timed ``wait``
step's record (``metalwire_clean_wait`` / ``metalwire_service_wait``). Ironic's cleaning and
servicing error handlers clear the current step and its index (and the agent's flags and
token, which metalwire never keeps); metalwire clears all it kept, as at any end of the steps,
so a failed node keeps no stale step until its next verb.

A leaf: it imports nothing of the conductor, so that the step runner and the stuck-state
recovery, which the task opening imports, share one rule without an import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

StepKind = Literal["clean", "service"]

#: The transient state each kind's steps run in.
RUNNING: dict[StepKind, str] = {"clean": "cleaning", "service": "servicing"}
#: Whether the verb boots no ramdisk (Ironic's key).
NO_RAMDISK: dict[StepKind, str] = {
    "clean": "cleaning_disable_ramdisk",
    "service": "service_disable_ramdisk",
}
#: The ``driver_internal_info`` key of a timed ``wait`` step under way (metalwire's own).
WAIT_RECORD: dict[StepKind, str] = {
    "clean": "metalwire_clean_wait",
    "service": "metalwire_service_wait",
}


def running_kind(state: str) -> StepKind | None:
    """Whose steps a node in the transient ``state`` runs, if any."""
    for kind, running in RUNNING.items():
        if state == running:
            return kind
    return None


def cleared(kind: StepKind, internal: Mapping[str, Any]) -> dict[str, Any]:
    """The node fields that clear what ``kind``'s steps kept: no current step, and
    ``internal`` (the node's ``driver_internal_info``) without the kept keys."""
    kept = {f"{kind}_steps", f"{kind}_step_index", NO_RAMDISK[kind], WAIT_RECORD[kind]}
    return {
        f"{kind}_step": {},
        "driver_internal_info": {k: v for k, v in internal.items() if k not in kept},
    }
