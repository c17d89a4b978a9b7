"""``/v1/conductors`` (1.49) as Ironic 39 answers it, and what the registry feeds elsewhere:
the drivers' ``hosts``, a node's ``conductor`` field and the node list's ``conductor``
filter, with several conductors registered on one database."""

from __future__ import annotations

import contextlib
import datetime as dt
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from metalwire.config import Config
from metalwire.db.engine import Database
from tests.api.test_enabled_interfaces import _served
from tests.conftest import LATEST, Api, fault
from tests.support.server import MetalwireServer

SHOWN = {"hostname", "conductor_group", "alive", "links"}
EVERY_FIELD = SHOWN | {"drivers", "created_at", "updated_at"}


def _register(
    config: Config, hostname: str, drivers: list[str], heartbeat_age: float = 0.0
) -> None:
    """A conductor row as another server would have written it, ``heartbeat_age`` seconds
    ago."""
    db = Database(config.database_url())
    try:
        now = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=heartbeat_age)
        with db.writing() as work:
            work.conductors.register(hostname, drivers, "", now)
    finally:
        db.dispose()


def _server(config: Config, host: str, hardware_types: list[str]) -> Any:
    """Another server on the test's database, with its own host and hardware types."""
    return contextlib.contextmanager(_served)(
        config, host=host, enabled_hardware_types=hardware_types
    )


def test_conductors_do_not_exist_below_1_49(api: Api) -> None:
    for url in ("/v1/conductors", "/v1/conductors/anything"):
        below = api.get(url, version="1.48")
        assert below.status_code == 404, below.text
        assert api.get(url, version="1.49").status_code in (200, 404)


def test_the_serving_process_is_listed_alive_with_ironics_default_fields(
    api: Api, config: Config
) -> None:
    resp = api.get("/v1/conductors", version="1.49")
    assert resp.status_code == 200, resp.text
    (me,) = resp.json()["conductors"]
    assert set(me) == SHOWN
    assert me["hostname"] == config.default.host
    assert me["conductor_group"] == ""
    assert me["alive"] is True
    assert me["links"] == [
        {"href": f"http://testserver/v1/conductors/{config.default.host}", "rel": "self"},
        {"href": f"http://testserver/conductors/{config.default.host}", "rel": "bookmark"},
    ]


def test_a_conductor_is_shown_by_hostname_with_every_field(api: Api, config: Config) -> None:
    host = config.default.host
    shown = api.get(f"/v1/conductors/{host}")
    assert shown.status_code == 200, shown.text
    body = shown.json()
    assert set(body) == EVERY_FIELD
    assert body["drivers"] == ["fake-hardware", "ipmi", "redfish", "manual-management"]
    assert body["alive"] is True
    assert dt.datetime.fromisoformat(body["updated_at"]) >= dt.datetime.fromisoformat(
        body["created_at"]
    )
    assert api.get(f"/v1/conductors/{host}?fields=alive").json() == {
        "alive": True,
        "links": body["links"],
    }


def test_an_unknown_conductor_is_404_in_ironics_words(api: Api) -> None:
    missing = api.get("/v1/conductors/nowhere.example")
    assert missing.status_code == 404
    assert fault(missing) == "Conductor nowhere.example could not be found."


def test_detail_and_fields_choose_what_a_list_shows(api: Api) -> None:
    detailed = api.get("/v1/conductors?detail=true").json()["conductors"][0]
    assert set(detailed) == EVERY_FIELD
    some = api.get("/v1/conductors?fields=hostname,drivers").json()["conductors"][0]
    assert set(some) == {"hostname", "drivers", "links"}
    both = api.get("/v1/conductors?fields=hostname&detail=true")
    assert both.status_code == 400
    unknown = api.get("/v1/conductors?fields=hostname,uuid")
    assert unknown.status_code == 400
    assert "uuid" in fault(unknown)
    stray = api.get("/v1/conductors?driver=ipmi")
    assert stray.status_code == 400
    assert "driver" in fault(stray)


