"""Bulk enrolment: chassis, nodes with their ports and portgroups, from YAML or JSON files.

The file format is the one of ``baremetal create``::

    chassis:
      - uuid: 1be26c0b-03f2-4d2e-ae87-c02d7f33c123
        description: rack 7
        nodes:
          - driver: ipmi
            name: compute-1
    nodes:
      - driver: ipmi
        name: compute-0
        properties: {cpus: 8}
        ports:
          - address: "52:54:00:00:00:01"
        portgroups:
          - name: compute-0-bond
            ports:
              - address: "52:54:00:00:00:02"

Each node is one item: it is created with its portgroups (and their member ports) and then
its ports. If any of them fails, what was created for the node is deleted again (rolled back)
and the item is reported as failed; the next nodes are still enrolled.

A node the file names (``name`` or ``uuid``) that exists already is handled as ``existing``
says: ``skip`` (the default) leaves it as it is and reports the fields that differ from the
file, ``update`` patches the fields that differ and creates or patches its portgroups and
ports (found by name or MAC address; one on another node is an error), ``fail`` reports it
failed. Running the same file twice is then harmless.

Each chassis is handled before its nodes: it is created, or, when its ``uuid`` names one that
exists, handled as ``existing`` says (``skip`` uses it as it is, ``update`` patches its
``description`` and ``extra`` to the file's, ``fail`` reports it failed). Its nodes are then
enrolled with its UUID as their ``chassis_uuid``; a node whose own ``chassis_uuid`` is another
chassis fails. When the chassis cannot be created (or is refused as existing), its nodes are
not enrolled and fail. A chassis created by the run that had nodes in the file and has none in
it at the end (each failed, was rolled back, or exists already in another chassis and was
skipped) is deleted again; a chassis listed with no nodes is kept. A chassis without ``uuid``
cannot be found again, so each run creates it anew (``update`` then moves the existing nodes
into the new one): give chassis a ``uuid`` in files that are run more than once.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from metalwire.client import patch
from metalwire.client.client import Client
from metalwire.client.exceptions import HTTPError, MetalwireClientError, NotFound
from metalwire.client.resources import Chassis, Node, Resource

Status = Literal[
    "created", "skipped", "updated", "unchanged", "failed", "rolled back", "rollback failed"
]
Existing = Literal["skip", "update", "fail"]
#: Statuses of a node the run leaves as the file describes it (or, skipped, as it was).
DONE: frozenset[Status] = frozenset({"created", "skipped", "updated", "unchanged"})


class _DescriptionLoader(yaml.SafeLoader):
    """YAML's safe loader, except that a number written with colons (YAML 1.1's base 60,
    which YAML 1.2 dropped) stays text: an unquoted MAC address such as 52:54:00:00:00:02
    is that MAC address, not the integer 41135040002."""


def _number_or_text(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> object:
    if ":" in node.value:
        return loader.construct_scalar(node)
    if node.tag.endswith(":int"):
        return loader.construct_yaml_int(node)
    return loader.construct_yaml_float(node)


_DescriptionLoader.add_constructor("tag:yaml.org,2002:int", _number_or_text)
_DescriptionLoader.add_constructor("tag:yaml.org,2002:float", _number_or_text)


class EnrolFileError(Exception):
    """A description file cannot be read, parsed, or does not have the expected shape."""


@dataclass(frozen=True)
class NodeSpec:
    """One node to enrol: where it was described and what it says."""

    source: str  # file name
    position: int  # 1-based index in its list (the file's, or its chassis's)
    body: Any  # the node's description as parsed (checked at enrolment)
    chassis_position: int | None = None  # 1-based index of the chassis it is listed in

    @property
    def label(self) -> str:
        """The node's name (or UUID) from the file, else where it is in the file."""
        if isinstance(self.body, Mapping):
            for key in ("name", "uuid"):
                if isinstance(self.body.get(key), str) and self.body[key]:
                    return str(self.body[key])
        if self.chassis_position is not None:
            return f"{self.source}#chassis-{self.chassis_position}-node-{self.position}"
        return f"{self.source}#{self.position}"


