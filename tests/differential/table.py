"""The requests of the differential tier: each scenario is sent to Ironic 39 and to metalwire.

Nodes use fake-hardware; ``n*`` nodes take the noop network interface (Ironic's flat one
needs a Neutron, which this tier does not start). Everything a scenario makes is deleted when
it ends.
"""

from __future__ import annotations

from tests.differential.scenarios import Scenario, Step

NODE = {"driver": "fake-hardware", "network_interface": "noop"}


def node(name: str, label: str, **fields: object) -> Step:
    return Step(
        f"create node {label}", "POST", "/v1/nodes", {**NODE, "name": name, **fields}, label
    )


def port(label: str, node_label: str, address: str, **fields: object) -> Step:
    body = {"node_uuid": f"{{{node_label}}}", "address": address, **fields}
    return Step(f"create port {label}", "POST", "/v1/ports", body, label)


def get(name: str, path: str, version: str | None = None) -> Step:
    return Step(name, "GET", path, version=version)


def patch(name: str, path: str, *ops: dict[str, object], version: str | None = None) -> Step:
    return Step(name, "PATCH", path, list(ops), version=version)


def op(kind: str, path: str, value: object = None) -> dict[str, object]:
    return (
        {"op": kind, "path": path}
        if kind == "remove"
        else {"op": kind, "path": path, "value": value}
    )


def _below_their_version() -> tuple[Step, ...]:
    """Every other resource metalwire serves from a version, asked at the one before: Ironic
    39 answers some from its router (routing error body), some from their handler (fault)."""
    patch_extra = [op("add", "/extra/a", 1)]
    gated: tuple[tuple[str, str, str, object, str], ...] = (
        ("portgroup list detail", "GET", "/v1/portgroups/detail", None, "1.22"),
        ("portgroup show", "GET", "/v1/portgroups/{g1}", None, "1.22"),
        ("portgroup create", "POST", "/v1/portgroups", {"node_uuid": "{n1}"}, "1.22"),
        ("portgroup patch", "PATCH", "/v1/portgroups/{g1}", patch_extra, "1.22"),
        ("portgroup delete", "DELETE", "/v1/portgroups/{g1}", None, "1.22"),
        ("portgroup ports", "GET", "/v1/portgroups/{g1}/ports", None, "1.23"),
        ("portgroup ports", "GET", "/v1/portgroups/{g1}/ports", None, "1.22"),
        ("portgroup ports detail", "GET", "/v1/portgroups/{g1}/ports/detail", None, "1.23"),
        ("node portgroups", "GET", "/v1/nodes/{n1}/portgroups", None, "1.23"),
        ("node portgroups detail", "GET", "/v1/nodes/{n1}/portgroups/detail", None, "1.23"),
        ("vif attach", "POST", "/v1/nodes/{n1}/vifs", {"id": "{vif1}"}, "1.27"),
        ("vif detach", "DELETE", "/v1/nodes/{n1}/vifs/{vif1}", None, "1.27"),
        ("inject_nmi", "PUT", "/v1/nodes/{n1}/management/inject_nmi", {}, "1.28"),
        ("volume", "GET", "/v1/volume", None, "1.31"),
        ("node volume", "GET", "/v1/nodes/{n1}/volume", None, "1.31"),
        ("volume connectors", "GET", "/v1/volume/connectors", None, "1.31"),
        ("volume connector show", "GET", "/v1/volume/connectors/{missing}", None, "1.31"),
        ("volume targets", "GET", "/v1/volume/targets", None, "1.31"),
        ("node volume connectors", "GET", "/v1/nodes/{n1}/volume/connectors", None, "1.31"),
        ("node volume targets", "GET", "/v1/nodes/{n1}/volume/targets", None, "1.31"),
        ("history entry", "GET", "/v1/nodes/{n1}/history/{missing}", None, "1.77"),
        ("conductors", "GET", "/v1/conductors", None, "1.48"),
        ("conductor show", "GET", "/v1/conductors/bench-ironic", None, "1.48"),
        ("shards", "GET", "/v1/shards", None, "1.81"),
    )
    return tuple(
        Step(f"{name} at {version}", method, path, body, version=version)
        for name, method, path, body, version in gated
    )


def _writes_below_a_resource() -> tuple[Step, ...]:
    """Writes to paths below a node, port or portgroup that serve reads only, or nothing."""
    new_port = {"node_uuid": "{n1}", "address": "52:54:00:bb:00:05"}
    extra = [op("add", "/extra/a", 1)]
    writes: tuple[tuple[str, str, object], ...] = (
        ("POST", "/v1/nodes/{n1}/ports", new_port),
        ("POST", "/v1/portgroups/{g1}/ports", new_port),
        ("POST", "/v1/nodes/{n1}/portgroups", {"node_uuid": "{n1}"}),
        ("PATCH", "/v1/nodes/{n1}/ports/{p1}", extra),
        ("PATCH", "/v1/portgroups/{g1}/ports/{p1}", extra),
        ("DELETE", "/v1/nodes/{n1}/ports/{p1}", None),
        ("PATCH", "/v1/ports/{p1}/something", extra),
        ("PATCH", "/v1/portgroups/{g1}/something", extra),
        ("DELETE", "/v1/ports/{p1}/something", None),
    )
    return tuple(
        Step(f"write {method} {path}", method, path, body) for method, path, body in writes
    )


def connector(label: str, node_label: str, kind: str, connector_id: str) -> Step:
    body = {"node_uuid": f"{{{node_label}}}", "type": kind, "connector_id": connector_id}
    return Step(f"create connector {label}", "POST", "/v1/volume/connectors", body, label)


def target(label: str, node_label: str, volume_id: str, boot_index: int) -> Step:
    body = {
        "node_uuid": f"{{{node_label}}}",
        "volume_type": "iscsi",
        "volume_id": volume_id,
        "boot_index": boot_index,
    }
    return Step(f"create target {label}", "POST", "/v1/volume/targets", body, label)


def power(name: str, node_label: str, state: str) -> tuple[Step, Step]:
    """Set the node's power state and wait until the change is done."""
    body = {"target": state}
    return (
        Step(name, "PUT", f"/v1/nodes/{{{node_label}}}/states/power", body),
        Step(f"after {name}", "GET", f"/v1/nodes/{{{node_label}}}", settle=True),
    )


def _volume_changes() -> tuple[Step, ...]:
    """PATCH and DELETE of volume connectors and targets: taken while their node is
    powered off, refused (with what was wrong) otherwise."""
    connectors, targets = "/v1/volume/connectors", "/v1/volume/targets"
    return (
        node("dt-volume-a", "n1"),
        node("dt-volume-b", "n2"),
        *power("power off a", "n1", "power off"),
        connector("c1", "n1", "iqn", "iqn.2010-10.org.openstack:dt-a"),
        connector("c2", "n1", "ip", "192.0.2.10"),
        target("t1", "n1", "dt-vol-1", 0),
        target("t2", "n1", "dt-vol-2", 1),
        patch("connector id", f"{connectors}/{{c1}}", op("replace", "/connector_id", "iqn.x")),
        patch("connector extra", f"{connectors}/{{c1}}", op("add", "/extra/rack", "7")),
        patch("connector bad type", f"{connectors}/{{c2}}", op("replace", "/type", "bogus")),
        patch(
            "connector duplicate type and id",
            f"{connectors}/{{c2}}",
            op("replace", "/type", "iqn"),
            op("replace", "/connector_id", "iqn.x"),
        ),
        patch("connector no type", f"{connectors}/{{c2}}", op("remove", "/type")),
        patch("connector uuid", f"{connectors}/{{c2}}", op("replace", "/uuid", "{missing}")),
        patch("connector unknown field", f"{connectors}/{{c2}}", op("add", "/colour", "red")),
        patch(
            "connector to a missing node",
            f"{connectors}/{{c2}}",
            op("replace", "/node_uuid", "{missing}"),
        ),
        patch(
            "connector to a node not a uuid",
            f"{connectors}/{{c2}}",
            op("replace", "/node_uuid", "dt-volume-b"),
        ),
        patch("missing connector", f"{connectors}/{{missing}}", op("add", "/extra/a", 1)),
        patch("target volume id", f"{targets}/{{t1}}", op("replace", "/volume_id", "dt-vol-9")),
        patch("target duplicate boot index", f"{targets}/{{t2}}", op("replace", "/boot_index", 0)),
        patch("target bad boot index", f"{targets}/{{t2}}", op("replace", "/boot_index", "x")),
        patch("target no volume type", f"{targets}/{{t2}}", op("remove", "/volume_type")),
        patch(
            "target to a missing node",
            f"{targets}/{{t2}}",
            op("replace", "/node_uuid", "{missing}"),
        ),
        patch(
            "connector to a node with no power state",
            f"{connectors}/{{c2}}",
            op("replace", "/node_uuid", "{n2}"),
        ),
        *power("power off b", "n2", "power off"),
        *power("power on a", "n1", "power on"),
        patch(
            "target from a powered on node to a powered off one",
            f"{targets}/{{t1}}",
            op("replace", "/node_uuid", "{n2}"),
        ),
        patch("connector of a powered on node", f"{connectors}/{{c2}}", op("add", "/extra/a", 1)),
        patch("target of a powered on node", f"{targets}/{{t2}}", op("add", "/extra/a", 1)),
        Step("delete connector of a powered on enrolled node", "DELETE", f"{connectors}/{{c2}}"),
        Step("manage a", "PUT", "/v1/nodes/{n1}/states/provision", {"target": "manage"}),
        Step("after manage a", "GET", "/v1/nodes/{n1}", settle=True),
        Step("provide a", "PUT", "/v1/nodes/{n1}/states/provision", {"target": "provide"}),
        Step("after provide a", "GET", "/v1/nodes/{n1}", settle=True),
        *power("power on a again", "n1", "power on"),
        Step("delete target of a powered on available node", "DELETE", f"{targets}/{{t2}}"),
        Step("delete connector of a powered on available node", "DELETE", f"{connectors}/{{c1}}"),
        *power("power off a again", "n1", "power off"),
        Step("delete target", "DELETE", f"{targets}/{{t2}}"),
        Step("delete target again", "DELETE", f"{targets}/{{t2}}"),
        Step("delete connector", "DELETE", f"{connectors}/{{c1}}"),
        get("connectors after delete", "/v1/nodes/{n1}/volume/connectors"),
        get("target after delete", "/v1/volume/targets/{t2}"),
    )


