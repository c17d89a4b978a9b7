"""The metalwire program logs in as the OpenStack clients do, against real servers.

A real ``metalwire serve`` in keystone mode, registered in the session's real Keystone as
service type ``baremetal`` in a region of its own; another in http_basic mode. The real
program (a subprocess) logs in with ``--os-*`` options, ``OS_*`` variables and clouds.yaml,
finds the endpoint in the catalog, and never prints a password, even with ``--debug``.
"""

from __future__ import annotations

import json
import os
import ssl
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from uvicorn.protocols.http.h11_impl import H11Protocol

from tests.auth.conftest import PASSWORD, Cloud, htpasswd_line
from tests.conftest import LATEST
from tests.support import preforked
from tests.support.server import (
    MetalwireServer,
    free_port,
    noauth_https_server,
    protocol_server,
    self_signed_certificate,
)

pytestmark = pytest.mark.server
REGION = "RegionCLI"
BASIC_PASSWORD = "basic-login-secret"


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def metalwire(*args: str, cwd: Path | None = None, **env: str) -> Run:
    """The real program, with only the ``OS_*`` variables given here, forked from a process
    that has imported it (tests/support/preforked.py)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("METALWIRE_", "OS_"))}
    # An empty HOME: no clouds.yaml of the machine's user is read.
    base["HOME"] = str(cwd or Path("/nonexistent"))
    argv = [sys.executable, "-m", "metalwire.cli.main", *args]
    done = preforked.run(argv, {**base, **env}, 120, cwd=cwd)
    return Run(done.returncode, done.stdout, done.stderr)


@dataclass
class KeystoneMetalwire:
    url: str
    node: str  # owned by owner-project
    cloud: Cloud


@pytest.fixture(scope="module")
def keystone_metalwire(
    tmp_path_factory: pytest.TempPathFactory, cloud: Cloud, persona_tokens: dict[str, str]
) -> Iterator[KeystoneMetalwire]:
    keystone = cloud.keystone
    with MetalwireServer(tmp_path_factory.mktemp("cli-login"), env=cloud.env()) as server:
        keystone.admin("POST", "/regions", json={"region": {"id": REGION}})
        body = {"service": {"type": "baremetal", "name": "metalwire-cli-login"}}
        service = keystone.admin("POST", "/services", json=body)["service"]["id"]
        endpoint = {"service_id": service, "interface": "public", "url": server.url}
        keystone.admin("POST", "/endpoints", json={"endpoint": {**endpoint, "region_id": REGION}})
        resp = httpx.post(
            f"{server.url}/v1/nodes",
            json={"driver": "fake-hardware", "owner": cloud.projects["owner-project"]},
            headers={
                "X-Auth-Token": persona_tokens["system_admin"],
                "X-OpenStack-Ironic-API-Version": LATEST,
            },
            timeout=30,
        )
        assert resp.status_code == 201, resp.text
        try:
            yield KeystoneMetalwire(server.url, resp.json()["uuid"], cloud)
        finally:
            # Other modules find "baremetal" in the same catalog.
            keystone.admin("DELETE", f"/services/{service}")


def _password_env(cloud: Cloud) -> dict[str, str]:
    return {
        "OS_AUTH_URL": cloud.keystone.url,
        "OS_USERNAME": "owner-member",
        "OS_PASSWORD": PASSWORD,
        "OS_PROJECT_NAME": "owner-project",
        "OS_USER_DOMAIN_NAME": "Default",
        "OS_PROJECT_DOMAIN_NAME": "Default",
        "OS_REGION_NAME": REGION,
    }


def _listed(run: Run) -> list[str]:
    assert run.code == 0, run.output
    return [row["UUID"] for row in json.loads(run.stdout)]


def test_os_variables_log_in_with_a_password_and_find_the_endpoint_in_the_catalog(
    keystone_metalwire: KeystoneMetalwire,
) -> None:
    run = metalwire("node", "list", "-f", "json", **_password_env(keystone_metalwire.cloud))
    assert _listed(run) == [keystone_metalwire.node]


def test_os_options_log_in_with_a_system_scoped_password(
    keystone_metalwire: KeystoneMetalwire,
) -> None:
    run = metalwire(
        *("node", "show", keystone_metalwire.node, "-f", "json"),
        *("--os-auth-type", "password", "--os-auth-url", keystone_metalwire.cloud.keystone.url),
        *("--os-username", "sys-admin", "--os-password", PASSWORD),
        *("--os-user-domain-name", "Default", "--os-system-scope", "all"),
        *("--os-region-name", REGION),
    )
    assert run.code == 0, run.output
    assert json.loads(run.stdout)["uuid"] == keystone_metalwire.node


def test_clouds_yaml_in_the_working_directory_names_the_cloud(
    keystone_metalwire: KeystoneMetalwire, tmp_path: Path
) -> None:
    cloud = keystone_metalwire.cloud
    (tmp_path / "clouds.yaml").write_text(
        "clouds:\n"
        "  lab:\n"
        f"    region_name: {REGION}\n"
        "    auth:\n"
        f"      auth_url: {cloud.keystone.url}\n"
        "      username: owner-member\n"
        f"      password: {PASSWORD}\n"
        "      project_name: owner-project\n"
        "      user_domain_name: Default\n"
        "      project_domain_name: Default\n"
    )
    run = metalwire("node", "list", "-f", "json", "--os-cloud", "lab", cwd=tmp_path)
    assert _listed(run) == [keystone_metalwire.node]
    by_variable = metalwire("node", "list", "-f", "json", cwd=tmp_path, OS_CLOUD="lab")
    assert _listed(by_variable) == [keystone_metalwire.node]
    before_the_command = metalwire("--os-cloud", "lab", "node", "list", "-f", "json", cwd=tmp_path)
    assert _listed(before_the_command) == [keystone_metalwire.node]


def test_an_unknown_cloud_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "clouds.yaml").write_text("clouds:\n  lab:\n    auth_type: none\n")
    run = metalwire("node", "list", "--os-cloud", "labb", cwd=tmp_path)
    assert run.code == 2, run.output
    assert run.stderr == "metalwire: error: cannot log in: Cloud labb was not found.\n"


def test_an_unknown_auth_type_is_a_usage_error_naming_it() -> None:
    run = metalwire("node", "list", "--os-auth-type", "pasword")
    assert run.code == 2, run.output
    assert "cannot log in: The plugin pasword could not be found" in run.stderr


def test_a_token_logs_in(keystone_metalwire: KeystoneMetalwire) -> None:
    keystone = keystone_metalwire.cloud.keystone
    token = keystone.token("owner-member", PASSWORD, project="owner-project")
    run = metalwire(
        *("node", "list", "-f", "json", "--os-auth-type", "token"),
        *("--os-auth-url", keystone.url, "--os-token", token, "--os-region-name", REGION),
        OS_PROJECT_NAME="owner-project",
        OS_PROJECT_DOMAIN_NAME="Default",
    )
    assert _listed(run) == [keystone_metalwire.node]


def test_an_application_credential_logs_in(keystone_metalwire: KeystoneMetalwire) -> None:
    cloud = keystone_metalwire.cloud
    owner = cloud.keystone.token("owner-member", PASSWORD, project="owner-project")
    created = cloud.keystone.admin(
        "POST",
        f"/users/{cloud.users['owner-member']}/application_credentials",
        json={"application_credential": {"name": "cli-login"}},
        headers={"X-Auth-Token": owner},
    )["application_credential"]
    run = metalwire(
        *("node", "list", "-f", "json"),
        OS_AUTH_TYPE="v3applicationcredential",
        OS_AUTH_URL=cloud.keystone.url,
        OS_APPLICATION_CREDENTIAL_ID=created["id"],
        OS_APPLICATION_CREDENTIAL_SECRET=created["secret"],
        OS_REGION_NAME=REGION,
    )
    assert _listed(run) == [keystone_metalwire.node]
    assert created["secret"] not in run.output


def test_debug_never_prints_the_password_nor_the_token(
    keystone_metalwire: KeystoneMetalwire,
) -> None:
    run = metalwire("node", "list", "--debug", **_password_env(keystone_metalwire.cloud))
    assert run.code == 0, run.output
    assert "REQ: curl" in run.stderr  # keystoneauth's request log is on
    assert PASSWORD not in run.output
    assert "X-Auth-Token: gAAAA" not in run.stderr  # fernet tokens are hashed


def test_a_wrong_password_fails_naming_the_refusal_without_the_password(
    keystone_metalwire: KeystoneMetalwire,
) -> None:
    env = {**_password_env(keystone_metalwire.cloud), "OS_PASSWORD": "not-the-password"}
    run = metalwire("node", "list", "--debug", **env)
    assert run.code == 1, run.output
    assert "Authentication failed" in run.stderr
    assert "not-the-password" not in run.output
    assert "Traceback" not in run.stderr


def test_a_missing_catalog_entry_says_how_to_give_the_endpoint(
    keystone_metalwire: KeystoneMetalwire,
) -> None:
    env = {**_password_env(keystone_metalwire.cloud), "OS_REGION_NAME": "RegionNowhere"}
    run = metalwire("node", "list", **env)
    assert run.code == 1, run.output
    assert "no public baremetal endpoint in region RegionNowhere" in run.stderr
    assert "--os-endpoint" in run.stderr


def test_os_endpoint_overrides_the_catalog(keystone_metalwire: KeystoneMetalwire) -> None:
    env = {**_password_env(keystone_metalwire.cloud), "OS_REGION_NAME": "RegionNowhere"}
    run = metalwire("node", "list", "-f", "json", "--os-endpoint", keystone_metalwire.url, **env)
    assert _listed(run) == [keystone_metalwire.node]


# -- http_basic -------------------------------------------------------------------------------


def _basic_env(root: Path) -> dict[str, str]:
    users = root / "htpasswd"
    users.write_text(htpasswd_line("alice", BASIC_PASSWORD) + "\n")
    return {
        "METALWIRE_AUTH_STRATEGY": "http_basic",
        "METALWIRE_HTTP_BASIC_AUTH_USER_FILE": str(users),
    }


@pytest.fixture(scope="module")
def basic_metalwire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("cli-basic")
    with MetalwireServer(root / "data", env=_basic_env(root)) as server:
        resp = httpx.post(
            f"{server.url}/v1/nodes",
            json={"driver": "fake-hardware", "name": "basic-0"},
            auth=("alice", BASIC_PASSWORD),
            headers={"X-OpenStack-Ironic-API-Version": LATEST},
            timeout=30,
        )
        assert resp.status_code == 201, resp.text
        yield server.url


def _basic_login(url: str, password: str) -> tuple[str, ...]:
    return (
        *("--os-auth-type", "http_basic", "--os-endpoint", url),
        *("--os-username", "alice", "--os-password", password),
    )


def test_http_basic_options_log_in_and_debug_hides_the_password(basic_metalwire: str) -> None:
    created = metalwire(
        "node", "create", "--driver", "fake-hardware", "--name", "basic-1", "-f", "json",
        *_basic_login(basic_metalwire, BASIC_PASSWORD), "--debug",
    )  # fmt: skip
    assert created.code == 0, created.output
    assert json.loads(created.stdout)["name"] == "basic-1"
    assert "REQ: curl" in created.stderr
    assert BASIC_PASSWORD not in created.output


def test_http_basic_variables_log_in(basic_metalwire: str) -> None:
    run = metalwire(
        *("node", "list", "-f", "value", "-c", "Name"),
        OS_AUTH_TYPE="http_basic",
        OS_ENDPOINT=basic_metalwire,
        OS_USERNAME="alice",
        OS_PASSWORD=BASIC_PASSWORD,
    )
    assert run.code == 0, run.output
    assert "basic-0" in run.stdout.split()


def test_http_basic_with_a_wrong_password_is_refused_without_echoing_it(
    basic_metalwire: str,
) -> None:
    run = metalwire("node", "list", *_basic_login(basic_metalwire, "wrong-pw"), "--debug")
    assert run.code == 1, run.output
    assert "401" in run.stderr or "uthenticat" in run.stderr
    assert "wrong-pw" not in run.output


def test_without_login_settings_the_url_credentials_still_work(basic_metalwire: str) -> None:
    with_userinfo = basic_metalwire.replace("http://", f"http://alice:{BASIC_PASSWORD}@")
    run = metalwire("node", "list", "-f", "value", "-c", "Name", METALWIRE_URL=with_userinfo)
    assert run.code == 0, run.output
    assert BASIC_PASSWORD not in run.output


# -- TLS --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tls_metalwire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    root = tmp_path_factory.mktemp("cli-tls")
    tls = self_signed_certificate(root)
    with MetalwireServer(root / "data", env=_basic_env(root), tls=tls) as server:
        yield server.url, tls[0]


def test_os_cacert_verifies_the_servers_certificate(tls_metalwire: tuple[str, Path]) -> None:
    url, cafile = tls_metalwire
    login = _basic_login(url, BASIC_PASSWORD)
    trusted = metalwire("node", "list", *login, "--os-cacert", str(cafile))
    assert trusted.code == 0, trusted.output
    untrusted = metalwire("node", "list", *login, "--max-retries", "0")
    assert untrusted.code == 1, untrusted.output
    assert "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr
    by_variable = metalwire("node", "list", *login, OS_CACERT=str(cafile))
    assert by_variable.code == 0, by_variable.output
    before_the_command = metalwire(*login, "--os-cacert", str(cafile), "node", "list")
    assert before_the_command.code == 0, before_the_command.output


def test_insecure_skips_the_certificate_check(tls_metalwire: tuple[str, Path]) -> None:
    url, _cafile = tls_metalwire
    run = metalwire("node", "list", *_basic_login(url, BASIC_PASSWORD), "--insecure")
    assert run.code == 0, run.output


@pytest.fixture(scope="module")
def tls_noauth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """metalwire over HTTPS without authentication: a command talks to it without logging in."""
    with noauth_https_server(tmp_path_factory.mktemp("cli-tls-noauth")) as found:
        yield found


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA certificate that signed neither server's certificate."""
    return self_signed_certificate(tmp_path_factory.mktemp("other-ca"))[0]


