"""Every difference between Ironic 39's answers and metalwire's that the tier accepts.

Each entry names its scenarios, the ``<step>: <path>`` it covers (a glob) and the versions it
applies to, and says why the difference is there. ``ALLOWED`` holds the differences metalwire
means to have (and Ironic's own bugs); ``PENDING`` the metalwire bugs not fixed yet, each
naming where it will be. ``explain`` splits what a run found into the differences no entry
covers and the entries that covered nothing in that run: the test fails on both, so these
lists stay true as either server changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from tests.differential.shapes import Difference

# the versions the tier runs at (test_differential.VERSIONS): the oldest and newest served,
# and Ironic 39's newest
BOTH = ("1.78", "1.107", "1.115")


@dataclass(frozen=True)
class Allowed:
    scenarios: tuple[str, ...]
    where: str
    reason: str
    versions: tuple[str, ...] = BOTH

    def covers(self, difference: Difference) -> bool:
        return fnmatchcase(difference.where, self.where)


NOT_SERVED = "not served by metalwire (docs/api-ref/index.md)"
# the versions above 1.78 the tier runs at
NEWER = ("1.107", "1.115")

ALLOWED: tuple[Allowed, ...] = (
    *(
        Allowed(("root and versions",), f"v1: body.{resource}", NOT_SERVED)
        for resource in (
            "drivers",
            "heartbeat",
            "lookup",
        )
    ),
    *(
        Allowed(("root and versions",), f"v1: body.{resource}", NOT_SERVED, NEWER)
        for resource in ("inspection_rules",)
    ),
    *(
        Allowed(
            ("allocations",),
            f"{step}: body.{key}",
            "Ironic 39 answers a create before its conductor has reserved a node (state "
            "allocating, no node, no error yet); metalwire reserves it within the request and "
            "answers the allocation done (docs/api-ref/allocations.md); read afterwards, both "
            "agree",
        )
        for step, key in (
            ("create allocation", "node_uuid"),
            ("create allocation", "updated_at"),
            ("create allocation, none fits", "last_error"),
            ("create allocation, none fits", "updated_at"),
        )
    ),
    Allowed(
        ("runbooks",),
        "runbook list of a project: status",
        "Ironic 39 reads a runbook list's ?project= as a boolean and then filters by it as a "
        "project id (owner = true), which no runbook matches; metalwire takes no project "
        "filter and answers 400 naming the parameter (docs/api-ref/runbooks.md)",
        NEWER,
    ),
    Allowed(
        ("deploy templates",),
        "create template, priority as digits: body.steps.0.priority",
        "Ironic 39's create answers a step's priority as the request gave it (\"9\") and every "
        "later read as the integer it stored; metalwire answers the stored integer every time",
    ),
    Allowed(
        (
            "node patch",
            "node list filters",
            "states and traits",
            "port connectivity by provision state",
            "deploy image checks",
            "network data",
            "chassis",
            "retirement",
            "how a path names what it asks for",
        ),
        "*: body.reservation",
        "Ironic answers a PATCH with the node as its conductor still holds the lock; "
        "metalwire answers after the lock is released",
    ),
    Allowed(
        ("missing objects",),
        "volume of a missing node: status",
        "Ironic 39 builds a node's volume links without looking the node up (200 for any "
        "name); metalwire answers 404 for a node that does not exist or is not visible, as "
        "for the node's other sub-resources (docs/api-ref/volume.md)",
    ),
    Allowed(
        ("enrol a node",),
        "list with created_at: status",
        "Ironic 39 answers 400 'Field created_at is not a valid field.' to a node list or "
        "show asking for created_at or updated_at, which 'baremetal node list --fields' "
        "offers; metalwire shows them, as a port's or portgroup's",
    ),
    Allowed(
        ("node create errors",),
        "owner of another project: status",
        "Ironic's noauth caller is a project-scoped admin without a project, refused any "
        "owner on create; metalwire's noauth caller is the system administrator",
    ),
    Allowed(
        ("node create errors",),
        "conductor group no conductor serves: status",
        "metalwire is one conductor serving every conductor group; Ironic refuses a group "
        "no registered conductor belongs to",
    ),
    Allowed(
        ("chassis",),
        "chassis nodes with fields: status",
        "Ironic 39 answers ?fields=chassis_uuid on a chassis's node list with a 500 "
        "(AttributeError); metalwire lists the nodes with the fields asked for",
    ),
    Allowed(
        ("chassis",),
        "chassis nodes, a node below: status",
        "Ironic 39 answers a node's path below a chassis's node list with a 400 (Malformed "
        "request URI.); metalwire serves no such path and answers 404, as for any path it does "
        "not serve",
    ),
    Allowed(
        ("list and field checks",),
        "links field of a list: status",
        "Ironic 39 answers ?fields=links (or ports, states, portgroups, volume) on a node list "
        "with a 500 (AttributeError), and a show with a 400; metalwire answers both with a 400 "
        "naming the valid fields: the links are not fields, and come with every field chosen",
    ),
    Allowed(
        ("manual cleaning steps",),
        "step without interface: status",
        "Ironic 39 reads each step's interface for its step policy before it checks the steps, "
        "so a step without one is a 500 (KeyError); metalwire answers 400 naming what is "
        "missing",
    ),
    Allowed(
        ("node list filters",),
        "bad field: status",
        "Ironic 39 answers an unknown name in ?fields= with a 500 (AttributeError); "
        "metalwire with a 400 naming the valid fields",
    ),
    Allowed(
        ("portgroups",),
        "detail: body.portgroups.0.*",
        "Ironic 39's portgroup detail list does not hide physical_network (1.102), category "
        "(1.103) and dynamic_portgroup (1.111) at older versions, as its show does",
        ("1.78", "1.107"),
    ),
    Allowed(
        ("ports",),
        "by node and address: body.ports*",
        "Ironic 39 lists all of a node's (or portgroup's) ports when address is given too, "
        "ignoring it; metalwire applies both filters, which is what Nova's search for the "
        "VIF of a volume connector's MAC (ports(node=..., address=...)) asks for",
    ),
    Allowed(
        ("ports", "portgroups"),
        "by a dashed address: status",
        "metalwire takes a MAC address with '-' as well as ':' between its bytes, in a list "
        "filter as in a body, and stores and shows it with ':' (docs/api-ref/ports.md); "
        "Ironic 39 refuses any but ':' (400)",
    ),
    Allowed(
        ("ports",),
        "dashed address on create: status",
        "metalwire takes a MAC address with '-' between its bytes and stores it with ':' "
        "(docs/api-ref/ports.md); Ironic 39 refuses it (400)",
    ),
    Allowed(
        ("portgroups",),
        "write *: status",
        "below a node, port or portgroup metalwire serves reads only: a write there is 405 "
        "where a read is served (with Allow), 404 where nothing is; Ironic 39 answers 400 "
        "'Malformed request URI.' to writes through a node or portgroup, a 400 schema error "
        "to a PATCH of a port or portgroup with a path below it (its handler takes the path's "
        "rest as the patch), and a 500 to such a DELETE of a port",
    ),
    Allowed(
        ("portgroups",),
        "a * below a *: status",
        "Ironic 39 answers a port's or portgroup's path below a node's or portgroup's list "
        "with a 400 (Malformed request URI.); metalwire serves no such path and answers 404, "
        "as for any path it does not serve",
    ),
    Allowed(
        ("portgroups",),
        "ports by node_uuid: status",
        "Ironic 39 answers sort_key=node_uuid on a port list with a 500 (its SQL has no such "
        "column); metalwire with a 400 naming the sort key",
    ),
    Allowed(
        ("portgroups",),
        "a * by its name: status",
        "Ironic 39 answers a node's ports or portgroups listed by the node's name with a 404 "
        "('Portgroup None could not be found.'), and a portgroup's ports by the group's name "
        "with a 404; metalwire lists them, as it does by UUID",
    ),
    Allowed(
        ("portgroups",),
        "a port deleted by a name: status",
        "Ironic 39 deletes a port by its UUID only (400 for a name); metalwire by its name too "
        "(1.88), as it shows and patches one: a name that names no port is a 404",
    ),
    Allowed(
        ("portgroups",),
        "empty name: status",
        "Ironic 39 stores a portgroup named '' (201); metalwire refuses it (400): a name is 1 "
        "to 255 characters, and '' would name nothing, yet read as a name",
    ),
    Allowed(
        ("portgroups",),
        "node_uuid removed: status",
        "Ironic 39 answers a PATCH removing a portgroup's node_uuid with a 200 and changes "
        "nothing; metalwire refuses it (400): a portgroup always belongs to a node",
    ),
    Allowed(
        ("port connectivity by provision state",),
        "validate on the flat interface: body.network.reason",
        "Ironic 39's flat interface needs a cleaning network ([neutron] cleaning_network or "
        "driver_info/cleaning_network), so without one a flat node's network validation "
        "fails (and so does every change of its ports); metalwire's flat works without "
        "Neutron and cleans on no network when none is set (docs/operators.md, [neutron] "
        "cleaning_network)",
    ),
    *(
        Allowed(
            ("node list filters",),
            f"sorted by {key}: status",
            "Ironic 39 sorts nodes by columns of its own schema (chassis_id, allocation_id, "
            "conductor_affinity: row ids; version: its objects' version); metalwire keeps a "
            "node's chassis and allocation by UUID and has none of them: a 400 naming the sort "
            "key",
        )
        for key in ("chassis_id", "allocation_id", "conductor_affinity", "version")
    ),
    Allowed(
        ("node patch",),
        "conductor group: status",
        "Ironic 39 refuses a conductor group no conductor has joined (400 'No valid host was "
        "found'); metalwire has no conductor groups, every server serving every group's nodes "
        "(docs/api-ref/conductors.md), and stores the group for clients that partition by it "
        "(Nova's [ironic] conductor_group)",
    ),
    Allowed(
        ("node patch",),
        "conductor group removed: status",
        "Ironic 39 answers the removal of a node's conductor_group (baremetal node unset "
        "--conductor-group) with a 500 (KeyError); metalwire puts the node in no group (''), "
        "as a create with a null conductor_group does in both",
    ),
    Allowed(
        ("versions 1.102 to 1.107",),
        "member's unchanged physical_network: status",
        "from 1.102 Ironic 39 refuses (400) a member port's PATCH whose first operation "
        "names /physical_network, even one setting the value it has (its "
        "is_path_updated looks at the first operation only); metalwire refuses a change of "
        "it (400, whatever the order) and takes a PATCH that leaves it as it is",
        NEWER,
    ),
    Allowed(
        ("ports",),
        "pxe_enabled null*: status",
        "Ironic 39's schema takes pxe_enabled null, which its port object then refuses to "
        "store (500 'Field `pxe_enabled' cannot be None'); metalwire answers 400 naming the "
        "field (docs/api-ref/ports.md)",
    ),
    Allowed(
        ("ports",),
        "by physical_network: status",
        "metalwire's own port list filter (docs/api-ref/ports.md), which Ironic 39 does not "
        "have and refuses as an unexpected argument (400)",
    ),
    Allowed(
        ("portgroups",),
        "name that is a UUID: status",
        "Ironic 39 takes a portgroup name that is a UUID, by which GET /v1/portgroups/{name} "
        "can then never find it (a UUID is looked up as the portgroup's uuid); metalwire "
        "refuses it (400), as both refuse a node name that is a UUID (docs/api-ref/"
        "portgroups.md: same rules as node names)",
    ),
    Allowed(
        ("port connectivity by provision state",),
        "validate on the flat interface: body.network.result",
        "Ironic's flat interface validates by looking its cleaning network up in Neutron, "
        "which this tier does not start; metalwire's flat without [neutron] configured is "
        "standalone and has nothing to look up (docs/network-interfaces.md)",
    ),
    Allowed(
        ("states and traits",),
        "history: body.history",
        "metalwire records provision verbs and VIF changes in the history "
        "(docs/api-ref/history.md); Ironic 39 only errors",
    ),
    Allowed(
        (
            "states and traits",
            "volume connector and target changes",
            "port connectivity by provision state",
            "deploy image checks",
            "allocations",
            "retirement",
        ),
        "*: body.driver_internal_info.*",
        "driver_internal_info is the driver's own record: Ironic's conductor keeps the clean "
        "and deploy steps it ran and the last power change there; metalwire's state machine "
        "runs no steps",
    ),
    *(
        Allowed(
            (scenario,),
            f"{step}: body.power_state",
            "metalwire reads the fake power state when manage verifies a node that has none, "
            "so that the node Nova sees available has one (docs/api-ref/states.md); Ironic 39 "
            "leaves it null until its periodic power sync runs",
        )
        for scenario, step in (
            ("states and traits", "after manage"),
            ("retirement", "retire"),
            ("retirement", "no longer retired"),
            ("retirement", "retire unclean"),
        )
    ),
    Allowed(
        ("versions 1.108 to 1.115",),
        "history at *: body.history",
        "the events recorded differ: Ironic 39 records the start and end of each conductor "
        "operation (cleaning, deployment, servicing), metalwire each verb and network "
        "interface hook it ran (docs/api-ref/history.md), so the lists' lengths differ",
    ),
    *(
        Allowed(
            ("versions 1.108 to 1.115",),
            f"history at 1.115: body.history.*.{key}",
            "the entries at one index are different events (see the list's length), so the "
            "node's target and time in its state when each was written differ",
        )
        for key in ("target_provision_state", "duration_seconds")
    ),
    *(
        Allowed(
            ("versions 1.108 to 1.115",),
            f"history at *: body.history.*.{key}",
            "metalwire's own detail fields of an entry: the VIF, the port or portgroup and "
            "the result of what it records (docs/api-ref/history.md)",
        )
        for key in ("vif_id", "target_uuid", "result")
    ),
    Allowed(
        ("volume connector and target changes",),
        "target from a powered on node to a powered off one: status",
        "metalwire moves a volume connector or target only when the node it leaves is powered "
        "off too (400), since that node may be using the volume; Ironic 39 checks only the "
        "node it moves to (docs/api-ref/volume.md)",
    ),
    Allowed(
        ("version gates",),
        "children: status",
        "Ironic 39 crashes on GET /v1/nodes/{node}/children below 1.83 (a 500, or the "
        "connection closed without an answer); metalwire answers 404",
        ("1.78",),
    ),
    Allowed(
        ("virtual media and firmware components",),
        "firmware detail: status",
        "Ironic 39 checks the firmware list's query against a schema that wants detail a JSON "
        "boolean, which no query string value is, so it refuses every ?detail= (400 'true' is "
        "not of type 'boolean'); metalwire takes a boolean's text there, as in every other list",
    ),
)

PENDING: tuple[Allowed, ...] = ()


def explain(
    scenario: str,
    version: str,
    found: list[Difference],
    allowed: tuple[Allowed, ...] = ALLOWED + PENDING,
) -> tuple[list[Difference], list[Allowed]]:
    """(differences no entry covers, entries for this scenario and version that cover none)."""
    entries = [a for a in allowed if scenario in a.scenarios and version in a.versions]
    unexplained = [d for d in found if not any(a.covers(d) for a in entries)]
    stale = [a for a in entries if not any(a.covers(d) for d in found)]
    return unexplained, stale