def _port_connectivity() -> tuple[Step, ...]:
    """A port's link, PXE flag, physical network and portgroup change, and a portgroup
    moves to a node, before the node is provided, or in maintenance; not on an available
    node otherwise."""
    link = {"switch_id": "aa:bb:cc:dd:ee:ff", "port_id": "Eth1"}
    changes = (
        ("link", op("add", "/local_link_connection", link)),
        ("pxe_enabled", op("replace", "/pxe_enabled", False)),
        ("physical_network", op("add", "/physical_network", "physnet1")),
        ("portgroup", op("add", "/portgroup_uuid", "{g1}")),
    )
    to_n1, to_n2 = (op("replace", "/node_uuid", f"{{{n}}}") for n in ("n1", "n2"))
    flat, noop = (op("replace", "/network_interface", kind) for kind in ("flat", "noop"))
    reset = op("remove", "/network_interface")
    return (
        node("dt-rewire", "n1"),
        *power("power off", "n1", "power off"),  # Ironic's manage sets no power state
        Step("create portgroup g1", "POST", "/v1/portgroups", {"node_uuid": "{n1}"}, "g1"),
        port("p1", "n1", "52:54:00:ef:00:01"),
        port("p2", "n1", "52:54:00:ef:00:02"),
        patch("pxe_enabled in enroll", "/v1/ports/{p2}", op("replace", "/pxe_enabled", False)),
        patch("network_interface in enroll", "/v1/nodes/{n1}", flat),
        get("validate on the flat interface", "/v1/nodes/{n1}/validate"),
        patch("network_interface back in enroll", "/v1/nodes/{n1}", noop),
        Step("manage", "PUT", "/v1/nodes/{n1}/states/provision", {"target": "manage"}),
        Step("after manage", "GET", "/v1/nodes/{n1}", settle=True),
        patch("pxe_enabled when manageable", "/v1/ports/{p2}", op("replace", "/pxe_enabled", True)),
        patch("network_interface when manageable", "/v1/nodes/{n1}", flat),
        patch("network_interface back when manageable", "/v1/nodes/{n1}", noop),
        Step("provide", "PUT", "/v1/nodes/{n1}/states/provision", {"target": "provide"}),
        Step("after provide", "GET", "/v1/nodes/{n1}", settle=True),
        *(patch(f"{name} when available", "/v1/ports/{p1}", change) for name, change in changes),
        patch("extra when available", "/v1/ports/{p1}", op("add", "/extra/a", 1)),
        patch("network_interface when available", "/v1/nodes/{n1}", flat),
        patch("network_interface reset when available", "/v1/nodes/{n1}", reset),
        get("port after the refused changes", "/v1/ports/{p1}"),
        node("dt-rewire-b", "n2"),
        Step("create portgroup g2", "POST", "/v1/portgroups", {"node_uuid": "{n2}"}, "g2"),
        patch("portgroup to an available node", "/v1/portgroups/{g2}", to_n1),
        patch("maintenance", "/v1/nodes/{n1}", op("replace", "/maintenance", True)),
        *(patch(f"{name} in maintenance", "/v1/ports/{p1}", change) for name, change in changes),
        patch("network_interface in maintenance", "/v1/nodes/{n1}", flat),
        get("node after the interface changes", "/v1/nodes/{n1}"),
        # (Ironic 39 answers a portgroup's move to a node in maintenance with a 500, a
        # UNIQUE constraint of nodes.uuid broken: tests/integration/test_deployed_port_rules.py)
        patch("portgroup with members to an enrolled node", "/v1/portgroups/{g1}", to_n2),
    )


HTTP_IMAGE = "http://images.example.com/root.qcow2"
GLANCE_IMAGE = "8b1f2d6c-6a3e-4c55-9a55-2f3b8d1c0a11"
CAPS = {"capabilities": "boot_mode:UEFI"}
GOOD_CAPS = {"capabilities": "boot_mode:uefi,secure_boot:true,odd,a:b:c"}


def _deploy_image_checks() -> tuple[Step, ...]:
    """What the deploy interface wants in instance_info, in validate and before a deploy:
    any, that its traits are the node's; fake nothing more; direct (Ironic's agent deploy) an
    image, a checksum for an http one, and root device hints its parser reads. A direct
    deploy that passes is not sent: Ironic's would fetch the image and wait for an agent."""
    validate = "/v1/nodes/{n1}/validate"
    deploy = ("PUT", "/v1/nodes/{n1}/states/provision", {"target": "active"})

    def image(name: str, **info: object) -> Step:
        return patch(name, "/v1/nodes/{n1}", op("add", "/instance_info", info))

    return (
        # cleaned by the fake deploy interface: Ironic's direct one would wait for an agent
        node("dt-image", "n1", deploy_interface="fake"),
        *power("power off", "n1", "power off"),  # Ironic's manage sets no power state
        get("validate fake without image", validate),
        *(
            step
            for verb in ("manage", "provide")
            for step in (
                Step(verb, "PUT", "/v1/nodes/{n1}/states/provision", {"target": verb}),
                Step(f"after {verb}", "GET", "/v1/nodes/{n1}", settle=True),
            )
        ),
        image("trait the node lacks", traits=["CUSTOM_GPU"]),
        get("validate trait the node lacks", validate),
        Step("deploy with a trait the node lacks", *deploy),
        image("traits not a list", traits="CUSTOM_GPU"),
        get("validate traits not a list", validate),
        Step("add the trait", "PUT", "/v1/nodes/{n1}/traits/CUSTOM_GPU"),
        image("trait the node has", traits=["CUSTOM_GPU"]),
        get("validate trait the node has", validate),
        patch("direct", "/v1/nodes/{n1}", op("replace", "/deploy_interface", "direct")),
        get("validate direct without image", validate),
        Step("deploy direct without image", *deploy),
        get("state after refused deploy", "/v1/nodes/{n1}?fields=provision_state,last_error"),
        image("http image without checksum", image_source=HTTP_IMAGE),
        get("validate http image without checksum", validate),
        Step("deploy http image without checksum", *deploy),
        image("hash value without algorithm", image_source=HTTP_IMAGE, image_os_hash_value="a"),
        get("validate hash value without algorithm", validate),
        # any image_type passes: Ironic makes it whole-disk (or partition) before it checks
        image("bad image type", image_source=GLANCE_IMAGE, image_type="iso"),
        get("validate bad image type", validate),
        image(
            "bad download source",
            image_source=HTTP_IMAGE,
            image_checksum="a",
            image_download_source="ftp",
        ),
        get("validate bad download source", validate),
        image("http image with checksum", image_source=HTTP_IMAGE, image_checksum="a"),
        get("validate http image with checksum", validate),
        image(
            "http image with hash",
            image_source=HTTP_IMAGE,
            image_os_hash_algo="sha256",
            image_os_hash_value="a",
            image_type="whole-disk",
        ),
        get("validate http image with hash", validate),
        image("glance image", image_source=GLANCE_IMAGE),
        get("validate glance image", validate),
        image("file image", image_source="file:///images/root.img"),
        get("validate file image", validate),
        *(
            step
            for name, proxies in (
                ("ftp proxy", {"image_http_proxy": "ftp://proxy.example.com"}),
                ("wildcard no_proxy", {"image_no_proxy": "*.example.com"}),
                (
                    "good proxies",
                    {
                        "image_https_proxy": "https://proxy.example.com:3129",
                        "image_no_proxy": "images.example.com,.example.org,10.0.0.1:8080",
                    },
                ),
            )
            for step in (
                patch(name, "/v1/nodes/{n1}", op("add", "/driver_info", proxies)),
                get(f"validate {name}", validate),
            )
        ),
        *(
            step
            for name, hints in (
                ("size not a number", {"size": "abc"}),
                ("unknown hint", {"colour": "red"}),
                ("rotational not a Boolean", {"rotational": "maybe"}),
                ("size at least", {"size": ">= 10", "model": "<in> SSD"}),
            )
            for step in (
                patch(name, "/v1/nodes/{n1}", op("add", "/properties", {"root_device": hints})),
                get(f"validate {name}", validate),
            )
        ),
        patch("hint size zero", "/v1/nodes/{n1}", op("add", "/properties/root_device/size", 0)),
        Step("deploy with root device size zero", *deploy),
        # Ironic's refused deploy stored the image_type it inferred: set the image again
        image("file image again", image_source="file:///images/root.img"),
        patch("upper-case boot mode", "/v1/nodes/{n1}", op("add", "/properties", CAPS)),
        get("validate upper-case boot mode", validate),
        patch("known capabilities", "/v1/nodes/{n1}", op("add", "/properties", GOOD_CAPS)),
        get("validate known capabilities", validate),
        image("unknown secure boot", image_source=GLANCE_IMAGE, capabilities={"secure_boot": "y"}),
        get("validate unknown secure boot", validate),
        image(
            "capabilities as JSON",
            image_source=GLANCE_IMAGE,
            capabilities='{{"disk_label": "gpt"}}',
        ),
        get("validate capabilities as JSON", validate),
        image("capabilities not JSON", image_source=GLANCE_IMAGE, capabilities="boot_mode:uefi"),
        get("validate capabilities not JSON", validate),
    )


# a node's network_data as the network_data.json format has it (Ironic 39 checks it)
NETWORK_DATA = {
    "links": [{"id": "eth0", "type": "phy", "ethernet_mac_address": "52:54:00:ee:00:01"}],
    "networks": [
        {
            "id": "n4",
            "type": "ipv4",
            "link": "eth0",
            "network_id": "net",
            "ip_address": "192.0.2.5",
            "netmask": "255.255.255.0",
        }
    ],
    "services": [{"type": "dns", "address": "192.0.2.53"}],
}


def _network_data_checks() -> tuple[Step, ...]:
    """A node's network_data at create and PATCH: a whole document or empty."""
    bad_mac = {**NETWORK_DATA, "links": [{**NETWORK_DATA["links"][0], "ethernet_mac_address": "z"}]}
    vlan = {"id": "v5", "type": "vlan", "vlan_mac_address": "52:54:00:ee:00:02"}
    return (
        node("dt-nd-a", "n1", network_data=NETWORK_DATA),
        get("kept", "/v1/nodes/{n1}?fields=network_data"),
        Step("bad MAC", "POST", "/v1/nodes", {**NODE, "name": "dt-nd-b", "network_data": bad_mac}),
        Step(
            "no networks",
            "POST",
            "/v1/nodes",
            {**NODE, "name": "dt-nd-c", "network_data": {"links": []}},
        ),
        Step("null", "POST", "/v1/nodes", {**NODE, "name": "dt-nd-d", "network_data": None}, "n2"),
        get("null shown", "/v1/nodes/{n2}?fields=network_data"),
        patch("set whole to {}", "/v1/nodes/{n1}", op("replace", "/network_data", {})),
        patch("set whole to null", "/v1/nodes/{n1}", op("replace", "/network_data", None)),
        patch(
            "bad netmask inside",
            "/v1/nodes/{n1}",
            op("replace", "/network_data/networks/0/netmask", "255.0.255.0"),
        ),
        patch("vlan without its link", "/v1/nodes/{n1}", op("add", "/network_data/links/-", vlan)),
        patch(
            "vlan with its link",
            "/v1/nodes/{n1}",
            op("add", "/network_data/links/-", {**vlan, "vlan_link": "eth0", "vlan_id": 5}),
        ),
        get("after the changes", "/v1/nodes/{n1}?fields=network_data"),
        patch("removed", "/v1/nodes/{n1}", op("remove", "/network_data")),
        get("after remove", "/v1/nodes/{n1}?fields=network_data"),
    )


def _inspection_checks() -> tuple[Step, ...]:
    """The inspect verb on fake-hardware: the fake inspect interface back in manageable, its
    refusals (state, version, no-inspect, abort outside a wait) and the inventory answer."""
    provision, no_inspect = "/v1/nodes/{n1}/states/provision", "/v1/nodes/{n2}/states/provision"
    settled = (
        "/v1/nodes/{n1}?fields=uuid,provision_state,target_provision_state,last_error,reservation,"
        "inspection_finished_at,inspection_started_at"
    )
    return (
        node("dt-inspect-a", "n1"),
        node("dt-inspect-b", "n2", inspect_interface="no-inspect"),
        Step("from enroll", "PUT", provision, {"target": "inspect"}),
        Step("manage", "PUT", provision, {"target": "manage"}),
        Step("after manage", "GET", settled, settle=True),
        Step("below 1.6", "PUT", provision, {"target": "inspect"}, version="1.5"),
        Step("inspect", "PUT", provision, {"target": "inspect"}),
        Step("after inspect", "GET", settled, settle=True),
        Step("abort outside a wait", "PUT", provision, {"target": "abort"}),
        Step("inventory", "GET", "/v1/nodes/{n1}/inventory", version="1.81"),
        Step("inventory below 1.81", "GET", "/v1/nodes/{n1}/inventory", version="1.80"),
        Step("inventory of a missing node", "GET", "/v1/nodes/{missing}/inventory", version="1.81"),
        Step("manage no-inspect", "PUT", no_inspect, {"target": "manage"}),
        Step(
            "after manage no-inspect", "GET", "/v1/nodes/{n2}?fields=uuid,reservation", settle=True
        ),
        Step("inspect no-inspect", "PUT", no_inspect, {"target": "inspect"}),
        get("no-inspect kept", "/v1/nodes/{n2}?fields=provision_state,last_error"),
        Step("provide", "PUT", provision, {"target": "provide"}),
        Step("after provide", "GET", settled, settle=True),
        Step("from available", "PUT", provision, {"target": "inspect"}),
    )