def test_tls_options_apply_to_a_url_without_login(tls_noauth: tuple[str, Path]) -> None:
    url, cafile = tls_noauth
    unverified = metalwire("node", "list", "--max-retries", "0", METALWIRE_URL=url)
    assert unverified.code == 1, unverified.output
    assert "CERTIFICATE_VERIFY_FAILED" in unverified.stderr
    for run in (
        metalwire("node", "list", "--insecure", METALWIRE_URL=url),
        metalwire("node", "list", "--os-endpoint", url, "--insecure"),
        metalwire("node", "list", "--os-cacert", str(cafile), METALWIRE_URL=url),
        metalwire("node", "list", "--url", url, "--os-cacert", str(cafile)),
        metalwire("node", "list", OS_ENDPOINT=url, OS_CACERT=str(cafile)),
        metalwire("node", "list", OS_ENDPOINT=url, OS_INSECURE="true"),
        metalwire("--insecure", "node", "list", METALWIRE_URL=url),
        metalwire("--os-endpoint", url, "node", "list", "--insecure"),
        metalwire("--os-cacert", str(cafile), "--url", url, "node", "list"),
    ):
        assert run.code == 0, run.output
        assert "CERTIFICATE_VERIFY_FAILED" not in run.output


def test_tls_options_apply_to_a_url_with_credentials(tls_metalwire: tuple[str, Path]) -> None:
    url, cafile = tls_metalwire
    with_userinfo = url.replace("https://", f"https://alice:{BASIC_PASSWORD}@")
    for tls in (("--os-cacert", str(cafile)), ("--insecure",)):
        run = metalwire("node", "list", "-f", "json", *tls, METALWIRE_URL=with_userinfo)
        assert run.code == 0, run.output
        assert json.loads(run.stdout) == []
        assert BASIC_PASSWORD not in run.output
        anonymous = metalwire("node", "list", *tls, "--max-retries", "0", METALWIRE_URL=url)
        assert anonymous.code == 1, anonymous.output  # the server wants the credentials
        assert "401" in anonymous.stderr or "uthenticat" in anonymous.stderr


