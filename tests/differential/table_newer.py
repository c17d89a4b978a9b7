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


MISSING_NODE = "0e0e0e0e-1111-4222-8333-444444444444"
VMEDIA = "/v1/nodes/{n1}/vmedia"
# "http": Ironic passes the URL to the BMC as it is, instead of downloading it first
CDROM = {"device_type": "cdrom", "image_url": "http://image", "image_download_source": "http"}


def _vmedia() -> tuple[Step, ...]:
    """Attach, detach and list on fake-hardware (whose management has no virtual media: Ironic
    answers 204 and records the refusal after), and the bodies and queries Ironic refuses."""
    refused_bodies: tuple[tuple[str, object], ...] = (
        ("device type dvd", {**CDROM, "device_type": "dvd"}),
        ("ftp image", {**CDROM, "image_url": "ftp://image"}),
        ("image without a scheme", {**CDROM, "image_url": "image"}),
        ("image_url a number", {**CDROM, "image_url": 7}),
        ("no image_url", {"device_type": "cdrom"}),
        ("no device_type", {"image_url": "http://image"}),
        ("download source glance", {**CDROM, "image_download_source": "glance"}),
        ("unknown key", {**CDROM, "insecure": True}),
        ("a list", ["cdrom"]),
    )
    return (
        Step("vmedia attach at 1.88", "POST", VMEDIA, CDROM, version="1.88"),
        Step("vmedia attach", "POST", VMEDIA, CDROM, version="1.89"),
        Step("after vmedia attach", "GET", SETTLED, settle=True),
        # the refusal recorded: a text in both (their words differ)
        get("last_error after vmedia attach", "/v1/nodes/{n1}?fields=uuid,last_error"),
        *(
            Step(f"vmedia attach {name}", "POST", VMEDIA, body, version="1.89")
            for name, body in refused_bodies
        ),
        Step(
            "vmedia attach of a missing node",
            "POST",
            f"/v1/nodes/{MISSING_NODE}/vmedia",
            CDROM,
            version="1.89",
        ),
        Step("vmedia detach at 1.88", "DELETE", VMEDIA, version="1.88"),
        Step("vmedia detach", "DELETE", f"{VMEDIA}?device_types=cdrom,floppy", version="1.89"),
        Step("after vmedia detach", "GET", SETTLED, settle=True),
        Step("vmedia detach all", "DELETE", VMEDIA, version="1.89"),
        Step("after vmedia detach all", "GET", SETTLED, settle=True),
        Step("vmedia detach dvd", "DELETE", f"{VMEDIA}?device_types=dvd", version="1.89"),
        Step("vmedia detach colour", "DELETE", f"{VMEDIA}?colour=red", version="1.89"),
        Step("vmedia detach no types", "DELETE", f"{VMEDIA}?device_types=", version="1.89"),
        Step("after vmedia detach no types", "GET", SETTLED, settle=True),
        get("vmedia list at 1.92", VMEDIA, version="1.92"),
        get("vmedia list at 1.93", VMEDIA, version="1.93"),
    )


MANAGEMENT = "/v1/nodes/{n1}/management"
BOOT_DEVICE = f"{MANAGEMENT}/boot_device"
STATES = "/v1/nodes/{n1}/states"
BIOS = "/v1/nodes/{n1}/bios"
INDICATORS = f"{MANAGEMENT}/indicators"