def _agent_inspection_checks() -> tuple[Step, ...]:
    """An agent inspection on fake-hardware's fake boot interface: refused before anything
    changes, as Ironic's default [inspector] require_managed_boot refuses a boot interface
    that cannot boot the inspection ramdisk."""
    provision = "/v1/nodes/{n1}/states/provision"
    state = "/v1/nodes/{n1}?fields=uuid,provision_state,target_provision_state,reservation"
    return (
        node("dt-agent-inspect", "n1", inspect_interface="agent"),
        Step("manage", "PUT", provision, {"target": "manage"}),
        Step("after manage", "GET", state, settle=True),
        Step("inspect", "PUT", provision, {"target": "inspect"}),
        Step("after inspect", "GET", f"{state},last_error", settle=True),
        Step("abort", "PUT", provision, {"target": "abort"}, version="1.41"),
    )


def _continue_inspection_checks() -> tuple[Step, ...]:
    """The inspection ramdisk's report where no agent inspection waits (the compared Ironic
    boots no ramdisk): the lookup that finds no node in inspect wait, the version gates and
    the bodies refused."""
    path = "/v1/continue_inspection"
    report = {"inventory": {"interfaces": [{"name": "eth0", "mac_address": "52:54:00:3e:00:01"}]}}
    unknown = {"inventory": {"interfaces": [{"name": "eth0", "mac_address": "52:54:00:3e:00:09"}]}}
    return (
        node("dt-report", "n1"),
        port("p1", "n1", "52:54:00:3e:00:01"),
        Step("node not in inspect wait", "POST", path, report),
        Step("node not in inspect wait at 1.1", "POST", path, report, version="1.1"),
        Step("no node has the MAC", "POST", path, unknown),
        Step("below 1.84", "POST", path, report, version="1.83"),
        Step("node_uuid at 1.1", "POST", f"{path}?node_uuid={{n1}}", report, version="1.1"),
        Step("node_uuid of a node not waiting", "POST", f"{path}?node_uuid={{n1}}", report),
        Step("no inventory", "POST", path, {"error": None}),
        Step("no interfaces", "POST", path, {"inventory": {"interfaces": []}}),
        Step("interface without a MAC", "POST", path, {"inventory": {"interfaces": [{}]}}),
        Step(
            "no lookup information",
            "POST",
            path,
            {"inventory": {"interfaces": [{"mac_address": "not-a-mac"}]}},
        ),
        Step("inventory of the node", "GET", "/v1/nodes/{n1}/inventory", version="1.81"),
    )


def _raid_checks() -> tuple[Step, ...]:
    """PUT /states/raid, what 'baremetal node set|unset --target-raid-config' sends."""
    raid, no_raid = "/v1/nodes/{n1}/states/raid", "/v1/nodes/{n2}/states/raid"
    disk = {"size_gb": 10, "raid_level": "1"}
    root = {**disk, "is_root_volume": True}
    return (
        node("dt-raid-a", "n1"),
        node("dt-raid-b", "n2", raid_interface="no-raid"),
        Step("set", "PUT", raid, {"logical_disks": [disk, {**disk, "size_gb": "MAX"}]}),
        get("shown", "/v1/nodes/{n1}?fields=target_raid_config"),
        Step("unknown level", "PUT", raid, {"logical_disks": [{**disk, "raid_level": "7"}]}),
        Step("two roots", "PUT", raid, {"logical_disks": [root, root]}),
        Step("no disks", "PUT", raid, {"logical_disks": []}),
        Step("not an object", "PUT", raid, ["x"]),
        get("kept", "/v1/nodes/{n1}?fields=target_raid_config"),
        Step("unset", "PUT", raid, {}),
        get("unset shown", "/v1/nodes/{n1}?fields=target_raid_config"),
        Step("no-raid", "PUT", no_raid, {"logical_disks": [disk]}),
        Step("no-raid unset", "PUT", no_raid, {}),
        Step("below 1.12", "PUT", raid, {}, version="1.11"),
        Step("missing node", "PUT", "/v1/nodes/{missing}/states/raid", {}),
        Step(
            "missing node below 1.12", "PUT", "/v1/nodes/{missing}/states/raid", {}, version="1.11"
        ),
    )


def _clean_step_checks() -> tuple[Step, ...]:
    """A manual cleaning's steps, refused before anything runs: missing, malformed, or given
    with another verb; the node stays manageable."""
    provision = "/v1/nodes/{n1}/states/provision"
    settled = "/v1/nodes/{n1}?fields=uuid,provision_state,target_provision_state,last_error"
    step = {"interface": "deploy", "step": "erase_devices_metadata"}
    return (
        node("dt-clean", "n1"),
        Step("manage", "PUT", provision, {"target": "manage"}),
        Step("after manage", "GET", settled, settle=True),
        Step("clean without steps", "PUT", provision, {"target": "clean"}),
        Step("clean with no steps", "PUT", provision, {"target": "clean", "clean_steps": []}),
        Step("steps not a list", "PUT", provision, {"target": "clean", "clean_steps": step}),
        Step(
            "step without interface",
            "PUT",
            provision,
            {"target": "clean", "clean_steps": [{"step": "erase_devices_metadata"}]},
        ),
        Step(
            "unknown interface",
            "PUT",
            provision,
            {"target": "clean", "clean_steps": [{**step, "interface": "disk"}]},
        ),
        Step(
            "unknown key",
            "PUT",
            provision,
            {"target": "clean", "clean_steps": [{**step, "priority": 10}]},
        ),
        Step("steps with provide", "PUT", provision, {"target": "provide", "clean_steps": [step]}),
        Step("still manageable", "GET", settled, settle=True),
    )


def _offered_step_checks() -> tuple[Step, ...]:
    """User steps checked against the steps the node's interfaces offer: a manual cleaning
    naming a step fake-hardware's fake vendor interface offers cleans the node; a deploy
    giving the core step a priority is refused, one naming a step no interface offers is
    not. (A cleaning that fails is left out: Ironic 39 keeps its node's target
    ``manageable`` in ``clean failed``, which ``settle`` would wait on; its ``last_error`` is
    compared in ``test_user_steps.py``.)"""
    provision = "/v1/nodes/{n1}/states/provision"
    settled = (
        "/v1/nodes/{n1}?fields=uuid,provision_state,target_provision_state,last_error,maintenance"
    )
    core = {"interface": "deploy", "step": "deploy", "args": {}, "priority": 10}
    unknown = {"interface": "deploy", "step": "no_such_step", "args": {}, "priority": 10}

    def verb(name: str, **more: object) -> tuple[Step, Step]:
        return (
            Step(name, "PUT", provision, {"target": name.split()[0], **more}),
            Step(f"after {name}", "GET", settled, settle=True),
        )

    return (
        node("dt-offered-steps", "n1"),
        *verb("manage"),
        *verb("clean offered", clean_steps=[{"interface": "vendor", "step": "log_passthrough"}]),
        *verb("provide"),
        *verb("active core step", deploy_steps=[core]),
        *verb("active unknown", deploy_steps=[unknown]),
    )


def _deploy_step_checks() -> tuple[Step, ...]:
    """Deploy steps refused before anything runs: below 1.69, with another verb, malformed;
    the node stays available."""
    provision = "/v1/nodes/{n1}/states/provision"
    settled = "/v1/nodes/{n1}?fields=uuid,provision_state,target_provision_state,last_error"
    step = {"interface": "deploy", "step": "deploy", "args": {}, "priority": 100}
    return (
        node("dt-deploy-steps", "n1"),
        *(
            s
            for verb in ("manage", "provide")
            for s in (
                Step(verb, "PUT", provision, {"target": verb}),
                Step(f"after {verb}", "GET", settled, settle=True),
            )
        ),
        Step(
            "below 1.69",
            "PUT",
            provision,
            {"target": "active", "deploy_steps": [step]},
            version="1.68",
        ),
        Step("with manage", "PUT", provision, {"target": "manage", "deploy_steps": [step]}),
        Step(
            "without args and priority",
            "PUT",
            provision,
            {"target": "active", "deploy_steps": [{"interface": "deploy", "step": "deploy"}]},
        ),
        Step(
            "unknown interface",
            "PUT",
            provision,
            {"target": "active", "deploy_steps": [{**step, "interface": "network"}]},
        ),
        Step(
            "priority not a number",
            "PUT",
            provision,
            {"target": "active", "deploy_steps": [{**step, "priority": "high"}]},
        ),
        Step("still available", "GET", settled, settle=True),
    )


def _retirement_checks() -> tuple[Step, ...]:
    """A retired node: refused while available, torn down through its cleaning to
    manageable, refused by provide until it is no longer retired; one whose own
    automated_clean is false is provided and torn down without cleaning, to available even
    when retired."""
    fields = "uuid,provision_state,target_provision_state,last_error,retired,retired_reason"

    def verb(name: str, label: str, target: str) -> tuple[Step, Step]:
        return (
            Step(name, "PUT", f"/v1/nodes/{{{label}}}/states/provision", {"target": target}),
            Step(f"after {name}", "GET", f"/v1/nodes/{{{label}}}?fields={fields}", settle=True),
        )

    def retire(name: str, label: str, retired: bool, *more: dict[str, object]) -> Step:
        return patch(name, f"/v1/nodes/{{{label}}}", op("replace", "/retired", retired), *more)

    return (
        node("dt-retire", "n1"),
        *verb("manage", "n1", "manage"),
        *verb("provide", "n1", "provide"),
        retire("retire when available", "n1", True),
        *verb("deploy", "n1", "active"),
        retire("retire", "n1", True, op("add", "/retired_reason", "end of life")),
        *verb("undeploy a retired node", "n1", "deleted"),
        *verb("provide a retired node", "n1", "provide"),
        retire("no longer retired", "n1", False),
        *verb("provide again", "n1", "provide"),
        node("dt-retire-unclean", "n2", automated_clean=False),
        *verb("manage unclean", "n2", "manage"),
        *verb("provide unclean", "n2", "provide"),
        *verb("deploy unclean", "n2", "active"),
        retire("retire unclean", "n2", True),
        *verb("undeploy unclean", "n2", "deleted"),
    )


def _list_and_field_checks() -> tuple[Step, ...]:
    """?shard=, ?fields= on /detail lists and fields that are links, hardware interface names;
    then what metalwire records and Ironic refuses (allowed.py), last."""
    nodes = "/v1/nodes"
    return (
        node("dt-lists-a", "n1"),
        get("empty shard", "/v1/nodes?shard="),
        get("fields on the node /detail list", "/v1/nodes/detail?fields=name"),
        get("fields on the port /detail list", "/v1/ports/detail?fields=uuid"),
        get("links field of a list", "/v1/nodes?fields=links"),
        get("ports field of a node", "/v1/nodes/{n1}?fields=ports"),
        Step(
            "bios_interface Ironic lacks",
            "POST",
            nodes,
            {**NODE, "name": "dt-lists-b", "bios_interface": "dt-bogus"},
        ),
        patch(
            "console_interface Ironic lacks",
            "/v1/nodes/{n1}",
            op("replace", "/console_interface", "dt-bogus"),
        ),
        Step(
            "bios_interface of another hardware type",
            "POST",
            nodes,
            {**NODE, "name": "dt-lists-c", "bios_interface": "redfish"},
        ),
        patch(
            "console_interface of another hardware type",
            "/v1/nodes/{n1}",
            op("replace", "/console_interface", "ipmitool-socat"),
        ),
        Step(
            "unknown chassis",
            "POST",
            nodes,
            {**NODE, "name": "dt-lists-d", "chassis_uuid": "{missing}"},
        ),
        patch("unknown chassis patched", "/v1/nodes/{n1}", op("add", "/chassis_uuid", "{missing}")),
    )