@dataclass(frozen=True)
class ChassisSpec:
    """One chassis to enrol, with the nodes listed in it."""

    source: str  # file name
    position: int  # 1-based index in the file's chassis list
    body: dict[str, Any]  # the chassis's fields, without its nodes
    nodes: tuple[NodeSpec, ...] = ()

    @property
    def label(self) -> str:
        """The chassis's UUID or description from the file, else ``source#chassis-N``."""
        for key in ("uuid", "description"):
            if isinstance(self.body.get(key), str) and self.body[key]:
                return str(self.body[key])
        return f"{self.source}#chassis-{self.position}"


@dataclass(frozen=True)
class Description:
    """What one file describes: its chassis (each with its nodes), then its other nodes."""

    chassis: tuple[ChassisSpec, ...]
    nodes: tuple[NodeSpec, ...]

    @property
    def all_nodes(self) -> list[NodeSpec]:
        """Every node of the file, in the order they are enrolled."""
        return [node for chassis in self.chassis for node in chassis.nodes] + list(self.nodes)


@dataclass
class NodeResult:
    """What happened to one node of the files."""

    spec: NodeSpec
    status: Status = "failed"
    node_uuid: str | None = None
    ports: list[str] = field(default_factory=list)
    portgroups: list[str] = field(default_factory=list)
    error: str | None = None
    # For a node that existed: what was changed (update), or what differs (skip).
    changes: list[str] = field(default_factory=list)
    chassis_uuid: str | None = None  # the chassis the node is in after the run

    @property
    def ok(self) -> bool:
        return self.status in DONE


@dataclass
class ChassisResult:
    """What happened to one chassis of the files."""

    spec: ChassisSpec
    status: Status = "failed"
    chassis_uuid: str | None = None
    error: str | None = None
    # For a chassis that existed: what was changed (update), or what differs (skip).
    changes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """False when it could not be created (or was refused) or not deleted again."""
        return self.status not in ("failed", "rollback failed")


@dataclass(frozen=True)
class Progress:
    """Reported before (``result`` None) and after each node is handled."""

    index: int  # 1-based over all files
    total: int
    spec: NodeSpec
    result: NodeResult | None = None


def load_file(path: str | Path) -> Description:
    """The chassis and nodes described in a ``.yaml``/``.yml`` or ``.json`` file.

    Raises EnrolFileError when the file cannot be read (or is not UTF-8) or parsed, has
    another extension, is not an object, has top-level keys other than ``chassis`` and
    ``nodes``, or when either is not a list, a chassis not an object or its ``nodes`` not a
    list.
    """
    path = Path(path)
    data = load_document(path)
    name = str(path)
    if not isinstance(data, dict):
        raise EnrolFileError(f"File {name!r} must hold an object with a 'chassis' or 'nodes' list.")
    extra = sorted(set(data) - {"chassis", "nodes"})
    if extra:
        raise EnrolFileError(
            f"File {name!r} has unsupported top-level key(s) {', '.join(extra)}; "
            "only 'chassis' and 'nodes' are allowed."
        )
    chassis = tuple(
        _chassis_spec(name, position, body)
        for position, body in enumerate(_list_in(name, data, "chassis"), start=1)
    )
    nodes = _list_in(name, data, "nodes")
    return Description(
        chassis, tuple(NodeSpec(name, i, body) for i, body in enumerate(nodes, start=1))
    )