def test_a_ca_that_did_not_sign_the_certificate_fails_the_verification(
    tls_noauth: tuple[str, Path], tls_metalwire: tuple[str, Path], other_ca: Path
) -> None:
    plain_url, _cafile = tls_noauth
    plain = metalwire("node", "list", "--url", plain_url, "--os-cacert", str(other_ca))
    login_url, _cafile = tls_metalwire
    login = metalwire(
        "node", "list", *_basic_login(login_url, BASIC_PASSWORD), "--os-cacert", str(other_ca)
    )
    for run, url in ((plain, plain_url), (login, login_url)):
        assert run.code == 1, run.output
        assert f"Cannot reach {url}/" in run.stderr
        assert "CERTIFICATE_VERIFY_FAILED" in run.stderr
        assert "Traceback" not in run.stderr


def test_tls_files_that_cannot_be_read_are_usage_errors_naming_them(
    tls_noauth: tuple[str, Path], tls_metalwire: tuple[str, Path], tmp_path: Path
) -> None:
    missing = str(tmp_path / "missing.pem")
    plain_url, cafile = tls_noauth
    login = _basic_login(tls_metalwire[0], BASIC_PASSWORD)
    for path in ("--url", plain_url), login:
        run = metalwire("node", "list", *path, "--os-cacert", missing)
        assert run.code == 2, run.output
        assert run.stderr == (
            f"metalwire: error: cannot use the CA bundle {missing}: "
            "[Errno 2] No such file or directory\n"
        )
        run = metalwire("node", "list", *path, "--os-cert", str(cafile), "--os-key", missing)
        assert run.code == 2, run.output
        assert run.stderr.startswith(
            f"metalwire: error: cannot use the client certificate {cafile} with the key "
            f"{missing}: [Errno 2] No such file or directory"
        )
        run = metalwire("node", "list", *path, "--os-key", missing)
        assert run.code == 2, run.output
        assert run.stderr == (
            f"metalwire: error: the client key {missing} (--os-key) needs its certificate "
            "(--os-cert)\n"
        )