def _conductors() -> tuple[Step, ...]:
    """The conductor list and show (1.49) and what they feed: a node's conductor, the node
    list's conductor filter, a driver's hosts. Both servers run as host bench-ironic."""
    host = "/v1/conductors/bench-ironic"
    return (
        node("dt-cond", "n1"),
        get("conductor list", "/v1/conductors"),
        get("conductor list detailed", "/v1/conductors?detail=true"),
        get("conductor list some fields", "/v1/conductors?fields=hostname,alive"),
        get("conductor list other fields", "/v1/conductors?fields=drivers,created_at,links"),
        get("conductor list unknown field", "/v1/conductors?fields=uuid"),
        get("conductor list fields and detail", "/v1/conductors?fields=hostname&detail=true"),
        get("conductor list page", "/v1/conductors?limit=1"),
        get("conductor list bad limit", "/v1/conductors?limit=0"),
        get("conductor list by hostname", "/v1/conductors?sort_key=hostname&sort_dir=desc"),
        get("conductor list by alive", "/v1/conductors?sort_key=alive"),
        get("conductor list by drivers", "/v1/conductors?sort_key=drivers"),
        get("conductor list by nothing", "/v1/conductors?sort_key=nonsense"),
        get("conductor list bad direction", "/v1/conductors?sort_dir=up"),
        get("conductor list after the last", "/v1/conductors?marker=bench-ironic"),
        get("conductor list missing marker", "/v1/conductors?marker=nowhere"),
        get("conductor list empty marker", "/v1/conductors?marker="),
        get("conductor list marker without a host", "/v1/conductors?marker=:8080"),
        get("conductor list marker with a bad port", "/v1/conductors?marker=nowhere:http"),
        get("conductor list unknown parameter", "/v1/conductors?driver=ipmi"),
        get("conductor show", host),
        get("conductor show some fields", f"{host}?fields=alive,drivers"),
        get("conductor show unknown field", f"{host}?fields=nonsense"),
        get("conductor show missing", "/v1/conductors/nowhere"),
        get("conductor show without a host", "/v1/conductors/:8080"),
        get("conductor show with a bad port", "/v1/conductors/nowhere:http"),
        get("node conductor", "/v1/nodes/{n1}?fields=conductor"),
        get("node conductor below 1.49", "/v1/nodes/{n1}?fields=conductor", version="1.48"),
        get("nodes of the conductor", "/v1/nodes?conductor=bench-ironic"),
        get("nodes of no conductor", "/v1/nodes?conductor=nowhere"),
        get("conductor filter below 1.49", "/v1/nodes?conductor=bench-ironic", version="1.48"),
        get("driver hosts", "/v1/drivers/fake-hardware?fields=hosts"),
    )


def _chassis() -> tuple[Step, ...]:
    """Chassis: their own endpoints, and a node's chassis_uuid naming one."""
    one = "/v1/chassis/{c1}"
    return (
        Step(
            "create chassis",
            "POST",
            "/v1/chassis",
            {"description": "dt rack", "extra": {"row": "b"}},
            "c1",
        ),
        Step("create chassis without a body field", "POST", "/v1/chassis", {}, "c2"),
        Step("create chassis, long description", "POST", "/v1/chassis", {"description": "x" * 256}),
        Step("create chassis, unknown field", "POST", "/v1/chassis", {"name": "dt"}),
        Step("create chassis, bad uuid", "POST", "/v1/chassis", {"uuid": "dt-rack"}),
        get("chassis show", one),
        get("chassis show fields", f"{one}?fields=uuid,extra"),
        get("chassis show unknown field", f"{one}?fields=name"),
        get("chassis show missing", "/v1/chassis/{missing}"),
        get("chassis show not a uuid", "/v1/chassis/dt-rack"),
        get("chassis list", "/v1/chassis"),
        get("chassis list detail", "/v1/chassis/detail"),
        get("chassis list detail query", "/v1/chassis?detail=true"),
        get("chassis list fields", "/v1/chassis?fields=description"),
        get("chassis list sorted", "/v1/chassis?sort_key=description&sort_dir=desc"),
        get("chassis list sorted by extra", "/v1/chassis?sort_key=extra"),
        get("chassis list limit", "/v1/chassis?limit=1"),
        get("chassis list unknown filter", "/v1/chassis?node=x"),
        patch("chassis patch", one, op("replace", "/description", "dt rack 2")),
        patch("chassis patch extra", one, op("add", "/extra/slot", 3)),
        patch("chassis patch remove description", one, op("remove", "/description")),
        patch("chassis patch uuid", one, op("replace", "/uuid", "{missing}")),
        patch("chassis patch unknown field", one, op("add", "/name", "dt")),
        patch("chassis patch missing", "/v1/chassis/{missing}", op("add", "/extra/a", 1)),
        patch("chassis patch not a uuid", "/v1/chassis/dt-rack", op("add", "/extra/a", 1)),
        Step("chassis delete not a uuid", "DELETE", "/v1/chassis/dt-rack"),
        get("chassis show nodes field", f"{one}?fields=uuid,nodes"),
        get("chassis list links field", "/v1/chassis?fields=links"),
        node("dt-chassis-a", "n1", chassis_uuid="{c1}"),
        node("dt-chassis-b", "n2"),
        get("chassis nodes", f"{one}/nodes"),
        get("chassis nodes detail", f"{one}/nodes/detail"),
        get("chassis nodes of a missing chassis", "/v1/chassis/{missing}/nodes"),
        get("chassis nodes with fields", f"{one}/nodes?fields=uuid,chassis_uuid"),
        get("chassis nodes, a node below", f"{one}/nodes/{{n1}}"),
        get("node list by chassis", "/v1/nodes?chassis_uuid={c1}"),
        get("node list by an empty chassis", "/v1/nodes?chassis_uuid={c2}"),
        patch("node into a chassis", "/v1/nodes/{n2}", op("add", "/chassis_uuid", "{c2}")),
        Step("chassis delete with nodes", "DELETE", one),
        patch(
            "node leaves its chassis at 1.24",
            "/v1/nodes/{n1}",
            op("remove", "/chassis_uuid"),
            version="1.24",
        ),
        patch("node leaves its chassis", "/v1/nodes/{n1}", op("remove", "/chassis_uuid")),
        Step("chassis delete", "DELETE", one),
        get("chassis show deleted", one),
        Step("chassis delete missing", "DELETE", "/v1/chassis/{missing}"),
    )


_TEMPLATE_STEP = {"interface": "raid", "step": "delete_configuration", "args": {}, "priority": 5}


def _allocations() -> tuple[Step, ...]:
    """Allocations (1.52): a node reserved by resource class, one none fits, the node's
    allocation, the list's filters, a change, the version gate, and a release."""
    one = "/v1/allocations/{a1}"
    create = "/v1/allocations"
    return (
        node("alloc-node", "n1", resource_class="mw-alloc"),
        *power("power off", "n1", "power off"),  # Ironic's manage sets no power state
        *(
            step
            for verb in ("manage", "provide")
            for step in (
                Step(verb, "PUT", "/v1/nodes/{n1}/states/provision", {"target": verb}),
                Step(f"after {verb}", "GET", "/v1/nodes/{n1}", settle=True),
            )
        ),
        Step("create allocation", "POST", create, {"resource_class": "mw-alloc"}, "a1"),
        Step("allocation done", "GET", one, settle=True),
        get("node allocated", "/v1/nodes/{n1}?fields=instance_uuid,allocation_uuid"),
        get("the node's allocation", "/v1/nodes/{n1}/allocation"),
        Step("create allocation, none fits", "POST", create, {"resource_class": "mw-alloc"}, "a2"),
        Step("allocation none fits done", "GET", "/v1/allocations/{a2}", settle=True),
        Step("create allocation, no resource class", "POST", create, {}),
        Step(
            "create allocation, unknown candidate",
            "POST",
            create,
            {"resource_class": "mw-alloc", "candidate_nodes": ["no-such-node"]},
        ),
        get("allocation list", "/v1/allocations"),
        get("allocation list by node", "/v1/allocations?node={n1}"),
        get("allocation list by state", "/v1/allocations?state=error"),
        get("allocation list by resource class", "/v1/allocations?resource_class=mw-alloc"),
        get("allocation show fields", f"{one}?fields=uuid,state,node_uuid"),
        get("allocation show missing", "/v1/allocations/{missing}"),
        patch("allocation patch name", one, op("add", "/name", "alloc-a")),
        patch("allocation patch resource class", one, op("replace", "/resource_class", "x")),
        get("allocation by name", "/v1/allocations/alloc-a"),
        get("allocation list at 1.51", create, version="1.51"),
        get("allocation show at 1.51", one, version="1.51"),
        get("the node's allocation at 1.51", "/v1/nodes/{n1}/allocation", version="1.51"),
        Step("allocation create at 1.51", "POST", create, {"resource_class": "x"}, version="1.51"),
        Step("allocation delete at 1.51", "DELETE", one, version="1.51"),
        Step("allocation delete", "DELETE", one),
        get("node released", "/v1/nodes/{n1}?fields=instance_uuid,allocation_uuid"),
        Step("allocation delete, the one that failed", "DELETE", "/v1/allocations/{a2}"),
        Step("allocation delete missing", "DELETE", "/v1/allocations/{missing}"),
    )


def _deploy_templates() -> tuple[Step, ...]:
    """Deploy templates (1.55): their endpoints, bad input, and the version gate."""
    one = "/v1/deploy_templates/{t1}"
    steps = [_TEMPLATE_STEP]
    twice = [_TEMPLATE_STEP, {**_TEMPLATE_STEP, "priority": 7}]
    create = "/v1/deploy_templates"
    return (
        Step(
            "create template",
            "POST",
            create,
            {"name": "CUSTOM_DT_A", "steps": steps, "extra": {"a": 1}, "description": "x"},
            "t1",
        ),
        Step(
            "create template, name taken", "POST", create, {"name": "CUSTOM_DT_A", "steps": steps}
        ),
        Step(
            "create template, uuid taken",
            "POST",
            create,
            {"uuid": "{t1}", "name": "CUSTOM_DT_B", "steps": steps},
        ),
        Step("create template, no steps", "POST", create, {"name": "CUSTOM_DT_C", "steps": []}),
        Step("create template, no name", "POST", create, {"steps": steps}),
        Step("create template, bad name", "POST", create, {"name": "dt-lower", "steps": steps}),
        Step(
            "create template, step twice", "POST", create, {"name": "CUSTOM_DT_C", "steps": twice}
        ),
        Step(
            "create template, bad interface",
            "POST",
            create,
            {"name": "CUSTOM_DT_C", "steps": [{**_TEMPLATE_STEP, "interface": "disk"}]},
        ),
        Step(
            "create template, priority as digits",
            "POST",
            create,
            {"name": "CUSTOM_DT_D", "steps": [{**_TEMPLATE_STEP, "priority": "9"}]},
            "t2",
        ),
        get("template show", one),
        get("template show by name", "/v1/deploy_templates/CUSTOM_DT_A"),
        get("template show fields", f"{one}?fields=name,steps"),
        get("template show unknown field", f"{one}?fields=description"),
        get("template show missing", "/v1/deploy_templates/{missing}"),
        get("template show bad ident", "/v1/deploy_templates/dt%20a"),
        get("template list", "/v1/deploy_templates"),
        get("template list detail", "/v1/deploy_templates/detail"),
        get("template list detail query", "/v1/deploy_templates?detail=true"),
        get("template list sorted", "/v1/deploy_templates?sort_key=name&sort_dir=desc"),
        get("template list sorted by steps", "/v1/deploy_templates?sort_key=steps"),
        get("template list limit", "/v1/deploy_templates?limit=1"),
        get("template list at 1.54", "/v1/deploy_templates", version="1.54"),
        Step(
            "template create at 1.54",
            "POST",
            create,
            {"name": "CUSTOM_DT_E", "steps": steps},
            version="1.54",
        ),
        patch(
            "template patch", one, op("add", "/extra/b", 2), op("replace", "/steps/0/priority", 3)
        ),
        patch("template patch name", one, op("replace", "/name", "CUSTOM_DT_F")),
        patch("template patch name taken", one, op("replace", "/name", "CUSTOM_DT_D")),
        patch("template patch no steps", one, op("replace", "/steps", [])),
        patch("template patch remove name", one, op("remove", "/name")),
        patch("template patch uuid", one, op("replace", "/uuid", "{missing}")),
        patch("template patch add description", one, op("add", "/description", "x")),
        patch("template patch replace description", one, op("replace", "/description", "x")),
        patch("template patch unknown field", one, op("add", "/owner", "x")),
        patch("template patch missing", "/v1/deploy_templates/{missing}", op("add", "/extra/a", 1)),
        get("template show digits", "/v1/deploy_templates/{t2}"),
        Step("template delete", "DELETE", one),
        Step("template delete digits", "DELETE", "/v1/deploy_templates/{t2}"),
        Step("template delete missing", "DELETE", "/v1/deploy_templates/{missing}"),
    )