def test_a_dead_conductor_is_listed_not_alive(api: Api, config: Config) -> None:
    timeout = config.conductor.heartbeat_timeout
    _register(config, "stale.example", ["ipmi"], heartbeat_age=timeout + 5)
    _register(config, "fresh.example", ["ipmi"], heartbeat_age=timeout - 5)
    listed = api.get("/v1/conductors").json()["conductors"]
    alive = {item["hostname"]: item["alive"] for item in listed}
    assert alive == {config.default.host: True, "stale.example": False, "fresh.example": True}
    assert api.get("/v1/conductors/stale.example").json()["alive"] is False


def test_pages_are_marked_by_hostname_and_sorted_as_asked(api: Api, config: Config) -> None:
    for name in ("c.example", "a.example", "b.example"):
        _register(config, name, ["ipmi"])
    every = sorted(["a.example", "b.example", "c.example", config.default.host])
    first = api.get("/v1/conductors?limit=2&sort_key=hostname").json()
    assert [item["hostname"] for item in first["conductors"]] == every[:2]
    next_page = urlsplit(first["next"])
    assert next_page.path == "/v1/conductors"
    assert parse_qs(next_page.query)["marker"] == [every[1]]
    rest = api.get(f"/v1/conductors?{next_page.query}").json()
    assert [item["hostname"] for item in rest["conductors"]] == every[2:]
    down = api.get("/v1/conductors?sort_key=hostname&sort_dir=desc").json()["conductors"]
    assert [item["hostname"] for item in down] == every[::-1]
    missing = api.get("/v1/conductors?marker=gone.example")
    assert missing.status_code == 404
    assert fault(missing) == "Conductor gone.example could not be found."


@pytest.mark.parametrize("key", ["alive", "drivers"])
def test_alive_and_drivers_are_no_sort_keys(api: Api, key: str) -> None:
    refused = api.get(f"/v1/conductors?sort_key={key}")
    assert refused.status_code == 400
    assert fault(refused) == f"The sort_key value {key} is an invalid field for sorting"


def test_a_bad_limit_or_direction_is_400(api: Api) -> None:
    assert fault(api.get("/v1/conductors?limit=0")) == "Limit must be positive"
    assert api.get("/v1/conductors?sort_dir=up").status_code == 400


def test_drivers_list_the_alive_conductors_that_enable_them(api: Api, config: Config) -> None:
    _register(config, "ilo-box.example", ["ilo", "ipmi"])
    _register(config, "dead.example", ["idrac"], heartbeat_age=10_000)
    drivers = {d["name"]: d["hosts"] for d in api.get("/v1/drivers").json()["drivers"]}
    me = config.default.host
    assert drivers["ipmi"] == sorted([me, "ilo-box.example"])
    assert drivers["fake-hardware"] == [me]
    assert drivers["ilo"] == ["ilo-box.example"]
    assert "idrac" not in drivers
    assert api.get("/v1/drivers/ilo").json()["hosts"] == ["ilo-box.example"]
    assert api.get("/v1/drivers/idrac").status_code == 404


def test_a_nodes_conductor_is_the_server_answering_when_it_serves_the_type(
    config: Config,
) -> None:
    """Two servers on one database: ``everything`` enables ipmi, ``fake-only`` does not. Each
    names itself for the nodes it serves, the other for the rest; the filter agrees."""
    with (
        _server(config, "everything", ["fake-hardware", "ipmi"]) as everything,
        _server(config, "fake-only", ["fake-hardware"]) as fake_only,
    ):
        ipmi = everything.node(name="bmc-node", driver="ipmi")
        fake = everything.node(name="fake-node", driver="fake-hardware")

        def conductor_of(api: Api, node: dict[str, Any]) -> Any:
            return api.get(f"/v1/nodes/{node['uuid']}?fields=conductor").json()["conductor"]

        def names(api: Api, query: str) -> list[str]:
            resp = api.get(f"/v1/nodes?{query}")
            assert resp.status_code == 200, resp.text
            return sorted(n["name"] for n in resp.json()["nodes"])

        assert conductor_of(everything, ipmi) == "everything"
        assert conductor_of(everything, fake) == "everything"
        assert conductor_of(fake_only, ipmi) == "everything"
        assert conductor_of(fake_only, fake) == "fake-only"
        assert names(fake_only, "conductor=fake-only") == ["fake-node"]
        assert names(fake_only, "conductor=everything") == ["bmc-node"]
        assert names(everything, "conductor=everything") == ["bmc-node", "fake-node"]
        assert names(everything, "conductor=fake-only") == []
        assert names(everything, "conductor=nowhere") == []
        listed = fake_only.get("/v1/nodes?fields=name,conductor").json()["nodes"]
        assert {n["name"]: n["conductor"] for n in listed} == {
            "bmc-node": "everything",
            "fake-node": "fake-only",
        }
        hosts = {d["name"]: d["hosts"] for d in fake_only.get("/v1/drivers").json()["drivers"]}
        assert hosts == {"fake-hardware": ["everything", "fake-only"], "ipmi": ["everything"]}