def test_os_cert_and_os_key_present_the_client_certificate_without_login(
    tmp_path: Path,
) -> None:
    server_cert, server_key = self_signed_certificate(tmp_path)
    client = tmp_path / "client"
    client.mkdir()
    client_cert, client_key = self_signed_certificate(client)
    tls = {
        "ssl_certfile": str(server_cert),
        "ssl_keyfile": str(server_key),
        "ssl_ca_certs": str(client_cert),
        "ssl_cert_reqs": ssl.CERT_REQUIRED,
    }
    # A TLS server that requires a client certificate and answers 200 "ok" to everything.
    with protocol_server(H11Protocol, **tls) as port:
        url = f"https://127.0.0.1:{port}"
        common = ("node", "list", "--url", url, "--os-cacert", str(server_cert))
        refused = metalwire(*common, "--max-retries", "0")
        assert refused.code == 1, refused.output
        assert f"Cannot reach {url}/" in refused.stderr
        presented = metalwire(*common, "--os-cert", str(client_cert), "--os-key", str(client_key))
    # The TLS connection was made: the answer is not the API's.
    assert presented.code == 1, presented.output
    assert presented.stderr == "metalwire: GET / answered 200 with a body that is not JSON.\n"


def test_auth_type_none_talks_to_the_endpoint_given(server: MetalwireServer) -> None:
    by_option = metalwire("node", "list", "--os-auth-type", "none", "--os-endpoint", server.url)
    assert by_option.code == 0, by_option.output
    by_variable = metalwire("node", "list", OS_AUTH_TYPE="none", OS_ENDPOINT=server.url)
    assert by_variable.code == 0, by_variable.output


