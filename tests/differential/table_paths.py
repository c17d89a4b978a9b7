"""The differential tier's scenario for how a path names what it asks for (``paths.py`` and the
pipeline's ``.json`` suffix): run at each version of the tier, so the suffix is stripped at
1.78 and part of the name at 1.107 and 1.115, and a node's virtual media is newer than 1.78."""

from __future__ import annotations

from tests.differential.scenarios import Scenario, Step
from tests.differential.table import get, node, op, patch, port

BAD = "malformed:uuid"  # neither a UUID nor a logical name (":" is reserved)
FIELDS = "?fields=uuid,name"


def _json_suffix() -> tuple[Step, ...]:
    at_190 = "1.90"  # the suffix stripped whatever version the scenario runs at
    return (
        # at the scenario's version: stripped at 1.78, part of the name at 1.107 and 1.115
        get("node by UUID.json", "/v1/nodes/{n1}.json" + FIELDS),
        # stripped to dt-paths, which names nothing: then looked for as dt-paths.json
        get("node named *.json", "/v1/nodes/dt-paths.json" + FIELDS),
        get("node list.json", "/v1/nodes.json?fields=uuid&limit=1"),
        get("port by UUID.json", "/v1/ports/{p1}.json?fields=uuid"),
        get("node by UUID.json/", "/v1/nodes/{n1}.json/" + FIELDS, version=at_190),
        get("node ports.json", "/v1/nodes/{n1}/ports.json?fields=uuid", version=at_190),
        patch(
            "node patch by UUID.json",
            "/v1/nodes/{n1}.json",
            op("add", "/extra/a", "b"),
            version=at_190,
        ),
        get("node after the patch", "/v1/nodes/{n1}?fields=uuid,extra"),
        get("node by UUID.json at 1.91", "/v1/nodes/{n1}.json" + FIELDS, version="1.91"),
    )


def _action_first() -> tuple[Step, ...]:
    return (
        get("states, the node last", "/v1/nodes/states/{n1}"),
        get("console, the node last", "/v1/nodes/states/console/{n1}"),
        Step(
            "console off, the node last", "PUT", "/v1/nodes/states/console/{n1}", {"enabled": False}
        ),
        get("boot device, the node last", "/v1/nodes/management/boot_device/{n1}"),
        Step("maintenance on, the node last", "PUT", "/v1/nodes/maintenance/{n1}", {"reason": "r"}),
        Step("maintenance off, the node last", "DELETE", "/v1/nodes/maintenance/{n1}"),
        get("states of a malformed node, the node last", f"/v1/nodes/states/{BAD}"),
    )


def _malformed_idents() -> tuple[Step, ...]:
    extra = op("add", "/extra/a", "b")
    return (
        get("malformed node", f"/v1/nodes/{BAD}"),
        patch("malformed node patch", f"/v1/nodes/{BAD}", extra),
        Step("malformed node delete", "DELETE", f"/v1/nodes/{BAD}"),
        get("malformed node's vifs", f"/v1/nodes/{BAD}/vifs"),
        get("malformed node's vifs at 1.10", f"/v1/nodes/{BAD}/vifs", version="1.10"),
        get("malformed node's ports", f"/v1/nodes/{BAD}/ports"),
        get("malformed node's traits", f"/v1/nodes/{BAD}/traits"),
        get("malformed node's states", f"/v1/nodes/{BAD}/states"),
        get("malformed node's console", f"/v1/nodes/{BAD}/states/console"),
        get("malformed node's boot device", f"/v1/nodes/{BAD}/management/boot_device"),
        get("a node named a b", "/v1/nodes/a%20b"),
        get("malformed port", f"/v1/ports/{BAD}"),
        get("port by MAC", "/v1/ports/52:54:00:12:34:56"),
        patch("malformed port patch", f"/v1/ports/{BAD}", extra),
        Step("malformed port delete", "DELETE", f"/v1/ports/{BAD}"),
        get("malformed port of a node", f"/v1/nodes/{{n1}}/ports/{BAD}"),
        get("malformed portgroup", f"/v1/portgroups/{BAD}"),
        get("malformed portgroup's ports", f"/v1/portgroups/{BAD}/ports"),
        get("malformed portgroup of a node", f"/v1/nodes/{{n1}}/portgroups/{BAD}"),
        get("ports of a malformed node", f"/v1/ports?node={BAD}"),
        get("ports of a malformed portgroup", f"/v1/ports?portgroup={BAD}"),
        get("portgroups of a malformed node", f"/v1/portgroups?node={BAD}"),
    )


def _methods() -> tuple[Step, ...]:
    vmedia = {"device_type": "CDROM", "image_url": "http://image"}
    return (
        Step("PUT of an unknown state", "PUT", "/v1/nodes/{n1}/states/target_raid_config", {}),
        Step("DELETE of an unknown state", "DELETE", "/v1/nodes/{n1}/states/foo"),
        get("unknown management", "/v1/nodes/{n1}/management/foo"),
        # below its version a sub-resource is not there, whatever the method
        Step("vmedia PUT", "PUT", "/v1/nodes/{n1}/vmedia", vmedia),
        Step("bios PUT at 1.39", "PUT", "/v1/nodes/{n1}/bios", {}, version="1.39"),
        Step("history PUT", "PUT", "/v1/nodes/{n1}/history", {}),
    )


PATH_SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "how a path names what it asks for",
        (
            node("dt-paths.json", "n1"),
            port("p1", "n1", "52:54:00:12:34:56"),
            *_json_suffix(),
            *_action_first(),
            *_malformed_idents(),
            *_methods(),
        ),
    ),
)