def test_a_node_no_alive_conductor_serves_has_no_conductor(config: Config) -> None:
    with _server(config, "everything", ["fake-hardware", "ipmi"]) as everything:
        ipmi = everything.node(name="orphan", driver="ipmi")
    with _server(config, "fake-only", ["fake-hardware"]) as fake_only:
        shown = fake_only.get(f"/v1/nodes/{ipmi['uuid']}?fields=conductor").json()
        assert shown["conductor"] is None  # "everything" stopped cleanly: offline
        assert fake_only.get("/v1/nodes?conductor=everything").json()["nodes"] == []
        listed = fake_only.get("/v1/conductors").json()["conductors"]
        assert {c["hostname"]: c["alive"] for c in listed} == {
            "everything": False,
            "fake-only": True,
        }


@pytest.mark.server
@pytest.mark.parametrize("path", ["/v1/conductors", "/v1/conductors/{host}"])
def test_a_system_reader_may_read_conductors_and_a_project_member_may_not(
    personas: MetalwireServer, path: str
) -> None:
    def get(user: str, url: str) -> httpx.Response:
        return httpx.get(
            personas.url + url,
            auth=(user, f"{user}-pw"),
            headers={"X-OpenStack-Ironic-API-Version": LATEST},
            timeout=30,
        )

    host = get("viewer", "/v1/conductors").json()["conductors"][0]["hostname"]
    assert get("viewer", path.format(host=host)).status_code == 200
    refused = get("tenant", path.format(host=host))
    assert refused.status_code == 403
    assert "baremetal:conductor:get" in fault(refused)


def test_a_marker_or_host_name_without_a_host_or_with_a_bad_port_is_400(api: Api) -> None:
    """Ironic 39 reads a conductor's marker and host name as ``host[:port]`` before looking
    it up: no host, or a port that is no number, is a bad request, not a missing conductor."""
    for marker in ("", ":8080", "[]:1"):
        refused = api.get(f"/v1/conductors?marker={marker}")
        assert refused.status_code == 400, marker
        assert fault(refused) == "Missing host in marker"
    for marker in ("gone.example:http", "gone.example:", "[::1]:x", "[::1"):
        refused = api.get("/v1/conductors", params={"marker": marker})
        assert refused.status_code == 400, marker
        assert fault(refused).startswith("marker: "), fault(refused)
    unnamed = api.get("/v1/conductors/:8080")
    assert unnamed.status_code == 400
    assert fault(unnamed) == "Missing host in hostname"
    bad_port = api.get("/v1/conductors/gone.example:http")
    assert bad_port.status_code == 400
    assert fault(bad_port) == "hostname: the port 'http' is not a number"
    for missing in ("gone.example:8080", "[::1]:8080", "fe80::1"):
        assert api.get(f"/v1/conductors/{missing}").status_code == 404, missing
        assert api.get("/v1/conductors", params={"marker": missing}).status_code == 404


@pytest.mark.server
def test_a_host_name_without_a_host_is_400_before_the_policy_is_asked(
    personas: MetalwireServer,
) -> None:
    """As Ironic 39, which validates the host name among the arguments, before its policy
    check: a project member who may not read conductors is told the name is malformed."""
    refused = httpx.get(
        personas.url + "/v1/conductors/:8080",
        auth=("tenant", "tenant-pw"),
        headers={"X-OpenStack-Ironic-API-Version": LATEST},
        timeout=30,
    )
    assert refused.status_code == 400
    assert fault(refused) == "Missing host in hostname"