# -- missing secrets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("login", "needed"),
    [
        (("--os-auth-type", "password", "--os-username", "ops"), "password needs --os-password"),
        (("--os-username", "ops"), "password needs --os-password"),
        (("--os-auth-type", "token"), "token needs --os-token"),
        (("--os-auth-type", "v3totp", "--os-username", "ops"), "v3totp needs --os-passcode"),
    ],
)
def test_a_missing_password_or_token_is_a_usage_error_naming_it(
    login: tuple[str, ...], needed: str
) -> None:
    keystone = f"http://127.0.0.1:{free_port()}/v3"  # never asked: nothing is sent
    run = metalwire("node", "list", "--os-auth-url", keystone, *login)
    assert run.code == 2, run.output
    assert run.stderr.startswith(f"metalwire: error: cannot log in: auth type {needed}"), run.stderr
    assert "Traceback" not in run.output


def test_a_clouds_yaml_cloud_without_its_password_is_a_usage_error(tmp_path: Path) -> None:
    keystone = f"http://127.0.0.1:{free_port()}/v3"
    (tmp_path / "clouds.yaml").write_text(
        f"clouds:\n  lab:\n    auth:\n      auth_url: {keystone}\n      username: ops\n"
    )
    run = metalwire("node", "list", "--os-cloud", "lab", cwd=tmp_path)
    assert run.code == 2, run.output
    assert "auth type password needs --os-password (or OS_PASSWORD)" in run.stderr
    assert "Traceback" not in run.output


