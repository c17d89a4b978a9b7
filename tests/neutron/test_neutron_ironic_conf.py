"""An ironic.conf ``[neutron]`` section, as it is: a server configured only by an INI file
with Ironic's section and option names binds VIFs through the real Neutron."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.neutron.clients import Metalwire, Neutron, link
from tests.neutron.interface_fixtures import fixture_neutron  # noqa: F401  (the networks)
from tests.support.server import MetalwireServer


@pytest.fixture(scope="module")
def ironic_conf_server(
    neutron: Neutron, neutron_endpoint: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MetalwireServer]:
    """A server configured only by an INI file with Ironic's section and option names."""
    data_dir: Path = tmp_path_factory.mktemp("ironic-conf")
    conf = data_dir / "ironic.conf"
    conf.write_text(
        "[DEFAULT]\n"
        "transport_url = fake://\n"
        "enabled_deploy_interfaces = fake,direct\n"
        "[conductor]\n"
        "automated_clean = false\n"
        "[neutron]\n"
        "auth_type = none\n"
        f"endpoint_override = {neutron_endpoint}\n"
        "request_timeout = 60\n"
        "status_code_retries = 1\n"
        "status_code_retry_delay = 0.5\n"
        "port_setup_delay = 0\n"
        "fail_on_port_binding_failure = true\n"
        "provisioning_network = mw-provision\n"
        f"cleaning_network = {neutron.networks['mw-clean']['id']}\n"
        "add_all_ports = false\n"
    )
    with MetalwireServer(data_dir, config=conf) as running:
        yield running


def test_an_ironic_conf_neutron_section_works_as_it_is(
    ironic_conf_server: MetalwireServer, neutron: Neutron
) -> None:
    api = Metalwire(ironic_conf_server.url)
    node = api.node("ironic-conf")
    api.port(node, "52:54:00:35:00:01", link("Ethernet27/1"))
    vif = neutron.vif("mw-tenant-p1")
    api.provision("ironic-conf", "manage", "provide")
    assert api.attach("ironic-conf", vif["id"]).status_code == 204
    assert neutron.port(vif["id"])["mac_address"] == "52:54:00:35:00:01"

    assert api.provision("ironic-conf", "active")["provision_state"] == "active"
    assert neutron.wait_status(vif["id"], "ACTIVE")["binding:host_id"] == node["uuid"]
    history = api.get("/v1/nodes/ironic-conf/history?detail=true")["history"]
    assert "neutron.add_provisioning_network done" in [e["event"] for e in history]
    api.close()

    log = ironic_conf_server.log()
    assert "[DEFAULT] transport_url is an Ironic option metalwire does not use" in log
    assert "[neutron] add_all_ports is an Ironic option metalwire does not use" in log
    assert "deprecated" not in log
