"""``metalwire conductor list|show`` and ``metalwire driver list|show`` against the session's
real server, checked against what its API answers."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.cli.conftest import Run
from tests.support.server import MetalwireServer

VERSION = {"X-OpenStack-Ironic-API-Version": "1.115"}


def _json(cli: Run, *args: str) -> Any:
    result = cli(*args, "-f", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def _api(server: MetalwireServer, path: str) -> Any:
    resp = httpx.get(server.url + path, headers=VERSION)
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_conductors_listed_and_shown(cli: Run, server: MetalwireServer) -> None:
    served = _api(server, "/v1/conductors?detail=true")["conductors"]
    assert served, "the server counts itself"
    listed = _json(cli, "conductor", "list", "--limit", "0")
    assert listed == [
        {"Hostname": c["hostname"], "Conductor Group": c["conductor_group"], "Alive": c["alive"]}
        for c in served
    ]
    host = served[0]["hostname"]
    long = _json(cli, "conductor", "list", "--long")
    assert long[0]["Hostname"] == host and long[0]["Drivers"] == served[0]["drivers"]

    shown = _json(cli, "conductor", "show", host)
    assert (shown["hostname"], shown["alive"]) == (host, True)
    assert "fake-hardware" in shown["drivers"]
    assert _json(cli, "conductor", "show", host, "--fields", "hostname") == {"hostname": host}

    missing = cli("conductor", "show", "no-such-host.example")
    assert missing.code == 1 and "could not be found" in missing.stderr, missing.stderr
    old = cli("--api-version", "1.48", "conductor", "list")
    assert old.code == 1 and "1.49" in old.stderr, old.stderr


def test_drivers_listed_and_shown(cli: Run, server: MetalwireServer) -> None:
    served = _api(server, "/v1/drivers")["drivers"]
    listed = _json(cli, "driver", "list")
    assert listed == [
        {"Supported driver(s)": d["name"], "Active host(s)": d["hosts"]} for d in served
    ]
    assert "fake-hardware" in {row["Supported driver(s)"] for row in listed}
    assert _json(cli, "driver", "list", "--type", "classic") == []
    long = {row["Supported driver(s)"]: row for row in _json(cli, "driver", "list", "--long")}
    detailed = _api(server, "/v1/drivers/fake-hardware")
    assert (
        long["fake-hardware"]["Default Network Interface"]
        == (detailed["default_network_interface"])
    )
    names = _json(cli, "driver", "list", "--fields", "name")
    assert names == [{"Supported driver(s)": d["name"]} for d in served]

    shown = _json(cli, "driver", "show", "fake-hardware")
    assert shown == {k: v for k, v in detailed.items() if k not in ("links", "properties")}
    assert "flat" in shown["enabled_network_interfaces"]
    some = _json(cli, "driver", "show", "fake-hardware", "--fields", "name", "hosts")
    assert some == {"name": "fake-hardware", "hosts": detailed["hosts"]}
    missing = cli("driver", "show", "no-such-driver")
    assert missing.code == 1 and "no-such-driver" in missing.stderr, missing.stderr


def test_driver_properties_listed(cli: Run, server: MetalwireServer) -> None:
    served = _api(server, "/v1/drivers/fake-hardware/properties")
    listed = _json(cli, "driver", "property", "list", "fake-hardware")
    assert listed == [{"Property": k, "Description": v} for k, v in sorted(served.items())]
    raid = _api(server, "/v1/drivers/fake-hardware/raid/logical_disk_properties")
    assert "raid_level" in raid  # fake-hardware's default RAID interface is fake
    listed = _json(cli, "driver", "raid", "property", "list", "fake-hardware")
    assert listed == [{"Property": k, "Description": v} for k, v in sorted(raid.items())]
    missing = cli("driver", "property", "list", "no-such-driver")
    assert missing.code == 1 and "no-such-driver" in missing.stderr, missing.stderr