def _network_events() -> tuple[Step, ...]:
    """``POST /v1/events`` (1.54) as Neutron's ironic notifier posts it, and what Ironic's
    schema refuses."""
    sent = {
        "event": "network.bind_port",
        "port_id": "6f1a6a2c-54e4-4b68-9d8a-2b9b0e2d6c11",
        "mac_address": "52:54:00:de:54:01",
        "status": "ACTIVE",
        "device_id": "f7d6f0a3-7c2e-4b7e-9c1d-4f1f5c9e3a21",
        "binding:host_id": "1be26c0b-03f2-4d2d-ae87-c02d7f33c123",
        "binding:vnic_type": "baremetal",
    }
    deleted = {**sent, "event": "network.delete_port", "status": "DELETED"}

    def post(name: str, body: object, version: str | None = None) -> Step:
        return Step(name, "POST", "/v1/events", body, version=version)

    return (
        post("events", {"events": [sent, deleted]}),
        post("events at 1.54", {"events": [sent]}, version="1.54"),
        post("events at 1.53", {"events": [sent]}, version="1.53"),
        post("no events", {}),
        post("empty events", {"events": []}),
        post("unknown event", {"events": [{**sent, "event": "network.update_port"}]}),
        post("port_id not a UUID", {"events": [{**sent, "port_id": "p-1"}]}),
        post("bad MAC", {"events": [{**sent, "mac_address": "52:54:00"}]}),
        post("no status", {"events": [{k: v for k, v in sent.items() if k != "status"}]}),
        post("extra member", {"events": [{**sent, "network_id": "n"}]}),
        post("null host", {"events": [{**sent, "binding:host_id": None}]}),
        get("events list", "/v1/events"),
    )


def _member_lists() -> tuple[Step, ...]:
    """Lists and shows of ports and portgroups: link fields, nested lists' filters, sort keys,
    and identifiers; run in the portgroups scenario (node n1 named dt-groups, portgroups g1
    named dt-bond1 and g2, ports p1 of g1 and p2 of g2)."""
    return (
        get("ports with their links", "/v1/ports?node={n1}&fields=uuid,links"),
        get("a port's links", "/v1/ports/{p1}?fields=links"),
        get("a portgroup's links", "/v1/portgroups/{g2}?fields=uuid,links"),
        get("a portgroup's ports link", "/v1/portgroups/{g2}?fields=uuid,ports"),
        get(
            "portgroups with their ports link",
            "/v1/portgroups?address=52:54:00:bb:00:01&fields=uuid,ports",
        ),
        get("a group's ports by node", "/v1/portgroups/{g2}/ports?node={n1}"),
        get("a group's ports by another group", "/v1/portgroups/{g2}/ports?portgroup={g1}"),
        get("a group's ports by shard", "/v1/portgroups/{g2}/ports?shard=s1", version="1.82"),
        get("a node's ports by another node", "/v1/nodes/{n1}/ports?node={missing}"),
        get("a node's ports by a group", "/v1/nodes/{n1}/ports?portgroup={g2}"),
        get("a node's groups by another node", "/v1/nodes/{n1}/portgroups?node={missing}&limit=1"),
        get("ports by node name before names", "/v1/ports?node=dt-groups", version="1.4"),
        get("ports by node name", "/v1/ports?node=dt-groups", version="1.5"),
        get("a port below a node", "/v1/nodes/{n1}/ports/{p2}"),
        get("a port below a portgroup", "/v1/portgroups/{g2}/ports/{p2}"),
        get("a portgroup below a node", "/v1/nodes/{n1}/portgroups/{g2}"),
        get("ports by node_id", "/v1/ports?sort_key=node_id"),
        get("ports by portgroup_id", "/v1/ports?sort_key=portgroup_id&sort_dir=desc"),
        get("portgroups by node_id", "/v1/portgroups?sort_key=node_id&limit=1"),
        get("ports by node_uuid", "/v1/ports?sort_key=node_uuid"),
        get("ports in capitals' order", "/v1/ports?node={n1}&sort_dir=DESC"),
        get("ports in detail, capitalised", "/v1/ports?node={n1}&detail=True"),
        get("a node's ports by its name", "/v1/nodes/dt-groups/ports"),
        get("a node's groups by its name", "/v1/nodes/dt-groups/portgroups"),
        get("a group's ports by its name", "/v1/portgroups/dt-bond1/ports"),
        get("a port by a malformed name", "/v1/ports/bad%20name!"),
        get("a portgroup by a malformed name", "/v1/portgroups/bad%20name!"),
        Step("a port deleted by a name", "DELETE", "/v1/ports/no-such-port"),
    )


def _portgroup_writes() -> tuple[Step, ...]:
    """Creates and patches of portgroups and ports with values at their edges."""
    group = {"node_uuid": "{n1}"}
    return (
        *(
            Step(f"{name} before 1.26", "POST", "/v1/portgroups", {**group, **body}, version="1.25")
            for name, body in (
                ("null mode", {"mode": None}),
                ("empty mode", {"mode": ""}),
                ("empty properties", {"properties": {}}),
                ("null properties", {"properties": None}),
                ("a mode", {"mode": "802.3ad"}),
                ("properties", {"properties": {"miimon": "100"}}),
            )
        ),
        Step("empty name", "POST", "/v1/portgroups", {**group, "name": ""}),
        patch("node_uuid removed", "/v1/portgroups/{g2}", op("remove", "/node_uuid")),
        Step(
            "available_for_dynamic_portgroup as a string",
            "POST",
            "/v1/ports",
            {
                "node_uuid": "{n1}",
                "address": "52:54:00:bb:00:0a",
                "available_for_dynamic_portgroup": "true",
            },
        ),
        patch(
            "available_for_dynamic_portgroup patched to a string",
            "/v1/ports/{p1}",
            op("replace", "/available_for_dynamic_portgroup", "false"),
        ),
    )