def test_http_basic_without_its_password_is_a_usage_error(basic_metalwire: str) -> None:
    run = metalwire(
        *("node", "list", "--os-auth-type", "http_basic", "--os-endpoint", basic_metalwire),
        OS_USERNAME="alice",
    )
    assert run.code == 2, run.output
    assert "auth type http_basic needs --os-password (or OS_PASSWORD)" in run.stderr
    with_variable = metalwire(
        *("node", "list", "--os-auth-type", "http_basic", "--os-endpoint", basic_metalwire),
        OS_USERNAME="alice",
        OS_PASSWORD=BASIC_PASSWORD,
    )
    assert with_variable.code == 0, with_variable.output


def test_an_identity_service_that_cannot_be_reached_is_named_not_the_api(
    basic_metalwire: str,
) -> None:
    """The API answers; only Keystone is down: the message must not send the operator to
    the API server."""
    keystone = f"http://127.0.0.1:{free_port()}/v3"
    run = metalwire(
        *("node", "list", "--max-retries", "0", "--os-endpoint", basic_metalwire),
        *("--os-auth-url", keystone, "--os-username", "ops", "--os-password", "pw"),
    )
    assert run.code == 1, run.output
    assert "metalwire: Cannot reach the identity service: " in run.stderr, run.stderr
    assert keystone in run.stderr
    assert f"Cannot reach {basic_metalwire}" not in run.stderr


def test_clouds_yaml_baremetal_endpoint_override_is_the_endpoint(
    basic_metalwire: str, tmp_path: Path
) -> None:
    """As bifrost writes clouds.yaml for a standalone service, and as the baremetal command
    reads it: the endpoint was looked for in a Keystone catalog there is none of."""
    (tmp_path / "clouds.yaml").write_text(
        "clouds:\n"
        "  standalone:\n"
        "    auth_type: http_basic\n"
        f"    auth: {{username: alice, password: {BASIC_PASSWORD}}}\n"
        f"    baremetal_endpoint_override: {basic_metalwire}\n"
    )
    run = metalwire(
        "node", "list", "-f", "value", "-c", "Name", "--os-cloud", "standalone", cwd=tmp_path
    )
    assert run.code == 0, run.output
    assert "basic-0" in run.stdout.split()
    elsewhere = f"http://127.0.0.1:{free_port()}"
    overridden = metalwire(
        *("node", "list", "--os-cloud", "standalone", "--os-endpoint", elsewhere),
        *("--max-retries", "0"),
        cwd=tmp_path,
    )
    assert overridden.code == 1 and f"Cannot reach {elsewhere}/" in overridden.stderr