def load_document(path: str | Path) -> Any:
    """What a ``.json``, ``.yaml`` or ``.yml`` file holds (an unquoted MAC address in YAML is
    text); EnrolFileError when it cannot be read or parsed, or has another extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".json"):
        raise EnrolFileError(f"Cannot process file {str(path)!r}: it must be .json or .yaml.")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise EnrolFileError(f"Cannot read file {str(path)!r}: {error.strerror}.") from None
    except UnicodeDecodeError as error:
        raise EnrolFileError(
            f"Cannot read file {str(path)!r}: it is not UTF-8 text (byte "
            f"0x{error.object[error.start]:02x} at offset {error.start}); save it as UTF-8."
        ) from None
    try:
        if suffix == ".json":
            return json.loads(text)
        return yaml.load(text, Loader=_DescriptionLoader)
    except (ValueError, yaml.YAMLError) as error:
        raise EnrolFileError(f"File {str(path)!r} is invalid: {error}") from None


def _list_in(source: str, data: Mapping[str, Any], key: str, where: str = "") -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise EnrolFileError(f"In file {source!r}, {where}'{key}' must be a list.")
    return value


def _chassis_spec(source: str, position: int, body: Any) -> ChassisSpec:
    if not isinstance(body, dict):
        raise EnrolFileError(f"In file {source!r}, chassis #{position} must be an object.")
    fields = {k: v for k, v in body.items() if k != "nodes"}
    nodes = _list_in(source, body, "nodes", f"chassis #{position}'s ")
    return ChassisSpec(
        source,
        position,
        fields,
        tuple(NodeSpec(source, i, node, position) for i, node in enumerate(nodes, start=1)),
    )


class _ItemError(Exception):
    """A failure of one part of a node, with the part's description."""


def _message(error: Exception) -> str:
    if isinstance(error, HTTPError):
        return error.faultstring
    return str(error)


