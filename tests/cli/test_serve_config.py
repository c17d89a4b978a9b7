"""Configuration mistakes stop or warn a real ``metalwire serve`` at start, loudly."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

from metalwire.config import load_config
from metalwire.errors import Invalid
from tests.auth.conftest import htpasswd_line
from tests.cli.conftest import Result, clean_env, run_metalwire, serve_until_exit
from tests.support import preforked
from tests.support.server import MetalwireServer, free_port

pytestmark = pytest.mark.server


def _refused_start(tmp_path: Path, text: str) -> tuple[Path, str]:
    """``metalwire serve`` with a configuration file of ``text``, which it must refuse
    (exit status 2): the file and what the server wrote on stderr."""
    config = tmp_path / "ironic.conf"
    config.write_text(text)
    done = serve_until_exit(tmp_path / "data", "--config", str(config), "--port", str(free_port()))
    assert done.code == 2, done.stderr
    return config, done.stderr


def test_a_misspelled_section_refuses_to_start_with_a_did_you_mean(tmp_path: Path) -> None:
    text = "[databse]\nconnection = postgresql://db.example/metalwire\n"
    config, stderr = _refused_start(tmp_path, text)
    assert stderr == (
        f"metalwire: configuration file {config}: unknown section [databse], neither "
        "metalwire's nor Ironic's; did you mean [database]?\n"
    )
    assert not (tmp_path / "data" / "metalwire.db").exists()  # no fresh SQLite file


def test_an_ironic_section_metalwire_does_not_read_starts_with_a_warning(tmp_path: Path) -> None:
    config = tmp_path / "ironic.conf"
    config.write_text("[pxe]\ntftp_root = /tftpboot\n[DEFAULT]\nauth_strategy = noauth\n")
    with MetalwireServer(tmp_path / "data", config=config) as server:
        log = server.log()
    assert f"{config}: [pxe] is an Ironic section metalwire does not use; ignored" in log


def test_an_empty_htpasswd_file_warns_at_start(tmp_path: Path) -> None:
    users = tmp_path / "htpasswd"
    users.write_text("# nobody yet\n")
    env = {
        "METALWIRE_AUTH_STRATEGY": "http_basic",
        "METALWIRE_HTTP_BASIC_AUTH_USER_FILE": str(users),
    }
    with MetalwireServer(tmp_path / "data", env=env) as server:
        log = server.log()
    assert f"http_basic_auth_user_file {users} has no users: every request" in log


def test_a_htpasswd_file_with_users_starts_without_that_warning(tmp_path: Path) -> None:
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("ops", "ops-pw") + "\n")
    env = {
        "METALWIRE_AUTH_STRATEGY": "http_basic",
        "METALWIRE_HTTP_BASIC_AUTH_USER_FILE": str(users),
    }
    with MetalwireServer(tmp_path / "data", env=env) as server:
        assert "has no users" not in server.log()


@pytest.mark.parametrize(
    ("section", "suggestion"),
    [("default", "did you mean [DEFAULT]?"), ("Neutron", "did you mean [neutron]?")],
)
def test_the_suggestion_ignores_case(tmp_path: Path, section: str, suggestion: str) -> None:
    config = tmp_path / "metalwire.conf"
    config.write_text(f"[{section}]\nx = 1\n")
    with pytest.raises(Invalid, match=rf"unknown section \[{section}\].*{suggestion}"):
        load_config(str(config), environ={})


def test_a_section_like_nothing_known_lists_metalwires_sections(tmp_path: Path) -> None:
    config = tmp_path / "metalwire.conf"
    config.write_text("[zzz]\nx = 1\n")
    with pytest.raises(Invalid, match=r"\[zzz\].*metalwire reads \[DEFAULT\], \[api\]"):
        load_config(str(config), environ={})


@pytest.mark.parametrize(
    ("port", "refusal"),
    [("-1", "-1 is below the minimum 1"), ("65536", "65536 is above the maximum 65535")],
)
def test_a_port_outside_1_to_65535_refuses_to_start_naming_the_option(
    tmp_path: Path, port: str, refusal: str
) -> None:
    """65536 used to be served as 'http://127.0.0.1:65536' (the socket took it modulo
    65536), -1 refused as a host that 'cannot be resolved'."""
    done = serve_until_exit(tmp_path / "data", "--port", port)
    assert done.code == 2, done.stderr
    assert done.stderr == f"metalwire: configuration option [api] port: {refusal}\n"


def test_a_data_dir_that_cannot_be_a_directory_refuses_to_start_naming_it(tmp_path: Path) -> None:
    taken = tmp_path / "metalwire-data"
    taken.write_text("not a directory\n")
    for data_dir in (taken, taken / "below"):
        done = serve_until_exit(data_dir, "--port", str(free_port()))
        assert done.code == 2, done.stderr
        assert done.stderr.startswith(
            f"metalwire: cannot create the directory '{data_dir}' of the SQLite database: "
        ), done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:"])
def test_an_in_memory_sqlite_database_refuses_to_start(tmp_path: Path, url: str) -> None:
    done = serve_until_exit(tmp_path / "data", "--database", url, "--port", str(free_port()))
    assert done.code == 2, done.stderr
    assert done.stderr.startswith(f"metalwire: the database URL '{url}' names an in-memory")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("content", "refusal"),
    [
        (b"host_ip = 127.0.0.1\n", "is not a valid INI file: File contains no section headers."),
        (b"[api]\nport\n", "is not a valid INI file: Source contains parsing errors"),
        (b"[DEFAULT]\nhost = caf\xe9\n", "is not UTF-8 text (byte 0xe9 at offset 20)"),
    ],
)
def test_a_malformed_configuration_file_refuses_to_start_naming_it(
    tmp_path: Path, content: bytes, refusal: str
) -> None:
    """Each of these ended serve (and db) in a configparser or UnicodeDecodeError traceback."""
    config = tmp_path / "metalwire.conf"
    config.write_bytes(content)
    for argv in (("--port", str(free_port())), ()):
        command = serve_until_exit if argv else _db_current
        done = command(tmp_path / "data", "--config", str(config), *argv)
        assert done.code == 2, done.stderr
        assert done.stderr.startswith(f"metalwire: configuration file {config} "), done.stderr
        assert refusal in done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "data").exists()


def test_an_option_given_twice_in_a_section_takes_the_last_value_as_oslo_config(
    tmp_path: Path,
) -> None:
    """An ironic.conf that oslo.config reads (the last value of a repeated option wins, a
    repeated section adds to the first) refused to start: 'option ... already exists'."""
    config = tmp_path / "ironic.conf"
    config.write_text(
        "[DEFAULT]\n"
        "auth_strategy = http_basic\n"
        "auth_strategy = noauth\n"
        "[api]\n"
        "max_request_body_size = 1\n"
        "[DEFAULT]\n"
        "debug = false\n"
        "[api]\n"
        "max_request_body_size = 1048576\n"
    )
    with MetalwireServer(tmp_path / "data", config=config) as server:
        nodes = httpx.get(server.url + "/v1/nodes", timeout=10)
        created = httpx.post(server.url + "/v1/nodes", json={"driver": "fake-hardware"}, timeout=10)
        log = server.log()
    assert nodes.status_code == 200, nodes.text  # noauth, the last value: no credentials
    assert created.status_code == 201, created.text  # a 1-byte body limit would refuse it
    assert (
        f"{config}: [DEFAULT] auth_strategy is set more than once (lines 2, 3); the last "
        "value is used, as oslo.config does"
    ) in log
    assert f"{config}: [api] max_request_body_size is set more than once (lines 5, 9)" in log
    assert "[DEFAULT] debug is set more than once" not in log


def test_an_option_of_default_set_in_another_section_is_refused_there(tmp_path: Path) -> None:
    """[api] auth_strategy was dropped without a word when [DEFAULT] set auth_strategy too
    (ConfigParser gives every section [DEFAULT]'s options, and those were skipped): the
    server served noauth to an operator who asked for http_basic."""
    text = "[DEFAULT]\nauth_strategy = noauth\n[api]\nauth_strategy = http_basic\n"
    config, stderr = _refused_start(tmp_path, text)
    assert stderr == f"metalwire: configuration file {config}: unknown option [api] auth_strategy\n"


def test_a_sections_option_named_as_one_of_default_is_read(tmp_path: Path) -> None:
    """[neutron] auth_strategy (the old name of auth_type) was ignored whenever [DEFAULT]
    set auth_strategy, as an ironic.conf does: Neutron was called without credentials."""
    config = tmp_path / "ironic.conf"
    config.write_text("[DEFAULT]\nauth_strategy = noauth\n[neutron]\nauth_strategy = keystone\n")
    loaded = load_config(str(config), environ={})
    assert loaded.default.auth_strategy == "noauth"
    assert loaded.neutron.auth_type == "password"


def test_a_configuration_path_that_is_a_directory_is_named_as_one(tmp_path: Path) -> None:
    """It was refused as a file that 'does not exist', while it does."""
    done = serve_until_exit(tmp_path / "data", "--config", str(tmp_path), "--port", "1")
    assert done.code == 2, done.stderr
    assert (
        done.stderr == f"metalwire: configuration file {tmp_path} cannot be read: Is a directory\n"
    )


def test_a_personas_file_that_is_not_utf8_refuses_to_start(tmp_path: Path) -> None:
    users = tmp_path / "htpasswd"
    users.write_text(htpasswd_line("ops", "pw") + "\n")
    personas = tmp_path / "personas.yaml"
    personas.write_bytes(b"ops:\n  roles: [caf\xe9]\n")
    env = {
        "METALWIRE_AUTH_STRATEGY": "http_basic",
        "METALWIRE_HTTP_BASIC_AUTH_USER_FILE": str(users),
        "METALWIRE_HTTP_BASIC_AUTH_PERSONAS_FILE": str(personas),
    }
    argv = [sys.executable, "-m", "metalwire.cli.main", "serve", "--data-dir", str(tmp_path / "d")]
    done = preforked.run([*argv, "--port", str(free_port())], clean_env(**env), 60)
    assert done.returncode == 2, done.stderr
    assert f"personas_file '{personas}' is not UTF-8 text" in done.stderr
    assert "Traceback" not in done.stderr


def _serve_with_env(data_dir: Path, **env: str) -> Result:
    argv = [sys.executable, "-m", "metalwire.cli.main", "serve", "--data-dir", str(data_dir)]
    done = preforked.run([*argv, "--port", str(free_port())], clean_env(**env), 60)
    return Result(done.returncode, done.stdout, done.stderr)


def test_http_basic_with_an_empty_user_file_option_names_it_at_start(tmp_path: Path) -> None:
    """It was refused as "'' cannot be read: Is a directory" (the empty path is the
    current directory)."""
    done = _serve_with_env(
        tmp_path / "data",
        METALWIRE_AUTH_STRATEGY="http_basic",
        METALWIRE_HTTP_BASIC_AUTH_USER_FILE="",
    )
    assert done.code == 2, done.stderr
    assert done.stderr == (
        "metalwire: [DEFAULT] http_basic_auth_user_file is empty: auth_strategy http_basic "
        "reads its users from an htpasswd file; make one with 'htpasswd -c -B FILE USER' and "
        "name it\n"
    )


def test_http_basic_without_a_user_file_names_the_option_and_why_at_start(
    tmp_path: Path,
) -> None:
    default = Path("/etc/metalwire/htpasswd")
    if default.exists():
        pytest.skip(f"{default} exists on this machine")
    done = _serve_with_env(tmp_path / "data", METALWIRE_AUTH_STRATEGY="http_basic")
    assert done.code == 2, done.stderr
    assert done.stderr == (
        f"metalwire: [DEFAULT] http_basic_auth_user_file '{default}' cannot be read: No such "
        "file or directory; auth_strategy http_basic reads its users from it\n"
    )


def _db_current(data_dir: Path, *args: str) -> Result:
    return run_metalwire("db", "current", "--data-dir", str(data_dir), *args, env=clean_env())


def test_an_ironic_conf_with_ramdisks_by_architecture_starts_and_boots_each_architecture(
    tmp_path: Path,
) -> None:
    """It refused to start ('unknown option [conductor] deploy_kernel_by_arch')."""
    config = tmp_path / "ironic.conf"
    config.write_text(
        "[DEFAULT]\n"
        "auth_strategy = noauth\n"
        "[deploy]\n"
        "http_url = http://192.0.2.1:8080\n"
        "[conductor]\n"
        "deploy_kernel_by_arch = aarch64:http://i/arm.kernel,x86_64:http://i/x86.kernel\n"
        "deploy_ramdisk_by_arch = aarch64:http://i/arm.initramfs\n"
    )
    version = {"X-OpenStack-Ironic-API-Version": "1.78"}
    boots = {}
    with MetalwireServer(tmp_path / "data", config=config) as server:
        for number, arch in enumerate(("aarch64", "x86_64")):
            node = {
                "name": arch,
                "driver": "fake-hardware",
                "boot_interface": "pxe",
                "deploy_interface": "direct",
                "properties": {"cpu_arch": arch},
            }
            created = httpx.post(f"{server.url}/v1/nodes", json=node, headers=version)
            assert created.status_code == 201, created.text
            port = {"node_uuid": created.json()["uuid"], "address": f"52:54:00:51:00:0{number}"}
            assert httpx.post(f"{server.url}/v1/ports", json=port, headers=version).is_success
            validated = httpx.get(f"{server.url}/v1/nodes/{arch}/validate", headers=version)
            boots[arch] = validated.json()["boot"]
        log = server.log()
    assert boots["aarch64"] == {"result": True}
    assert boots["x86_64"]["result"] is False
    assert boots["x86_64"]["reason"].endswith(
        "[conductor] deploy_kernel_by_arch and deploy_ramdisk_by_arch for x86_64, or "
        "[conductor] deploy_kernel and deploy_ramdisk; missing: deploy_kernel, deploy_ramdisk."
    )
    assert (
        "[conductor] deploy_kernel_by_arch names x86_64, which [conductor] "
        "deploy_ramdisk_by_arch does not: such nodes take their deploy ramdisk from elsewhere"
    ) in log
