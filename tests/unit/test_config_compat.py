"""An operator's ironic.conf is read as it is: Ironic's [neutron] names, old metalwire names
with a deprecation warning, and Ironic options metalwire does not use with a warning."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from metalwire.conductor.boot import warn_about_unpaired_ramdisks
from metalwire.config import load_config
from metalwire.errors import Invalid

IRONIC_NEUTRON = """\
[neutron]
auth_type = v3applicationcredential
endpoint_override = https://neutron.example:9696
auth_url = https://keystone.example/identity
username = ironic
password = pw-secret
project_name = service
user_domain_name = users
project_domain_name = projects
application_credential_id = ac-id
application_credential_secret = ac-secret
token = tok-secret
cafile = /etc/ironic/ca.pem
certfile = /etc/ironic/client.pem
keyfile = /etc/ironic/client.key
insecure = true
request_timeout = 90
status_code_retries = 5
status_code_retry_delay = 1.5
connect_retries = 3
connect_retry_delay = 0.5
retriable_status_codes = 409,503
valid_interfaces = public
region_name = RegionTwo
service_type = network
service_name = neutron
provisioning_network = prov-net
cleaning_network = clean-net
port_setup_delay = 15
"""


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "ironic.conf"
    path.write_text(text)
    return str(path)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_every_ironic_neutron_option_is_read_from_the_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    opts = load_config(write(tmp_path, IRONIC_NEUTRON), environ={}).neutron
    assert opts.auth_type == "v3applicationcredential"
    assert opts.endpoint_override == "https://neutron.example:9696"
    assert opts.auth_url == "https://keystone.example/identity"
    assert (opts.username, opts.password, opts.project_name) == ("ironic", "pw-secret", "service")
    assert (opts.user_domain_name, opts.project_domain_name) == ("users", "projects")
    assert (opts.application_credential_id, opts.application_credential_secret) == (
        "ac-id",
        "ac-secret",
    )
    assert opts.token == "tok-secret"
    assert (opts.cafile, opts.certfile, opts.keyfile) == (
        "/etc/ironic/ca.pem",
        "/etc/ironic/client.pem",
        "/etc/ironic/client.key",
    )
    assert opts.insecure is True
    assert opts.request_timeout == 90.0
    assert (opts.status_code_retries, opts.status_code_retry_delay) == (5, 1.5)
    assert (opts.connect_retries, opts.connect_retry_delay) == (3, 0.5)
    assert opts.retriable_status_codes == [409, 503]
    assert (opts.valid_interfaces, opts.region_name) == (["public"], "RegionTwo")
    assert (opts.service_type, opts.service_name) == ("network", "neutron")
    assert (opts.provisioning_network, opts.cleaning_network) == ("prov-net", "clean-net")
    assert opts.port_setup_delay == 15.0
    assert warnings_of(caplog) == []


def test_the_defaults_are_ironics() -> None:
    opts = load_config(environ={}).neutron
    assert opts.auth_type == "none" and opts.endpoint_override == ""
    assert opts.request_timeout == 45.0
    assert opts.valid_interfaces == ["internal", "public"]
    assert opts.service_type == "network"
    assert opts.status_code_retry_delay is None and opts.connect_retries is None
    assert opts.retriable_status_codes == [503]
    assert opts.insecure is False


def test_environment_variables_take_the_new_names() -> None:
    env = {
        "METALWIRE_NEUTRON_ENDPOINT_OVERRIDE": "http://n:9696",
        "METALWIRE_NEUTRON_STATUS_CODE_RETRY_DELAY": "0.25",
        "METALWIRE_NEUTRON_INSECURE": "yes",
    }
    opts = load_config(environ=env).neutron
    assert opts.endpoint_override == "http://n:9696"
    assert opts.status_code_retry_delay == 0.25
    assert opts.insecure is True


@pytest.mark.parametrize(
    ("old", "value", "new", "expected"),
    [
        ("url", "http://u:url-secret@n:9696", "endpoint_override", "http://u:url-secret@n:9696"),
        ("auth_strategy", "noauth", "auth_type", "none"),
        ("auth_strategy", "keystone", "auth_type", "password"),
        ("auth_strategy", "token", "auth_type", "token"),
        ("timeout", "7.5", "request_timeout", 7.5),
        ("retries", "0", "status_code_retries", 0),
    ],
)
def test_an_old_name_in_the_file_is_read_as_the_new_option_with_a_warning(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    old: str,
    value: str,
    new: str,
    expected: object,
) -> None:
    path = write(tmp_path, f"[neutron]\n{old} = {value}\n")
    assert getattr(load_config(path, environ={}).neutron, new) == expected
    assert warnings_of(caplog) == [
        f"{path}: [neutron] {old} is deprecated: use [neutron] {new} (Ironic's name)"
    ]
    assert "secret" not in caplog.text


def test_an_old_environment_name_warns_naming_the_new_variable(
    caplog: pytest.LogCaptureFixture,
) -> None:
    opts = load_config(environ={"METALWIRE_NEUTRON_URL": "http://n:9696"}).neutron
    assert opts.endpoint_override == "http://n:9696"
    assert warnings_of(caplog) == [
        "environment: METALWIRE_NEUTRON_URL is deprecated: use "
        "METALWIRE_NEUTRON_ENDPOINT_OVERRIDE (Ironic's name)"
    ]


def test_the_new_name_wins_over_the_old_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write(tmp_path, "[neutron]\ntimeout = 5\nrequest_timeout = 60\n")
    assert load_config(path, environ={}).neutron.request_timeout == 60.0
    assert warnings_of(caplog) == [
        f"{path}: [neutron] timeout is deprecated and ignored: [neutron] request_timeout is set"
    ]


def test_ironic_options_metalwire_does_not_use_start_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write(
        tmp_path,
        "[DEFAULT]\ntransport_url = rabbit://ironic:rabbit-secret@mq\n"
        "hash_partition_exponent = 6\n"
        "[neutron]\nendpoint_override = http://n:9696\nservicing_network = svc\n",
    )
    assert load_config(path, environ={}).neutron.endpoint_override == "http://n:9696"
    assert sorted(warnings_of(caplog)) == [
        f"{path}: [DEFAULT] hash_partition_exponent is an Ironic option metalwire does not "
        "use; ignored",
        f"{path}: [DEFAULT] transport_url is an Ironic option metalwire does not use; ignored",
        f"{path}: [neutron] servicing_network is an Ironic option metalwire does not use; ignored",
    ]
    assert "secret" not in caplog.text


@pytest.mark.parametrize("section", ["DEFAULT", "neutron"])
def test_an_option_neither_knows_is_still_refused(tmp_path: Path, section: str) -> None:
    path = write(tmp_path, f"[{section}]\nno_such_option = 1\n")
    with pytest.raises(Invalid, match=rf"unknown option \[{section}\] no_such_option"):
        load_config(path, environ={})


def test_a_bad_retry_delay_names_the_option(tmp_path: Path) -> None:
    path = write(tmp_path, "[neutron]\nstatus_code_retry_delay = soon\n")
    with pytest.raises(Invalid, match=r"\[neutron\] status_code_retry_delay: bad value 'soon'"):
        load_config(path, environ={})


def test_ironic_api_workers_is_read_and_checked(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert load_config(write(tmp_path, "[api]\n"), environ={}).api.api_workers == 1
    opts = load_config(write(tmp_path, "[api]\napi_workers = 4\n"), environ={}).api
    assert opts.api_workers == 4 and warnings_of(caplog) == []
    with pytest.raises(Invalid, match="api_workers"):
        load_config(write(tmp_path, "[api]\napi_workers = 0\n"), environ={})


IRONIC_BOOT = """\
[deploy]
http_url = http://192.0.2.3:8080
http_root = /srv/httpboot
fast_track = true
[conductor]
deploy_kernel = http://images.example.com/ipa.kernel
deploy_ramdisk = http://images.example.com/ipa.initramfs
[agent]
manage_agent_boot = false
"""


def test_ironic_boot_options_are_read_and_the_other_deploy_options_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        conf = load_config(write(tmp_path, IRONIC_BOOT), environ={})

    assert (conf.deploy.http_url, conf.deploy.http_root) == (
        "http://192.0.2.3:8080",
        "/srv/httpboot",
    )
    assert conf.conductor.deploy_kernel == "http://images.example.com/ipa.kernel"
    assert conf.conductor.deploy_ramdisk == "http://images.example.com/ipa.initramfs"
    assert conf.agent.manage_agent_boot is False
    assert any("[deploy] fast_track" in w and "ignored" in w for w in warnings_of(caplog))


def test_an_unknown_deploy_option_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Invalid, match=r"unknown option \[deploy\] http_ur"):
        load_config(write(tmp_path, "[deploy]\nhttp_ur = http://x\n"), environ={})


@pytest.mark.parametrize(
    "url", ["ftp://192.0.2.3", "192.0.2.3:8080", "http://", "http:///httpboot", "HTTP://x"]
)
def test_an_http_url_that_is_not_an_http_url_with_a_host_is_refused(
    tmp_path: Path, url: str
) -> None:
    # what oslo.config's URI option with the http and https schemes refuses in Ironic
    with pytest.raises(Invalid, match=r"\[deploy\] http_url: .* is not a URL with a host"):
        load_config(write(tmp_path, f"[deploy]\nhttp_url = {url}\n"), environ={})


@pytest.mark.parametrize("url", ["", "http://192.0.2.3:8080", "https://boot.example.com/"])
def test_an_http_url_is_taken(tmp_path: Path, url: str) -> None:
    conf = load_config(write(tmp_path, f"[deploy]\nhttp_url = {url}\n"), environ={})

    assert conf.deploy.http_url == url


def test_ironic_ramdisks_by_architecture_are_read_as_key_value_pairs(tmp_path: Path) -> None:
    conf = tmp_path / "ironic.conf"
    conf.write_text(
        "[conductor]\n"
        "deploy_kernel_by_arch = x86_64:http://i/ipa.kernel, aarch64:http://i/ipa-arm.kernel\n"
        "deploy_ramdisk_by_arch = x86_64:http://i/ipa.initramfs\n"
        "error_on_ramdisk_config_inconsistency = true\n"
    )

    options = load_config(str(conf), environ={}).conductor

    assert options.deploy_kernel_by_arch == {
        "x86_64": "http://i/ipa.kernel",
        "aarch64": "http://i/ipa-arm.kernel",
    }
    assert options.deploy_ramdisk_by_arch == {"x86_64": "http://i/ipa.initramfs"}
    assert options.rescue_kernel_by_arch == {}
    assert options.error_on_ramdisk_config_inconsistency is True


def test_a_ramdisk_by_architecture_from_the_environment() -> None:
    environ = {"METALWIRE_CONDUCTOR_RESCUE_RAMDISK_BY_ARCH": "ppc64le:file:///srv/r.img"}

    options = load_config(environ=environ).conductor

    assert options.rescue_ramdisk_by_arch == {"ppc64le": "file:///srv/r.img"}


@pytest.mark.parametrize("value", ["http://i/ipa.kernel", "x86_64:k,aarch64", ":http://i/k"])
def test_a_pair_without_its_architecture_is_refused_naming_the_option(
    tmp_path: Path, value: str
) -> None:
    conf = tmp_path / "ironic.conf"
    conf.write_text(f"[conductor]\ndeploy_kernel_by_arch = {value}\n")

    with pytest.raises(
        Invalid,
        match=r"\[conductor\] deploy_kernel_by_arch: bad value .*"
        r"expected KEY:VALUE pairs",
    ):
        load_config(str(conf), environ={})


def test_an_architecture_given_half_a_ramdisk_is_warned_about_at_start(
    caplog: pytest.LogCaptureFixture,
) -> None:
    environ = {
        "METALWIRE_CONDUCTOR_DEPLOY_KERNEL_BY_ARCH": "aarch64:http://i/k,x86_64:http://i/k86",
        "METALWIRE_CONDUCTOR_DEPLOY_RAMDISK_BY_ARCH": "x86_64:http://i/r86",
        "METALWIRE_CONDUCTOR_RESCUE_RAMDISK_BY_ARCH": "ppc64le:http://i/r",
    }

    with caplog.at_level(logging.WARNING):
        warn_about_unpaired_ramdisks(load_config(environ=environ))

    assert warnings_of(caplog) == [
        "[conductor] deploy_kernel_by_arch names aarch64, which [conductor] "
        "deploy_ramdisk_by_arch does not: such nodes take their deploy ramdisk from elsewhere",
        "[conductor] rescue_ramdisk_by_arch names ppc64le, which [conductor] "
        "rescue_kernel_by_arch does not: such nodes take their rescue ramdisk from elsewhere",
    ]