def _vif_requests() -> tuple[Step, ...]:
    """What POST and DELETE /vifs take, before any network interface sees it (node n1 on
    the noop interface, port p1)."""
    vifs = "/v1/nodes/{n1}/vifs"
    both = {"id": "{vif2}", "port_uuid": "{p1}", "portgroup_uuid": "{missing}"}
    return (
        Step("both port and portgroup", "POST", vifs, both, version="1.67"),
        Step("both before 1.67", "POST", vifs, both, version="1.66"),
        Step("a port", "POST", vifs, {"id": "{vif2}", "port_uuid": "{p1}"}, version="1.67"),
        Step(
            "a missing port",
            "POST",
            vifs,
            {"id": "{vif2}", "port_uuid": "{missing}"},
            version="1.67",
        ),
        Step(
            "a port before 1.67",
            "POST",
            vifs,
            {"id": "{vif2}", "port_uuid": "{p1}"},
            version="1.66",
        ),
        Step("an id no name", "POST", vifs, {"id": "bad id!"}),
        Step("a number id", "POST", vifs, {"id": 5}),
        Step("a name id", "POST", vifs, {"id": "vif-name_1"}),
        Step("a list body", "POST", vifs, [{"id": "{vif2}"}]),
        Step("null body", "POST", vifs, None),
        Step("detach a bad id", "DELETE", vifs + "/bad%20id!"),
        Step("detach a name", "DELETE", vifs + "/vif-name_1"),
        get("list before 1.28", vifs, version="1.27"),
        Step("attach before 1.28", "POST", vifs, {"id": "{vif2}"}, version="1.27"),
        Step("detach before 1.28", "DELETE", vifs + "/{vif2}", version="1.27"),
        Step("attach to a missing node", "POST", "/v1/nodes/{missing}/vifs", {"id": "{vif2}"}),
        get("list of a missing node", "/v1/nodes/{missing}/vifs"),
        Step("detach on a missing node", "DELETE", "/v1/nodes/{missing}/vifs/{vif2}"),
        Step("attach by node name", "POST", "/v1/nodes/dt-vifs/vifs", {"id": "{vif2}"}),
        Step("detach by node name", "DELETE", "/v1/nodes/dt-vifs/vifs/{vif2}"),
    )


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "root and versions",
        (
            get("root", "/"),
            get("v1", "/v1/"),
            get("version above the maximum", "/v1/nodes", version="1.999"),
            get("version below the minimum", "/v1/nodes", version="1.0"),
            get("malformed version", "/v1/nodes", version="one.two"),
            get("major version 2", "/v1/nodes", version="2.1"),
            get("unknown path", "/v1/nowhere"),
        ),
    ),
    Scenario(
        "enrol a node",
        (
            node("dt-enrol", "n1", description="first", extra={"rack": "7"}),
            get("show by uuid", "/v1/nodes/{n1}"),
            get("show by name", "/v1/nodes/dt-enrol"),
            get("list", "/v1/nodes"),
            get("list detail", "/v1/nodes/detail"),
            get("list with fields", "/v1/nodes?fields=uuid,name,extra"),
            get("list with created_at", "/v1/nodes?fields=uuid,created_at,updated_at"),
            get("show with fields", "/v1/nodes/{n1}?fields=uuid,driver"),
            get("states", "/v1/nodes/{n1}/states"),
            get("states at 1.11", "/v1/nodes/{n1}/states", version="1.11"),
            get("states at 1.74", "/v1/nodes/{n1}/states", version="1.74"),
            get("traits", "/v1/nodes/{n1}/traits"),
            get("history", "/v1/nodes/{n1}/history"),
            get("vifs", "/v1/nodes/{n1}/vifs"),
            get("node ports", "/v1/nodes/{n1}/ports"),
            get("node portgroups", "/v1/nodes/{n1}/portgroups"),
            get("node volume", "/v1/nodes/{n1}/volume"),
        ),
    ),
    Scenario(
        "node create errors",
        (
            node("dt-errors", "n1"),
            Step("unknown field", "POST", "/v1/nodes", {**NODE, "colour": "red"}),
            Step("no driver", "POST", "/v1/nodes", {"name": "dt-nodriver"}),
            Step("unknown driver", "POST", "/v1/nodes", {"driver": "no-such-driver"}),
            Step(
                "unknown network interface",
                "POST",
                "/v1/nodes",
                {**NODE, "network_interface": "bogus"},
            ),
            Step("duplicate name", "POST", "/v1/nodes", {**NODE, "name": "dt-errors"}),
            Step("duplicate uuid", "POST", "/v1/nodes", {**NODE, "uuid": "{n1}"}),
            Step("invalid name", "POST", "/v1/nodes", {**NODE, "name": "not a hostname!"}),
            *(
                Step(f"reserved name {name}", "POST", "/v1/nodes", {**NODE, "name": name})
                for name in ("detail", "validate", "maintenance")
            ),
            patch("renamed to a reserved name", "/v1/nodes/{n1}", op("replace", "/name", "states")),
            Step("invalid uuid", "POST", "/v1/nodes", {**NODE, "uuid": "not-a-uuid"}),
            Step("description too long", "POST", "/v1/nodes", {**NODE, "description": "d" * 4097}),
            Step(
                "description at the limit",
                "POST",
                "/v1/nodes",
                {**NODE, "name": "dt-long-description", "description": "d" * 4096},
            ),
            Step("body not an object", "POST", "/v1/nodes", ["driver"]),
            Step("read-only field", "POST", "/v1/nodes", {**NODE, "provision_state": "active"}),
            Step("owner of another project", "POST", "/v1/nodes", {**NODE, "owner": "o1"}),
            Step(
                "conductor group no conductor serves",
                "POST",
                "/v1/nodes",
                {**NODE, "conductor_group": "cg1"},
            ),
        ),
    ),
    Scenario(
        "node patch",
        (
            node("dt-patch", "n1"),
            patch("add extra", "/v1/nodes/{n1}", op("add", "/extra/foo", "bar")),
            patch("replace description", "/v1/nodes/{n1}", op("replace", "/description", "d")),
            patch("remove extra", "/v1/nodes/{n1}", op("remove", "/extra/foo")),
            patch("set properties", "/v1/nodes/{n1}", op("add", "/properties/cpus", 4)),
            patch("conductor group", "/v1/nodes/{n1}", op("add", "/conductor_group", "Rack-A")),
            patch("conductor group removed", "/v1/nodes/{n1}", op("remove", "/conductor_group")),
            patch(
                "conductor group emptied", "/v1/nodes/{n1}", op("replace", "/conductor_group", "")
            ),
            Step(
                "conductor group null on create",
                "POST",
                "/v1/nodes",
                {**NODE, "name": "dt-node-null-group", "conductor_group": None},
            ),
            patch(
                "reset_interfaces without a driver",
                "/v1/nodes/{n1}?reset_interfaces=true",
                op("add", "/extra/r", 1),
            ),
            patch(
                "reset_interfaces before 1.45",
                "/v1/nodes/{n1}?reset_interfaces=true",
                op("replace", "/driver", "fake-hardware"),
                version="1.44",
            ),
            patch(
                "reset_interfaces with the same driver",
                "/v1/nodes/{n1}?reset_interfaces=true",
                op("replace", "/driver", "fake-hardware"),
            ),
            patch(
                "reset_interfaces false without a driver",
                "/v1/nodes/{n1}?reset_interfaces=false",
                op("add", "/extra/r", 2),
            ),
            patch(
                "reset_interfaces not a boolean",
                "/v1/nodes/{n1}?reset_interfaces=maybe",
                op("replace", "/driver", "fake-hardware"),
            ),
            patch("lessee", "/v1/nodes/{n1}", op("add", "/lessee", "project-l")),
            patch("lessee removed", "/v1/nodes/{n1}", op("remove", "/lessee")),
            patch(
                "instance_info from the program",
                "/v1/nodes/{n1}",
                op("add", "/instance_info/root_gb", 10),
            ),
            patch(
                "instance_info key removed",
                "/v1/nodes/{n1}",
                op("remove", "/instance_info/root_gb"),
            ),
            patch(
                "description too long", "/v1/nodes/{n1}", op("replace", "/description", "d" * 4097)
            ),
            patch("rename", "/v1/nodes/{n1}", op("replace", "/name", "dt-patched")),
            patch("unknown field", "/v1/nodes/{n1}", op("replace", "/colour", "red")),
            patch("remove missing key", "/v1/nodes/{n1}", op("remove", "/extra/absent")),
            patch("read-only field", "/v1/nodes/{n1}", op("replace", "/provision_state", "active")),
            patch("uuid", "/v1/nodes/{n1}", op("replace", "/uuid", "{missing}")),
            patch("bad op", "/v1/nodes/{n1}", op("frobnicate", "/extra/x", 1)),
            patch("unknown driver", "/v1/nodes/{n1}", op("replace", "/driver", "nope")),
            Step("not a list", "PATCH", "/v1/nodes/{n1}", {"op": "add"}),
            patch("test op", "/v1/nodes/{n1}", op("test", "/name", "dt-patched")),
            patch(
                "replace all of extra", "/v1/nodes/{n1}", op("replace", "/extra", {"a": {"b": 1}})
            ),
            patch("nested add", "/v1/nodes/{n1}", op("add", "/extra/a/c", 2)),
            patch("slash in a key", "/v1/nodes/{n1}", op("add", "/extra/x~1y", 1)),
            patch("tilde in a key", "/v1/nodes/{n1}", op("add", "/extra/x~0y", 1)),
            patch("dot in a key", "/v1/nodes/{n1}", op("add", "/extra/x.y", 1)),
            patch("empty key", "/v1/nodes/{n1}", op("add", "/extra/", 1)),
            patch(
                "member other than op, path and value",
                "/v1/nodes/{n1}",
                {**op("add", "/extra/x", 1), "from": "/extra/a"},
            ),
            patch(
                "field above the version before a malformed path",
                "/v1/nodes/{n1}",
                op("add", "/instance_name", "i"),
                op("add", "/extra/x.y", 1),
                version="1.103",
            ),
            patch("add to a missing parent", "/v1/nodes/{n1}", op("add", "/extra/no/deeper", 1)),
            patch("remove a required field", "/v1/nodes/{n1}", op("remove", "/driver")),
            patch("reset network_interface", "/v1/nodes/{n1}", op("remove", "/network_interface")),
            patch("no path", "/v1/nodes/{n1}", {"op": "add", "value": 1}),
            patch("empty patch", "/v1/nodes/{n1}"),
            patch(
                "maintenance with a reason",
                "/v1/nodes/{n1}",
                op("replace", "/maintenance", True),
                op("replace", "/maintenance_reason", "r"),
            ),
            patch("missing node", "/v1/nodes/{missing}", op("add", "/extra/foo", "bar")),
        ),
    ),
    Scenario(
        "missing objects",
        (
            get("node by uuid", "/v1/nodes/{missing}"),
            get("node by name", "/v1/nodes/dt-nobody"),
            get("port", "/v1/ports/{missing}"),
            get("portgroup", "/v1/portgroups/{missing}"),
            get("portgroup by name", "/v1/portgroups/dt-nogroup"),
            get("vifs of a missing node", "/v1/nodes/{missing}/vifs"),
            get("history of a missing node", "/v1/nodes/{missing}/history"),
            get("volume of a missing node", "/v1/nodes/{missing}/volume"),
            get("volume connectors of a missing node", "/v1/nodes/{missing}/volume/connectors"),
            get("volume connectors by an unknown filter", "/v1/volume/connectors?colour=red"),
            get("volume targets by an unknown filter", "/v1/volume/targets?colour=red"),
            get("volume targets by project", "/v1/volume/targets?project=p1"),
            get("volume connectors detail path", "/v1/volume/connectors/detail"),
            get("volume targets detail path", "/v1/volume/targets/detail"),
            Step("patch volume target by name", "PATCH", "/v1/volume/targets/t-1", []),
            Step("delete volume connector by name", "DELETE", "/v1/volume/connectors/c-1"),
            Step("delete node", "DELETE", "/v1/nodes/{missing}"),
            Step("delete port", "DELETE", "/v1/ports/{missing}"),
            Step("delete portgroup", "DELETE", "/v1/portgroups/{missing}"),
            Step("attach to a missing node", "POST", "/v1/nodes/{missing}/vifs", {"id": "{vif1}"}),
            Step(
                "port on a missing node",
                "POST",
                "/v1/ports",
                {"node_uuid": "{missing}", "address": "52:54:00:00:00:01"},
            ),
            Step(
                "portgroup on a missing node", "POST", "/v1/portgroups", {"node_uuid": "{missing}"}
            ),
        ),
    ),
    Scenario(
        "node list filters",
        (
            node("dt-filter-a", "n1", resource_class="gold", description="alpha node"),
            node("dt-filter-b", "n2", resource_class="silver"),
            patch(
                "owner and lessee of a",
                "/v1/nodes/{n1}",
                op("add", "/owner", "o1"),
                op("add", "/lessee", "l1"),
            ),
            patch("owner of b", "/v1/nodes/{n2}", op("add", "/owner", "o2")),
            patch("maintenance on b", "/v1/nodes/{n2}", op("replace", "/maintenance", True)),
            get("maintenance=true", "/v1/nodes?maintenance=true"),
            *(
                get(f"sorted by {key}", f"/v1/nodes?sort_key={key}&limit=1")
                for key in (
                    *("name", "driver", "power_state", "provision_updated_at", "reservation"),
                    *("owner", "lessee", "shard", "parent_node", "instance_uuid", "fault"),
                    *("console_enabled", "maintenance_reason", "retired", "protected"),
                    *("description", "boot_mode", "secure_boot", "network_interface"),
                    *("last_error", "inspection_started_at", "instance_name"),
                    *("disable_power_off", "automated_clean", "conductor_group"),
                    # Ironic's JSON columns and list: not sort keys there either
                    *("clean_step", "traits"),
                    # Ironic's own columns, which metalwire has not
                    *("chassis_id", "allocation_id", "conductor_affinity", "version"),
                )
            ),
            get("maintenance=false", "/v1/nodes?maintenance=false"),
            get("provision_state", "/v1/nodes?provision_state=enroll"),
            get("driver", "/v1/nodes?driver=fake-hardware"),
            get("resource_class", "/v1/nodes?resource_class=gold"),
            get("conductor_group", "/v1/nodes?conductor_group=cg1"),
            get("owner", "/v1/nodes?owner=o2"),
            get("lessee", "/v1/nodes?lessee=l1"),
            get("project", "/v1/nodes?project=l1"),
            get("description_contains", "/v1/nodes?description_contains=alpha"),
            get("associated=false", "/v1/nodes?associated=false"),
            get("associated=true", "/v1/nodes?associated=true"),
            get("retired", "/v1/nodes?retired=false"),
            get("fault", "/v1/nodes?fault=power%20failure"),
            get("limit and sort", "/v1/nodes?limit=1&sort_key=name&sort_dir=desc"),
            get("sorted by description", "/v1/nodes?sort_key=description&sort_dir=desc"),
            get("sorted by power_state", "/v1/nodes?sort_key=power_state"),
            get("sorted by shard", "/v1/nodes?sort_key=shard&sort_dir=desc"),
            get("sorted by retired", "/v1/nodes?sort_key=retired&sort_dir=desc"),
            get("sorted by properties", "/v1/nodes?sort_key=properties"),
            get("bad sort_dir", "/v1/nodes?sort_dir=sideways"),
            get("bad sort_key", "/v1/nodes?sort_key=colour"),
            get("bad limit", "/v1/nodes?limit=-1"),
            get("bad maintenance", "/v1/nodes?maintenance=perhaps"),
            get("bad field", "/v1/nodes?fields=colour"),
            get("unknown filter", "/v1/nodes?colour=red"),
            get("detail with filter", "/v1/nodes/detail?owner=o1"),
            get("detail=true", "/v1/nodes?detail=true&owner=o2"),
            get("detail=true on /detail", "/v1/nodes/detail?detail=true"),
            get("instance_uuid", "/v1/nodes?instance_uuid={missing}"),
            get("instance_uuid not a UUID", "/v1/nodes?instance_uuid=vm-1"),
            get("unknown provision_state", "/v1/nodes?provision_state=avaliable"),
            get("unknown fault", "/v1/nodes?fault=power"),
            get("chassis_uuid", "/v1/nodes?chassis_uuid={missing}"),
            get("conductor", "/v1/nodes?conductor=nowhere"),
            get("marker", "/v1/nodes?marker={n1}&sort_key=created_at"),
            get("unknown marker", "/v1/nodes?marker={missing}"),
            get("sharded", "/v1/nodes?sharded=true"),
            get("parent_node", "/v1/nodes?parent_node={n1}"),
            get("instance_name", "/v1/nodes?instance_name=vm1"),
        ),
    ),
    Scenario(
        "ports",
        (
            node("dt-ports", "n1"),
            port("p1", "n1", "52:54:00:aa:00:01", pxe_enabled=True, extra={"k": "v"}),
            port(
                "p2",
                "n1",
                "52:54:00:aa:00:02",
                physical_network="physnet1",
                local_link_connection={"switch_id": "aa:bb:cc:dd:ee:ff", "port_id": "Eth1"},
            ),
            get("show", "/v1/ports/{p1}"),
            get("list", "/v1/ports?node={n1}"),
            get("list by node uuid", "/v1/ports?node_uuid={n1}"),
            get("list by node uuid given a name", "/v1/ports?node_uuid=dt-ports"),
            get("node_uuid before node", "/v1/ports?node={missing}&node_uuid={n1}"),
            get("detail", "/v1/ports/detail?node={n1}"),
            get("by address", "/v1/ports?address=52:54:00:aa:00:02"),
            get("by node and address", "/v1/ports?node={n1}&address=52:54:00:aa:00:02"),
            get("by a dashed address", "/v1/ports?address=52-54-00-aa-00-02"),
            get("by physical_network", "/v1/ports?physical_network=physnet1"),
            get("with fields", "/v1/ports?node={n1}&fields=uuid,address"),
            get("node and node_uuid", "/v1/ports?node={n1}&node_uuid={n1}"),
            get("of the node", "/v1/nodes/{n1}/ports"),
            get("of the node, detail", "/v1/nodes/{n1}/ports/detail"),
            get("detail=true", "/v1/ports?node={n1}&detail=true"),
            get("by a missing node", "/v1/ports?node={missing}"),
            get("by a missing portgroup", "/v1/ports?portgroup={missing}"),
            get("sorted by address", "/v1/ports?node={n1}&sort_key=address&sort_dir=desc"),
            get("bad sort key", "/v1/ports?sort_key=colour"),
            get("unknown filter", "/v1/ports?colour=red"),
            get("detail=true on /detail", "/v1/ports/detail?detail=true"),
            get("portgroups detail=true on /detail", "/v1/portgroups/detail?detail=true"),
            get("limit", "/v1/ports?node={n1}&limit=1"),
            patch(
                "change address", "/v1/ports/{p1}", op("replace", "/address", "52:54:00:aa:00:09")
            ),
            patch("add extra", "/v1/ports/{p1}", op("add", "/extra/x", "y")),
            patch("unknown field", "/v1/ports/{p1}", op("replace", "/colour", "red")),
            patch(
                "duplicate address",
                "/v1/ports/{p1}",
                op("replace", "/address", "52:54:00:aa:00:02"),
            ),
            Step(
                "duplicate address on create",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52:54:00:aa:00:02"},
            ),
            Step("bad address", "POST", "/v1/ports", {"node_uuid": "{n1}", "address": "not-a-mac"}),
            Step(
                "pxe_enabled null on create",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52:54:00:aa:00:0a", "pxe_enabled": None},
            ),
            patch("pxe_enabled null", "/v1/ports/{p1}", op("replace", "/pxe_enabled", None)),
            get("no port made by a null pxe_enabled", "/v1/ports?address=52:54:00:aa:00:0a"),
            Step(
                "link naming a host, not a switch",
                "POST",
                "/v1/ports",
                {
                    "node_uuid": "{n1}",
                    "address": "52:54:00:aa:00:06",
                    "local_link_connection": {"port_id": "Eth2", "hostname": "h2"},
                },
            ),
            Step(
                "link naming neither switch nor host",
                "POST",
                "/v1/ports",
                {
                    "node_uuid": "{n1}",
                    "address": "52:54:00:aa:00:07",
                    "local_link_connection": {"port_id": "Eth3"},
                },
            ),
            *(
                Step(
                    f"link with {name}",
                    "POST",
                    "/v1/ports",
                    {
                        "node_uuid": "{n1}",
                        "address": "52:54:00:aa:00:08",
                        "local_link_connection": {
                            "port_id": "Eth4",
                            "switch_id": "aa:bb:cc:dd:ee:ff",
                            **extra,
                        },
                    },
                )
                for name, extra in (
                    ("an unknown network_type", {"network_type": "bogus"}),
                    ("a number as switch_info", {"switch_info": 7}),
                    ("network_type managed", {"network_type": "managed"}),
                )
            ),
            patch(
                "link with a number as port_id",
                "/v1/ports/{p1}",
                op(
                    "add",
                    "/local_link_connection",
                    {"port_id": 5, "switch_id": "aa:bb:cc:dd:ee:ff"},
                ),
            ),
            patch(
                "link to a host",
                "/v1/ports/{p1}",
                op("add", "/local_link_connection", {"port_id": "Eth9", "hostname": "h9"}),
            ),
            Step(
                "link naming its switch by a name",
                "POST",
                "/v1/ports",
                {
                    "node_uuid": "{n1}",
                    "address": "52:54:00:aa:00:0a",
                    "local_link_connection": {"port_id": "Eth5", "switch_id": "tor-1"},
                },
            ),
            patch(
                "link to a switch by a name",
                "/v1/ports/{p1}",
                op("add", "/local_link_connection", {"port_id": "Eth9", "switch_id": "tor-1"}),
            ),
            Step(
                "unknown field",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52:54:00:aa:00:03", "colour": "red"},
            ),
            Step("no node", "POST", "/v1/ports", {"address": "52:54:00:aa:00:04"}),
            Step(
                "port name before its version",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52:54:00:aa:00:05", "name": "p5"},
            ),
            Step("delete", "DELETE", "/v1/ports/{p2}"),
            get("list after delete", "/v1/ports?node={n1}"),
            Step(
                "dashed address on create",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52-54-00-aa-00-0b"},
            ),
            Step(
                "uuid null on create",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52:54:00:aa:00:0c", "uuid": None},
            ),
            *(
                Step(
                    f"smart NIC with {name}",
                    "POST",
                    "/v1/ports",
                    {"node_uuid": "{n1}", "address": address, "is_smartnic": True, **link},
                    version="1.64",
                )
                for name, address, link in (
                    ("an empty link", "52:54:00:aa:00:0d", {"local_link_connection": {}}),
                    (
                        "an unmanaged link",
                        "52:54:00:aa:00:0e",
                        {"local_link_connection": {"network_type": "unmanaged"}},
                    ),
                    (
                        "a switch's link",
                        "52:54:00:aa:00:11",
                        {
                            "local_link_connection": {
                                "port_id": "E1",
                                "switch_id": "aa:bb:cc:dd:ee:01",
                            }
                        },
                    ),
                    ("a null link", "52:54:00:aa:00:0f", {"local_link_connection": None}),
                    ("no link", "52:54:00:aa:00:10", {}),
                )
            ),
            Step(
                "network_type before its version",
                "POST",
                "/v1/ports",
                {
                    "node_uuid": "{n1}",
                    "address": "52:54:00:aa:00:12",
                    "local_link_connection": {"network_type": "unmanaged"},
                },
                version="1.63",
            ),
            patch(
                "network_type added before its version",
                "/v1/ports/{p1}",
                op("add", "/local_link_connection/network_type", "unmanaged"),
                version="1.63",
            ),
            patch(
                "network_type added at its version",
                "/v1/ports/{p1}",
                op("add", "/local_link_connection/network_type", "unmanaged"),
                version="1.64",
            ),
            port(
                "p9",
                "n1",
                "52:54:00:aa:00:13",
                local_link_connection={"port_id": "E9", "switch_id": "aa:bb:cc:dd:ee:09"},
            ),
            patch(
                "made a Smart NIC on a switch's link",
                "/v1/ports/{p9}",
                op("replace", "/is_smartnic", True),
                version="1.64",
            ),
            patch(
                "made a Smart NIC with its host's link",
                "/v1/ports/{p9}",
                op("replace", "/is_smartnic", True),
                op("replace", "/local_link_connection", {"port_id": "rep0", "hostname": "h9"}),
                version="1.64",
            ),
        ),
    ),
    Scenario(
        "portgroups",
        (
            node("dt-groups", "n1"),
            Step(
                "create",
                "POST",
                "/v1/portgroups",
                {
                    "node_uuid": "{n1}",
                    "name": "dt-bond0",
                    "address": "52:54:00:bb:00:01",
                    "mode": "802.3ad",
                    "properties": {"miimon": "100"},
                },
                "g1",
            ),
            port("p1", "n1", "52:54:00:bb:00:02", portgroup_uuid="{g1}"),
            get("show", "/v1/portgroups/{g1}"),
            get("show by name", "/v1/portgroups/dt-bond0"),
            get("list", "/v1/portgroups?node={n1}"),
            get("detail", "/v1/portgroups/detail?node={n1}"),
            get("by address", "/v1/portgroups?address=52:54:00:bb:00:01"),
            get("by a dashed address", "/v1/portgroups?address=52-54-00-bb-00-01"),
            get("ports of the group", "/v1/portgroups/{g1}/ports"),
            get("ports by portgroup filter", "/v1/ports?portgroup={g1}"),
            get("groups of the node", "/v1/nodes/{n1}/portgroups"),
            patch("rename", "/v1/portgroups/{g1}", op("replace", "/name", "dt-bond1")),
            patch("unknown field", "/v1/portgroups/{g1}", op("replace", "/colour", "red")),
            Step(
                "duplicate name",
                "POST",
                "/v1/portgroups",
                {"node_uuid": "{n1}", "name": "dt-bond1"},
            ),
            Step(
                "duplicate address",
                "POST",
                "/v1/portgroups",
                {"node_uuid": "{n1}", "address": "52:54:00:bb:00:01"},
            ),
            Step("unknown field", "POST", "/v1/portgroups", {"node_uuid": "{n1}", "colour": "red"}),
            Step(
                "uuid null on create",
                "POST",
                "/v1/portgroups",
                {"node_uuid": "{n1}", "name": "dt-bond-null-uuid", "uuid": None},
            ),
            Step(
                "node uuid null on create",
                "POST",
                "/v1/nodes",
                {**NODE, "name": "dt-node-null-uuid", "uuid": None},
            ),
            Step(
                "name that is a UUID",
                "POST",
                "/v1/portgroups",
                {"node_uuid": "{n1}", "name": "0e0e0e0e-1111-4222-8333-4444444444e1"},
            ),
            Step(
                "physical network before its version",
                "POST",
                "/v1/portgroups",
                {"node_uuid": "{n1}", "physical_network": "physnet1"},
            ),
            *_writes_below_a_resource(),
            Step("delete with ports", "DELETE", "/v1/portgroups/{g1}"),
            Step(
                "create without standalone ports",
                "POST",
                "/v1/portgroups",
                {"node_uuid": "{n1}", "standalone_ports_supported": False},
                "g2",
            ),
            Step(
                "PXE-enabled member of a portgroup without standalone ports",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52:54:00:bb:00:03", "portgroup_uuid": "{g2}"},
            ),
            port("p2", "n1", "52:54:00:bb:00:04", portgroup_uuid="{g2}", pxe_enabled=False),
            patch(
                "member made PXE-enabled on a noop node",
                "/v1/ports/{p2}",
                op("replace", "/pxe_enabled", True),
            ),
            get("member after", "/v1/ports/{p2}"),
            *_member_lists(),
            *_portgroup_writes(),
        ),
    ),
    Scenario(
        "vifs on the noop interface",
        (
            node("dt-vifs", "n1"),
            port("p1", "n1", "52:54:00:cc:00:01"),
            Step("attach", "POST", "/v1/nodes/{n1}/vifs", {"id": "{vif1}"}),
            get("list", "/v1/nodes/{n1}/vifs"),
            Step("attach without id", "POST", "/v1/nodes/{n1}/vifs", {}),
            Step(
                "attach with an unknown field",
                "POST",
                "/v1/nodes/{n1}/vifs",
                {"id": "{vif2}", "colour": "red"},
            ),
            Step("detach", "DELETE", "/v1/nodes/{n1}/vifs/{vif1}"),
            Step("detach again", "DELETE", "/v1/nodes/{n1}/vifs/{vif1}"),
            get("list after detach", "/v1/nodes/{n1}/vifs"),
            *_vif_requests(),
        ),
    ),
    Scenario(
        "states and traits",
        (
            node("dt-states", "n1"),
            Step("manage", "PUT", "/v1/nodes/{n1}/states/provision", {"target": "manage"}),
            Step(
                "after manage",
                "GET",
                "/v1/nodes/{n1}",
                settle=True,
            ),
            Step(
                "deploy from manageable",
                "PUT",
                "/v1/nodes/{n1}/states/provision",
                {"target": "active"},
            ),
            Step(
                "unknown target", "PUT", "/v1/nodes/{n1}/states/provision", {"target": "sideways"}
            ),
            Step("power on", "PUT", "/v1/nodes/{n1}/states/power", {"target": "power on"}),
            Step("bad power target", "PUT", "/v1/nodes/{n1}/states/power", {"target": "dim"}),
            Step(
                "set traits", "PUT", "/v1/nodes/{n1}/traits", {"traits": ["CUSTOM_A", "CUSTOM_B"]}
            ),
            Step("add a trait", "PUT", "/v1/nodes/{n1}/traits/CUSTOM_C"),
            Step("bad trait", "PUT", "/v1/nodes/{n1}/traits/lower-case"),
            Step("a standard trait", "PUT", "/v1/nodes/{n1}/traits/HW_CPU_X86_AVX2"),
            Step("neither standard nor custom", "PUT", "/v1/nodes/{n1}/traits/HW_NO_SUCH_THING"),
            Step(
                "a list with a trait neither standard nor custom",
                "PUT",
                "/v1/nodes/{n1}/traits",
                {"traits": ["CUSTOM_A", "NOT_A_TRAIT"]},
            ),
            get("traits", "/v1/nodes/{n1}/traits"),
            Step("remove a trait", "DELETE", "/v1/nodes/{n1}/traits/CUSTOM_A"),
            Step("remove a missing trait", "DELETE", "/v1/nodes/{n1}/traits/CUSTOM_Z"),
            get("history", "/v1/nodes/{n1}/history"),
            Step("provide", "PUT", "/v1/nodes/{n1}/states/provision", {"target": "provide"}),
            Step("after provide", "GET", "/v1/nodes/{n1}", settle=True),
            Step("deploy", "PUT", "/v1/nodes/{n1}/states/provision", {"target": "active"}),
            Step(
                "after deploy",
                "GET",
                "/v1/nodes/{n1}",
                settle=True,
            ),
            Step("delete an active node", "DELETE", "/v1/nodes/{n1}"),
            Step(
                "manage an active node",
                "PUT",
                "/v1/nodes/{n1}/states/provision",
                {"target": "manage"},
            ),
            patch("protect", "/v1/nodes/{n1}", op("replace", "/protected", True)),
            Step(
                "undeploy a protected node",
                "PUT",
                "/v1/nodes/{n1}/states/provision",
                {"target": "deleted"},
            ),
            patch("unprotect", "/v1/nodes/{n1}", op("replace", "/protected", False)),
            Step("undeploy", "PUT", "/v1/nodes/{n1}/states/provision", {"target": "deleted"}),
            Step(
                "after undeploy",
                "GET",
                "/v1/nodes/{n1}",
                settle=True,
            ),
        ),
    ),
    Scenario("retirement", _retirement_checks()),
    Scenario(
        "version gates",
        (
            node("dt-gates", "n1"),
            Step("create portgroup g1", "POST", "/v1/portgroups", {"node_uuid": "{n1}"}, "g1"),
            get("portgroups at 1.22", "/v1/portgroups", version="1.22"),
            *_below_their_version(),
            get("vifs at 1.27", "/v1/nodes/{n1}/vifs", version="1.27"),
            get("traits at 1.36", "/v1/nodes/{n1}/traits", version="1.36"),
            Step(
                "set traits at 1.36",
                "PUT",
                "/v1/nodes/{n1}/traits",
                {"traits": ["CUSTOM_A"]},
                version="1.36",
            ),
            Step("add a trait at 1.36", "PUT", "/v1/nodes/{n1}/traits/CUSTOM_A", version="1.36"),
            Step("remove traits at 1.36", "DELETE", "/v1/nodes/{n1}/traits", version="1.36"),
            get("history at 1.77", "/v1/nodes/{n1}/history", version="1.77"),
            get("node at 1.1", "/v1/nodes/{n1}", version="1.1"),
            get("node at 1.50", "/v1/nodes/{n1}", version="1.50"),
            get("port list at 1.33", "/v1/ports?node={n1}", version="1.33"),
            Step(
                "description at 1.50",
                "POST",
                "/v1/nodes",
                {**NODE, "description": "x"},
                version="1.50",
            ),
            Step(
                "description at 1.49",
                "POST",
                "/v1/nodes",
                {**NODE, "description": "x"},
                version="1.49",
            ),
            Step("owner at 1.49", "POST", "/v1/nodes", {**NODE, "owner": "x"}, version="1.49"),
            Step("lessee at 1.64", "POST", "/v1/nodes", {**NODE, "lessee": "x"}, version="1.64"),
            Step(
                "network_data at 1.65",
                "POST",
                "/v1/nodes",
                {**NODE, "network_data": {}},
                version="1.65",
            ),
            Step("retired at 1.60", "POST", "/v1/nodes", {**NODE, "retired": True}, version="1.60"),
            get("fields at 1.7", "/v1/nodes?fields=uuid", version="1.7"),
            get("detail query at 1.42", "/v1/nodes?detail=true", version="1.42"),
            Step(
                "port physical_network at 1.33",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52:54:00:dd:00:02", "physical_network": "p"},
                version="1.33",
            ),
            Step(
                "port is_smartnic at 1.52",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52:54:00:dd:00:03", "is_smartnic": True},
                version="1.52",
            ),
            Step(
                "node automated_clean at 1.46",
                "POST",
                "/v1/nodes",
                {**NODE, "automated_clean": True},
                version="1.46",
            ),
            Step(
                "node name at 1.4",
                "POST",
                "/v1/nodes",
                {"driver": "fake-hardware", "name": "dt-old"},
                version="1.4",
            ),
            Step(
                "network_interface at 1.19",
                "POST",
                "/v1/nodes",
                {"driver": "fake-hardware", "network_interface": "noop"},
                version="1.19",
            ),
            Step(
                "vif with port_uuid at 1.66",
                "POST",
                "/v1/nodes/{n1}/vifs",
                {"id": "{vif1}", "port_uuid": "{missing}"},
                version="1.66",
            ),
            Step(
                "deploy verb at 1.72",
                "PUT",
                "/v1/nodes/{n1}/states/provision",
                {"target": "deploy"},
                version="1.72",
            ),
            Step(
                "manage at 1.3",
                "PUT",
                "/v1/nodes/{n1}/states/provision",
                {"target": "manage"},
                version="1.3",
            ),
            get("owner filter at 1.49", "/v1/nodes?owner=x", version="1.49"),
            get("sorted by owner at 1.49", "/v1/nodes?sort_key=owner", version="1.49"),
            get("sorted by owner at 1.50", "/v1/nodes?sort_key=owner", version="1.50"),
            get(
                "ports sorted by physical_network at 1.33",
                "/v1/ports?sort_key=physical_network",
                version="1.33",
            ),
            get("portgroups sorted by mode at 1.25", "/v1/portgroups?sort_key=mode", "1.25"),
            get("lessee filter at 1.64", "/v1/nodes?lessee=x", version="1.64"),
            get("shard filter", "/v1/nodes?shard=rack7"),
            get("shards", "/v1/shards"),
            get("port shard filter", "/v1/ports?shard=rack7"),
            get("include_children", "/v1/nodes?include_children=true"),
            get("children", "/v1/nodes/{n1}/children"),
            get("port conductor_groups filter", "/v1/ports?conductor_groups=cg1"),
            Step(
                "port name",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52:54:00:dd:00:01", "name": "dt-p1"},
            ),
            Step("node shard", "POST", "/v1/nodes", {**NODE, "shard": "rack7"}),
        ),
    ),
    Scenario(
        "versions 1.102 to 1.107",
        (
            node("dt-newer", "n1", shard="dt-rack"),
            Step(
                "portgroup physical_network and category at 1.101",
                "POST",
                "/v1/portgroups",
                {"node_uuid": "{n1}", "physical_network": "physnet1", "category": "bond"},
                "g1",
                version="1.101",
            ),
            get("portgroup at 1.101", "/v1/portgroups/{g1}", version="1.101"),
            get("portgroup at 1.102", "/v1/portgroups/{g1}", version="1.102"),
            get("portgroup at 1.103", "/v1/portgroups/{g1}", version="1.103"),
            get("portgroup", "/v1/portgroups/{g1}"),
            get(
                "fields=physical_network at 1.101",
                "/v1/portgroups/{g1}?fields=uuid,physical_network",
                version="1.101",
            ),
            get(
                "fields=physical_network at 1.102",
                "/v1/portgroups/{g1}?fields=uuid,physical_network",
                version="1.102",
            ),
            port(
                "p1",
                "n1",
                "52:54:00:de:00:01",
                portgroup_uuid="{g1}",
                physical_network="physnet2",
            ),
            port("p2", "n1", "52:54:00:de:00:02", portgroup_uuid="{g1}"),
            port(
                "p3",
                "n1",
                "52:54:00:de:00:03",
                portgroup_uuid="{g1}",
                physical_network="physnet1",
            ),
            *(
                patch(
                    f"member physical_network at {version}",
                    "/v1/ports/{p3}",
                    op("replace", "/physical_network", "physnet7"),
                    version=version,
                )
                for version in ("1.101", "1.102")
            ),
            Step(
                "port physical_network empty",
                "POST",
                "/v1/ports",
                {"node_uuid": "{n1}", "address": "52:54:00:de:00:05", "physical_network": ""},
            ),
            patch(
                "portgroup physical_network",
                "/v1/portgroups/{g1}",
                op("replace", "/physical_network", "physnet4"),
                version="1.102",
            ),
            get("member after the portgroup's change", "/v1/ports/{p3}", version="1.102"),
            patch(
                "member's unchanged physical_network",
                "/v1/ports/{p3}",
                op("replace", "/physical_network", "physnet4"),
                version="1.102",
            ),
            Step("portgroup without one", "POST", "/v1/portgroups", {"node_uuid": "{n1}"}, "g2"),
            port(
                "p4",
                "n1",
                "52:54:00:de:00:04",
                portgroup_uuid="{g2}",
                physical_network="physnet5",
            ),
            get("portgroup after its first member", "/v1/portgroups/{g2}", version="1.102"),
            get("portgroup shard filter at 1.105", "/v1/portgroups?shard=dt-rack", version="1.105"),
            get("portgroup shard filter at 1.106", "/v1/portgroups?shard=dt-rack", version="1.106"),
            Step(
                "instance_name at 1.103",
                "POST",
                "/v1/nodes",
                {**NODE, "instance_name": "dt-vm"},
                version="1.103",
            ),
            Step(
                "instance_name at 1.104",
                "POST",
                "/v1/nodes",
                {**NODE, "name": "dt-named", "instance_name": "dt-vm"},
                "n2",
                version="1.104",
            ),
            get("instance_name filter at 1.103", "/v1/nodes?instance_name=dt-vm", version="1.103"),
            get("instance_name filter at 1.104", "/v1/nodes?instance_name=dt-vm", version="1.104"),
            *(
                Step(
                    f"vtep keys at {version}",
                    "POST",
                    "/v1/ports",
                    {
                        "node_uuid": "{n1}",
                        "address": "52:54:00:de:00:09",
                        "local_link_connection": {
                            "port_id": "Ethernet1/1",
                            "switch_id": "00:00:5e:00:53:01",
                            "vtep-logical-switch": "ls-1",
                            "vtep-physical-switch": "ps-1",
                        },
                    },
                    version=version,
                )
                for version in ("1.89", "1.105")
            ),
        ),
    ),
    Scenario("volume connector and target changes", _volume_changes()),
    Scenario("port connectivity by provision state", _port_connectivity()),
    Scenario("deploy image checks", _deploy_image_checks()),
    Scenario("network data", _network_data_checks()),
    Scenario("target RAID configuration", _raid_checks()),
    Scenario("inspection", _inspection_checks()),
    Scenario("agent inspection", _agent_inspection_checks()),
    Scenario("continue inspection", _continue_inspection_checks()),
    Scenario("manual cleaning steps", _clean_step_checks()),
    Scenario("deploy steps", _deploy_step_checks()),
    Scenario("steps the node offers", _offered_step_checks()),
    Scenario("list and field checks", _list_and_field_checks()),
    Scenario("chassis", _chassis()),
    Scenario("deploy templates", _deploy_templates()),
    Scenario("allocations", _allocations()),
    Scenario("conductors", _conductors()),
    Scenario("network events", _network_events()),
)