def _list_of_objects(value: Any, what: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise _ItemError(f"{what} must be a list of objects")
    return [dict(v) for v in value]


def _port_label(port: Mapping[str, Any]) -> str:
    return f"port {port.get('address', '?')}"


class _Enrolment:
    def __init__(
        self,
        client: Client,
        spec: NodeSpec,
        existing: Existing = "skip",
        chassis_uuid: str | None = None,
    ) -> None:
        self.client = client
        self.spec = spec
        self.existing = existing
        self.chassis_uuid = chassis_uuid  # of the chassis the node is listed in
        self.result = NodeResult(spec)

    def run(self) -> NodeResult:
        body = self.spec.body
        if not isinstance(body, dict):
            self.result.error = "the node description must be an object"
            return self.result
        node = dict(body)
        try:
            ports = _list_of_objects(node.pop("ports", None), "'ports'")
            portgroups = _list_of_objects(node.pop("portgroups", None), "'portgroups'")
            members = [
                _list_of_objects(pg.pop("ports", None), "a portgroup's 'ports'")
                for pg in portgroups
            ]
        except _ItemError as error:
            self.result.error = str(error)
            return self.result
        traits = node.pop("traits", None)
        driver = node.pop("driver", None)
        if not isinstance(driver, str) or not driver:
            self.result.error = "the node has no 'driver'"
            return self.result
        if self.chassis_uuid is not None:
            own = node.get("chassis_uuid")
            if own not in (None, self.chassis_uuid):
                self.result.error = (
                    f"the node's chassis_uuid {own} is not the one of the chassis it is "
                    f"listed in ({self.chassis_uuid})"
                )
                return self.result
            node["chassis_uuid"] = self.chassis_uuid
        try:
            stored = self._stored_node(node)
            if stored is not None:
                return self._handle_existing(
                    stored,
                    {"driver": driver, **node},
                    traits,
                    ports,
                    list(zip(portgroups, members, strict=True)),
                )
            created = self.client.create_node(driver, **node)
        except _ItemError as error:
            self.result.error = str(error)
            return self.result
        except MetalwireClientError as error:
            self.result.error = _message(error)
            return self.result
        self.result.node_uuid = created.uuid
        self.result.chassis_uuid = created.get("chassis_uuid")
        try:
            if traits:
                self._step("traits", lambda: self.client.set_node_traits(created.uuid, traits))
            parts = list(zip(portgroups, members, strict=True))
            self._each_part(parts, ports, self._create_portgroup, self._create_port)
        except _ItemError as error:
            self.result.error = str(error)
            self._roll_back()
            return self.result
        self.result.status = "created"
        return self.result

    @staticmethod
    def _each_part(
        portgroups: Sequence[tuple[dict[str, Any], list[dict[str, Any]]]],
        ports: Sequence[dict[str, Any]],
        portgroup_step: Callable[[dict[str, Any]], str],
        port_step: Callable[[dict[str, Any], str | None], None],
    ) -> None:
        """Each portgroup, then its member ports, then the standalone ports, in file order."""
        for portgroup, member_ports in portgroups:
            pg_uuid = portgroup_step(portgroup)
            for port in member_ports:
                port_step(port, pg_uuid)
        for port in ports:
            port_step(port, None)

    def _stored_node(self, node: Mapping[str, Any]) -> Node | None:
        for key in ("uuid", "name"):
            ident = node.get(key)
            if isinstance(ident, str) and ident:
                try:
                    return self.client.get_node(ident)
                except NotFound:
                    continue
        return None

    def _handle_existing(
        self,
        stored: Node,
        fields: dict[str, Any],
        traits: Any,
        ports: list[dict[str, Any]],
        portgroups: list[tuple[dict[str, Any], list[dict[str, Any]]]],
    ) -> NodeResult:
        self.result.node_uuid = stored.uuid
        self.result.chassis_uuid = stored.get("chassis_uuid")
        if self.existing == "fail":
            self.result.error = (
                f"node {self.spec.label} exists already ({stored.uuid}); re-run with "
                "--existing skip or --existing update"
            )
            return self.result
        differing = _differing(stored, fields)
        if traits is not None and sorted(traits) != sorted(stored.get("traits") or []):
            differing["traits"] = traits
        if self.existing == "skip":
            self.result.status = "skipped"
            self.result.changes = [f"{name} differs" for name in differing]
            return self.result
        try:
            traits_value = differing.pop("traits", None)
            if differing:
                what = "node " + ", ".join(differing)
                self._step(what, lambda: self.client.update_node(stored.uuid, _patch(differing)))
                self.result.changes.extend(f"{name} updated" for name in differing)
                self.result.chassis_uuid = fields.get("chassis_uuid")
            if traits_value is not None:
                self._step("traits", lambda: self.client.set_node_traits(stored.uuid, traits_value))
                self.result.changes.append("traits updated")
            self._each_part(portgroups, ports, self._ensure_portgroup, self._ensure_port)
        except _ItemError as error:
            self.result.error = str(error)
            return self.result
        self.result.status = "updated" if self.result.changes else "unchanged"
        return self.result

    def _ensure_portgroup(self, portgroup: dict[str, Any]) -> str:
        """The portgroup's UUID, created or patched to match the file."""
        what = f"portgroup {portgroup.get('name') or portgroup.get('address') or '?'}"
        found = None
        if isinstance(portgroup.get("name"), str):
            with contextlib.suppress(NotFound):
                found = self.client.get_portgroup(portgroup["name"])
        if found is None and isinstance(portgroup.get("address"), str):
            matches = self.client.list_portgroups(address=portgroup["address"], detail=True)
            found = matches[0] if matches else None
        if found is None:
            uuid = self._create_portgroup(portgroup)
            self.result.changes.append(f"{what} created")
            return uuid
        self._patch_part(what, found, portgroup, self.client.update_portgroup)
        self.result.portgroups.append(found.uuid)
        return found.uuid

    def _ensure_port(self, port: dict[str, Any], portgroup_uuid: str | None) -> None:
        what = _port_label(port)
        address = port.get("address")
        matches = (
            self.client.list_ports(address=address, detail=True) if isinstance(address, str) else []
        )
        if not matches:
            self._create_port(port, portgroup_uuid)
            self.result.changes.append(f"{what} created")
            return
        wanted = dict(port)
        if portgroup_uuid is not None:
            wanted["portgroup_uuid"] = portgroup_uuid
        self._patch_part(what, matches[0], wanted, self.client.update_port)
        self.result.ports.append(matches[0].uuid)

    def _patch_part(
        self,
        what: str,
        found: Resource,
        wanted: Mapping[str, Any],
        update: Callable[[str, list[patch.PatchOp]], Any],
    ) -> None:
        """Patch a port or portgroup of the file that exists; one of another node is refused."""
        if found.get("node_uuid") != self.result.node_uuid:
            raise _ItemError(f"{what}: it exists on another node ({found.get('node_uuid')})")
        differing = _differing(found, {k: v for k, v in wanted.items() if k != "node_uuid"})
        if differing:
            self._step(what, lambda: update(found.uuid, _patch(differing)))
            self.result.changes.append(f"{what} updated ({', '.join(differing)})")

    def _step(self, what: str, action: Callable[[], Any]) -> Any:
        try:
            return action()
        except MetalwireClientError as error:
            raise _ItemError(f"{what}: {_message(error)}") from error

    def _create_portgroup(self, portgroup: dict[str, Any]) -> str:
        node_uuid = self.result.node_uuid
        assert node_uuid is not None
        what = f"portgroup {portgroup.get('name') or portgroup.get('address') or '?'}"
        if portgroup.get("node_uuid") not in (None, node_uuid):
            raise _ItemError(f"{what}: its node_uuid is not the node's")
        portgroup.pop("node_uuid", None)
        created = self._step(what, lambda: self.client.create_portgroup(node_uuid, **portgroup))
        self.result.portgroups.append(created.uuid)
        return str(created.uuid)

    def _create_port(self, port: dict[str, Any], portgroup_uuid: str | None) -> None:
        node_uuid = self.result.node_uuid
        assert node_uuid is not None
        what = _port_label(port)
        if port.get("node_uuid") not in (None, node_uuid):
            raise _ItemError(f"{what}: its node_uuid is not the node's")
        if portgroup_uuid is not None:
            if port.get("portgroup_uuid") not in (None, portgroup_uuid):
                raise _ItemError(f"{what}: its portgroup_uuid is not its portgroup's")
            port["portgroup_uuid"] = portgroup_uuid
        fields = {k: v for k, v in port.items() if k not in ("node_uuid", "address")}
        address = port.get("address")
        if address is None:
            raise _ItemError(f"{what}: 'address' is missing")
        if not isinstance(address, str):
            raise _ItemError(f"{what}: 'address' must be a MAC address, not {address!r}")
        created = self._step(what, lambda: self.client.create_port(node_uuid, address, **fields))
        self.result.ports.append(created.uuid)

    def _roll_back(self) -> None:
        """Delete what was created for the node: ports, portgroups, then the node."""
        problems: list[str] = []
        for port in reversed(self.result.ports):
            try:
                self.client.delete_port(port)
            except MetalwireClientError as error:
                problems.append(f"port {port}: {_message(error)}")
        for portgroup in reversed(self.result.portgroups):
            try:
                self.client.delete_portgroup(portgroup)
            except MetalwireClientError as error:
                problems.append(f"portgroup {portgroup}: {_message(error)}")
        assert self.result.node_uuid is not None
        try:
            self.client.delete_node(self.result.node_uuid)
        except MetalwireClientError as error:
            problems.append(f"node {self.result.node_uuid}: {_message(error)}")
            self.result.status = "rollback failed"
            self.result.error = f"{self.result.error}; rollback failed: {'; '.join(problems)}"
            return
        self.result.status = "rolled back"


def _differing(stored: Resource, wanted: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``wanted`` whose value is not the stored one (MACs in any case)."""
    differing = {}
    for name, value in wanted.items():
        current = stored.get(name)
        if name == "address" and isinstance(value, str) and isinstance(current, str):
            value, current = value.lower(), current.lower()
        if value != current:
            differing[name] = value
    return differing


def _patch(values: Mapping[str, Any]) -> list[patch.PatchOp]:
    return [
        patch.remove(name) if value is None else patch.add(name, value)
        for name, value in values.items()
    ]


class _ChassisEnrolment:
    def __init__(self, client: Client, spec: ChassisSpec, existing: Existing) -> None:
        self.client = client
        self.spec = spec
        self.existing = existing
        self.result = ChassisResult(spec)

    def run(self) -> ChassisResult:
        try:
            stored = self._stored()
            if stored is None:
                self.result.chassis_uuid = self.client.create_chassis(**self.spec.body).uuid
                self.result.status = "created"
            else:
                self._handle_existing(stored)
        except MetalwireClientError as error:
            self.result.status = "failed"
            self.result.error = _message(error)
        return self.result

    def _stored(self) -> Chassis | None:
        ident = self.spec.body.get("uuid")
        if not isinstance(ident, str) or not ident:
            return None  # a chassis has no name: one without UUID is always a new one
        try:
            return self.client.get_chassis(ident)
        except NotFound:
            return None

    def _handle_existing(self, stored: Chassis) -> None:
        self.result.chassis_uuid = stored.uuid
        if self.existing == "fail":
            self.result.error = (
                f"chassis {stored.uuid} exists already; re-run with --existing skip or "
                "--existing update"
            )
            return
        differing = _differing(stored, {k: v for k, v in self.spec.body.items() if k != "uuid"})
        if self.existing == "skip":
            self.result.status = "skipped"
            self.result.changes = [f"{name} differs" for name in differing]
            return
        if differing:
            self.client.update_chassis(stored.uuid, _patch(differing))
            self.result.changes = [f"{name} updated" for name in differing]
        self.result.status = "updated" if differing else "unchanged"

    def delete_if_empty(self) -> None:
        """Delete the chassis this run created for nodes when none of them is in it."""
        uuid = self.result.chassis_uuid
        if self.result.status != "created" or not self.spec.nodes or uuid is None:
            return
        try:
            if self.client.list_nodes(chassis_uuid=uuid, limit=1):
                return
            self.client.delete_chassis(uuid)
        except MetalwireClientError as error:
            self.result.status = "rollback failed"
            self.result.error = f"none of its nodes is in it; deleting it failed: {_message(error)}"
            return
        self.result.status = "rolled back"
        self.result.error = "none of its nodes is in it"


@dataclass
class Enrolled:
    """What happened to the chassis and the nodes of the files."""

    chassis: list[ChassisResult] = field(default_factory=list)
    nodes: list[NodeResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every node is as the files say, and no chassis failed."""
        return all(r.ok for r in self.nodes) and all(r.ok for r in self.chassis)


def enrol(
    client: Client,
    descriptions: Sequence[Description],
    progress: Callable[[Progress], None] | None = None,
    existing: Existing = "skip",
    chassis_progress: Callable[[ChassisResult], None] | None = None,
) -> Enrolled:
    """Enrol the chassis and nodes of each file in order; one failure does not stop the
    others. Of each file: each chassis, then its nodes, then the file's other nodes.

    ``existing`` says what to do with a chassis or node that exists already (see the
    module's text). ``progress`` is called before and after each node, ``chassis_progress``
    once a chassis is handled and again when it is deleted for having no node left. Never
    raises for a failure of a chassis or node: it is in its result.
    """
    enrolled = Enrolled()
    total = sum(len(d.all_nodes) for d in descriptions)

    def enrol_node(spec: NodeSpec, chassis: ChassisResult | None) -> None:
        index = len(enrolled.nodes) + 1
        if progress is not None:
            progress(Progress(index, total, spec))
        if chassis is not None and chassis.status not in DONE:
            result = NodeResult(
                spec, error=f"not enrolled: its chassis {chassis.spec.label} failed"
            )
        else:
            uuid = None if chassis is None else chassis.chassis_uuid
            result = _Enrolment(client, spec, existing, uuid).run()
        enrolled.nodes.append(result)
        if progress is not None:
            progress(Progress(index, total, spec, result))

    for description in descriptions:
        for chassis_spec in description.chassis:
            handling = _ChassisEnrolment(client, chassis_spec, existing)
            chassis_result = handling.run()
            enrolled.chassis.append(chassis_result)
            if chassis_progress is not None:
                chassis_progress(chassis_result)
            for spec in chassis_spec.nodes:
                enrol_node(spec, chassis_result)
            if chassis_result.status != "created":
                continue
            handling.delete_if_empty()
            if chassis_result.status != "created" and chassis_progress is not None:
                chassis_progress(chassis_result)  # deleted again (or not) for having no node
        for spec in description.nodes:
            enrol_node(spec, None)
    return enrolled