def _node_management() -> tuple[Step, ...]:
    """Boot device, boot mode, secure boot, BIOS settings and indicators of a fake-hardware
    node: what its management answers, and the requests Ironic refuses."""
    device_bodies: tuple[tuple[str, object], ...] = (
        ("pxe", {"boot_device": "pxe"}),
        ("pxe persistent", {"boot_device": "pxe", "persistent": True}),
        ("pxe persistent text", {"boot_device": "pxe", "persistent": "true"}),
        ("disk", {"boot_device": "disk"}),
        ("persistent sometimes", {"boot_device": "pxe", "persistent": "sometimes"}),
        ("boot_device a number", {"boot_device": 7}),
    )
    return (
        get("boot device", BOOT_DEVICE),
        get("supported boot devices", f"{BOOT_DEVICE}/supported"),
        *(
            Step(f"boot device set {name}", "PUT", BOOT_DEVICE, body)
            for name, body in device_bodies
        ),
        get("boot device after set", BOOT_DEVICE),
        get("boot device of a missing node", f"/v1/nodes/{MISSING_NODE}/management/boot_device"),
        Step("boot mode at 1.75", "PUT", f"{STATES}/boot_mode", {"target": "uefi"}, version="1.75"),
        Step("boot mode uefi", "PUT", f"{STATES}/boot_mode", {"target": "uefi"}, version="1.76"),
        Step("after boot mode", "GET", SETTLED, settle=True),
        # fake-hardware changes no boot mode: the refusal recorded, a text in both
        get("boot mode fields", "/v1/nodes/{n1}?fields=uuid,boot_mode,secure_boot,last_error"),
        Step(
            "boot mode legacy", "PUT", f"{STATES}/boot_mode", {"target": "legacy"}, version="1.76"
        ),
        Step(
            "secure boot at 1.75", "PUT", f"{STATES}/secure_boot", {"target": True}, version="1.75"
        ),
        Step("secure boot on", "PUT", f"{STATES}/secure_boot", {"target": True}, version="1.76"),
        Step("after secure boot", "GET", SETTLED, settle=True),
        Step(
            "secure boot maybe", "PUT", f"{STATES}/secure_boot", {"target": "maybe"}, version="1.76"
        ),
        get("bios at 1.39", BIOS, version="1.39"),
        get("bios at 1.40", BIOS, version="1.40"),
        get("bios fields at 1.73", f"{BIOS}?fields=name", version="1.73"),
        get("bios fields at 1.74", f"{BIOS}?fields=name,value", version="1.74"),
        get("bios unknown field", f"{BIOS}?fields=name,colour", version="1.74"),
        get("bios detail", f"{BIOS}?detail=true", version="1.74"),
        get("bios detail maybe", f"{BIOS}?detail=maybe", version="1.74"),
        get("bios fields and detail", f"{BIOS}?fields=name&detail=true", version="1.74"),
        get("bios detail at 1.73", f"{BIOS}?detail=true", version="1.73"),
        get("bios setting", f"{BIOS}/ProcVirtualization", version="1.40"),
        get("bios setting at 1.39", f"{BIOS}/ProcVirtualization", version="1.39"),
        get("indicators", INDICATORS),
        get("indicator led@system", f"{INDICATORS}/led@system"),
        get("indicator led@disk", f"{INDICATORS}/led@disk"),
        get("indicator without a component", f"{INDICATORS}/led"),
        Step("indicator set", "PUT", f"{INDICATORS}/led@system", {"state": "blinking"}),
    )


def _firmware() -> tuple[Step, ...]:
    path = "/v1/nodes/{n1}/firmware"
    return (
        get("firmware at 1.85", path, version="1.85"),
        get("firmware at 1.86", path, version="1.86"),
        get("firmware fields", f"{path}?fields=component,current_version", version="1.86"),
        get("firmware identity at 1.113", f"{path}?fields=vendor", version="1.113"),
        get("firmware identity at 1.114", f"{path}?fields=vendor", version="1.114"),
        get("firmware unknown field", f"{path}?fields=colour", version="1.86"),
        get("firmware fields and detail", f"{path}?fields=component&detail=true", version="1.86"),
        get("firmware detail", f"{path}?detail=true", version="1.86"),
        get("firmware detail maybe", f"{path}?detail=maybe", version="1.86"),
        get("firmware limit", f"{path}?limit=1", version="1.86"),
        get("firmware of a missing node", f"/v1/nodes/{MISSING_NODE}/firmware", version="1.86"),
    )


