"""The differential tier's scenario for the gates of API 1.108 to 1.115 (``table.py`` holds
the others; ``test_differential`` runs both)."""

from __future__ import annotations

from tests.differential.scenarios import Scenario, Step
from tests.differential.table import get, node, op, patch, port

# a node's provision state only: its other fields differ as the conductors ran differently
SETTLED = "/v1/nodes/{n1}?fields=uuid,provision_state,target_provision_state,reservation"
# Ironic 39's fake-hardware service step that needs no ramdisk: with disable_ramdisk it runs
# in the conductor and the node is active again (metalwire's fake steps run any step)
STEPS = [{"interface": "vendor", "step": "log_passthrough"}]


def _shown_from(kind: str, path: str, name: str, since: int) -> tuple[Step, ...]:
    """The object at the version before ``since`` and at it, and ``?fields=name`` before it."""
    before, at = f"1.{since - 1}", f"1.{since}"
    return (
        get(f"{kind} at {before}", path, version=before),
        get(f"{kind} at {at}", path, version=at),
        get(f"fields={name} at {before}", f"{path}?fields=uuid,{name}", version=before),
    )


NEWER_SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "versions 1.108 to 1.115",
        (
            node("dt-v115", "n1"),
            *(
                step
                for verb in ("manage", "provide", "active")
                for step in (
                    Step(verb, "PUT", "/v1/nodes/{n1}/states/provision", {"target": verb}),
                    Step(f"after {verb}", "GET", SETTLED, settle=True),
                )
            ),
            *(
                Step(
                    f"service disable_ramdisk without steps at {version}",
                    "PUT",
                    "/v1/nodes/{n1}/states/provision",
                    {"target": "service", "disable_ramdisk": True},
                    version=version,
                )
                for version in ("1.107", "1.108")
            ),
            Step(
                "disable_ramdisk not a boolean",
                "PUT",
                "/v1/nodes/{n1}/states/provision",
                {"target": "service", "service_steps": STEPS, "disable_ramdisk": "maybe"},
                version="1.108",
            ),
            Step(
                "rebuild with disable_ramdisk",
                "PUT",
                "/v1/nodes/{n1}/states/provision",
                {"target": "rebuild", "disable_ramdisk": True},
                version="1.108",
            ),
            get("fields=health at 1.108", "/v1/nodes/{n1}?fields=uuid,health", version="1.108"),
            get("fields=health at 1.109", "/v1/nodes/{n1}?fields=uuid,health", version="1.109"),
            patch("set health", "/v1/nodes/{n1}", op("add", "/health", "OK"), version="1.109"),
            *(
                Step(
                    f"abort an active node at {version}",
                    "PUT",
                    "/v1/nodes/{n1}/states/provision",
                    {"target": "abort"},
                    version=version,
                )
                for version in ("1.109", "1.110")
            ),
            Step(
                "available_for_dynamic_portgroup at 1.110",
                "POST",
                "/v1/ports",
                {
                    "node_uuid": "{n1}",
                    "address": "52:54:00:df:00:01",
                    "available_for_dynamic_portgroup": False,
                },
                version="1.110",
            ),
            port("p1", "n1", "52:54:00:df:00:02", available_for_dynamic_portgroup=False),
            port("p2", "n1", "52:54:00:df:00:03"),
            *_shown_from("port", "/v1/ports/{p2}", "available_for_dynamic_portgroup", 111),
            Step(
                "available_for_dynamic_portgroup null",
                "POST",
                "/v1/ports",
                {
                    "node_uuid": "{n1}",
                    "address": "52:54:00:df:00:04",
                    "available_for_dynamic_portgroup": None,
                },
            ),
            patch(
                "available_for_dynamic_portgroup at 1.110 by PATCH",
                "/v1/ports/{p2}",
                op("replace", "/available_for_dynamic_portgroup", False),
                version="1.110",
            ),
            patch(
                "available_for_dynamic_portgroup by PATCH",
                "/v1/ports/{p2}",
                op("replace", "/available_for_dynamic_portgroup", False),
            ),
            patch(
                "available_for_dynamic_portgroup removed",
                "/v1/ports/{p2}",
                op("remove", "/available_for_dynamic_portgroup"),
            ),
            Step(
                "dynamic_portgroup set by a client",
                "POST",
                "/v1/portgroups",
                {"node_uuid": "{n1}", "dynamic_portgroup": True},
            ),
            Step("portgroup", "POST", "/v1/portgroups", {"node_uuid": "{n1}"}, "g1"),
            *_shown_from("portgroup", "/v1/portgroups/{g1}", "dynamic_portgroup", 111),
            patch(
                "dynamic_portgroup by PATCH",
                "/v1/portgroups/{g1}",
                op("replace", "/dynamic_portgroup", True),
            ),
            Step(
                "service with disable_ramdisk",
                "PUT",
                "/v1/nodes/{n1}/states/provision",
                {"target": "service", "service_steps": STEPS, "disable_ramdisk": True},
                version="1.108",
            ),
            Step("after service", "GET", SETTLED, settle=True),
            *(
                get(f"history at {version}", "/v1/nodes/{n1}/history?detail=true", version)
                for version in ("1.112", "1.113", "1.114", "1.115")
            ),
            get("runbooks at 1.112", "/v1/runbooks", version="1.112"),
            get("firmware at 1.114", "/v1/nodes/{n1}/firmware", version="1.114"),
        ),
    ),
)