def _runbooks() -> tuple[Step, ...]:
    """Runbooks (1.92, and 1.112's traits and names): their endpoints, bad input, a manual
    cleaning and a servicing by runbook on a node whose trait approves it (by the runbook's
    name below 1.112, by one of its traits from 1.112) and the requests refused; below 1.92,
    the gates."""
    create, one = "/v1/runbooks", "/v1/runbooks/{r1}"
    provision = "/v1/nodes/{n1}/states/provision"
    settled = "/v1/nodes/{n1}?fields=uuid,provision_state,target_provision_state,last_error"
    steps = [{"interface": "vendor", "step": "log_passthrough", "args": {}, "order": 1}]
    clean = {"target": "clean", "runbook": "CUSTOM_RB_A"}
    return (
        Step("create runbook", "POST", create, {"name": "CUSTOM_RB_A", "steps": steps}, "r1"),
        Step("create runbook, name taken", "POST", create, {"name": "CUSTOM_RB_A", "steps": steps}),
        Step("create runbook, no steps", "POST", create, {"name": "CUSTOM_RB_B", "steps": []}),
        Step(
            "create runbook, a deploy step",
            "POST",
            create,
            {"name": "CUSTOM_RB_B", "steps": [{**steps[0], "priority": 1}]},
        ),
        Step("create runbook, logical name", "POST", create, {"name": "rb-c", "steps": steps}),
        Step(
            "create runbook, no args",
            "POST",
            create,
            {"name": "CUSTOM_RB_N", "steps": [{"interface": "raid", "step": "x", "order": "4"}]},
        ),
        get("runbook no args", "/v1/runbooks/CUSTOM_RB_N"),
        Step(
            "create runbook, traits",
            "POST",
            create,
            {"name": "CUSTOM_RB_T", "steps": steps, "traits": ["CUSTOM_X"]},
        ),
        Step(
            "create runbook, description",
            "POST",
            create,
            {"name": "CUSTOM_RB_D", "steps": steps, "description": "d"},
        ),
        Step(
            "create runbook, public owned",
            "POST",
            create,
            {"name": "CUSTOM_RB_P", "steps": steps, "public": True, "owner": "p1"},
        ),
        get("runbook public owned", "/v1/runbooks/CUSTOM_RB_P"),
        Step(
            "create runbook, public string",
            "POST",
            create,
            {"name": "CUSTOM_RB_S", "steps": steps, "public": "true"},
        ),
        patch(
            "runbook patch description", "/v1/runbooks/CUSTOM_RB_N", op("add", "/description", "x")
        ),
        patch("runbook patch public", "/v1/runbooks/CUSTOM_RB_N", op("add", "/owner", "p2")),
        patch("runbook patch public 2", "/v1/runbooks/CUSTOM_RB_N", op("replace", "/public", True)),
        get("runbook after public", "/v1/runbooks/CUSTOM_RB_N"),
        patch(
            "runbook patch owner of public", "/v1/runbooks/CUSTOM_RB_N", op("add", "/owner", "p3")
        ),
        patch(
            "runbook patch traits", "/v1/runbooks/CUSTOM_RB_N", op("add", "/traits", ["CUSTOM_Y"])
        ),
        Step(
            "runbook traits replace bad",
            "PUT",
            "/v1/runbooks/CUSTOM_RB_N/traits",
            {"traits": ["bad"]},
        ),
        Step(
            "runbook traits replace extra",
            "PUT",
            "/v1/runbooks/CUSTOM_RB_N/traits",
            {"traits": [], "x": 1},
        ),
        Step(
            "runbook trait with body",
            "PUT",
            "/v1/runbooks/CUSTOM_RB_N/traits/CUSTOM_Z",
            {"traits": []},
        ),
        Step("runbook trait bad", "PUT", "/v1/runbooks/CUSTOM_RB_N/traits/bad"),
        Step("runbook trait delete missing", "DELETE", "/v1/runbooks/CUSTOM_RB_N/traits/CUSTOM_Q"),
        Step("runbook traits delete all", "DELETE", "/v1/runbooks/CUSTOM_RB_N/traits"),
        patch(
            "runbook patch public string",
            "/v1/runbooks/CUSTOM_RB_N",
            op("replace", "/public", "false"),
        ),
        patch(
            "runbook patch logical name", "/v1/runbooks/CUSTOM_RB_N", op("replace", "/name", "rb-n")
        ),
        get("runbook list detail", f"{create}?detail=true"),
        get("runbook show steps and extra", f"{one}?fields=steps,extra,links"),
        get("runbook list marker", f"{create}?limit=1&marker={{r1}}"),
        get("runbook show", one),
        get("runbook show by name", "/v1/runbooks/CUSTOM_RB_A"),
        get("runbook show missing", "/v1/runbooks/{missing}"),
        get("runbook list", create),
        get("runbook list sorted by steps", f"{create}?sort_key=steps"),
        get("runbook show description", f"{one}?fields=name,description"),
        get("runbook list sorted by traits", f"{create}?sort_key=traits"),
        get("runbook list of a project", f"{create}?project=true"),
        patch("runbook patch", one, op("add", "/extra/b", 2), op("replace", "/steps/0/order", 3)),
        patch("runbook patch uuid", one, op("replace", "/uuid", "{missing}")),
        Step("runbook trait add", "PUT", f"{one}/traits/CUSTOM_RB_A"),
        get("runbook traits", f"{one}/traits"),
        node("dt-runbooks", "n1"),
        Step("node trait", "PUT", "/v1/nodes/{n1}/traits/CUSTOM_RB_A"),
        Step("manage", "PUT", provision, {"target": "manage"}),
        Step("after manage", "GET", settled, settle=True),
        Step("clean by runbook and steps", "PUT", provision, {**clean, "clean_steps": steps}),
        Step("clean by missing runbook", "PUT", provision, {**clean, "runbook": "{missing}"}),
        Step("clean by unapproved runbook", "PUT", provision, {**clean, "runbook": "CUSTOM_RB_N"}),
        Step(
            "provide by runbook", "PUT", provision, {"target": "provide", "runbook": "CUSTOM_RB_A"}
        ),
        Step("clean by runbook number", "PUT", provision, {**clean, "runbook": 5}),
        Step("clean by runbook", "PUT", provision, clean),
        Step("after clean by runbook", "GET", settled, settle=True),
        patch("runbook without ramdisk", one, op("replace", "/disable_ramdisk", True)),
        *(
            step
            for verb in ("provide", "active")
            for step in (
                Step(verb, "PUT", provision, {"target": verb}),
                Step(f"after {verb}", "GET", settled, settle=True),
            )
        ),
        Step("service by runbook", "PUT", provision, {**clean, "target": "service"}),
        Step("after service by runbook", "GET", settled, settle=True),
        Step("runbook delete", "DELETE", one),
        Step("runbook delete by name", "DELETE", "/v1/runbooks/rb-c"),
        Step("runbook delete missing", "DELETE", "/v1/runbooks/{missing}"),
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
            get("firmware at 1.114", "/v1/nodes/{n1}/firmware", version="1.114"),
        ),
    ),
    Scenario(
        "virtual media and firmware components", (node("dt-vmedia", "n1"), *_vmedia(), *_firmware())
    ),
    Scenario("node management", (node("dt-mgmt", "n1"), *_node_management())),
    Scenario("runbooks", _runbooks()),
)
