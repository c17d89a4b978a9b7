"""The endpoint, login and TLS options go before the command, as the openstack command takes
them (``metalwire --os-cloud C node list``), or after it; given both ways, the one after the
command wins. The real program against the session's real server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import clean_env, run_metalwire
from tests.support.server import MetalwireServer, free_port


def _clouds_yaml(directory: Path, url: str) -> dict[str, str]:
    """A clouds.yaml naming cloud ``lab`` (metalwire at ``url``, no authentication); the
    environment that makes the program read it and no other."""
    path = directory / "clouds.yaml"
    path.write_text(f"clouds:\n  lab:\n    auth_type: none\n    auth:\n      endpoint: {url}\n")
    return clean_env(OS_CLIENT_CONFIG_FILE=str(path), HOME=str(directory))


def test_the_endpoint_may_come_before_the_command(server: MetalwireServer) -> None:
    for option in ("--os-endpoint", "--url"):
        run = run_metalwire(option, server.url, "node", "list", "-f", "json", env=clean_env())
        assert run.code == 0, run.stderr
    nested = run_metalwire("--os-endpoint", server.url, "node", "vif", "list", "x", env=clean_env())
    assert nested.code == 1, nested.stderr  # it reached the server, which has no node x
    assert "x could not be found" in nested.stderr


def test_login_options_may_come_before_the_command(server: MetalwireServer, tmp_path: Path) -> None:
    env = _clouds_yaml(tmp_path, server.url)
    by_cloud = run_metalwire("--os-cloud", "lab", "node", "list", "-f", "json", env=env)
    assert by_cloud.code == 0, by_cloud.stderr
    by_options = run_metalwire(
        *("--os-auth-type", "none", "--os-endpoint", server.url, "port", "list"), env=env
    )
    assert by_options.code == 0, by_options.stderr
    unknown = run_metalwire("--os-cloud", "nowhere", "node", "list", env=env)
    assert unknown.code == 2, unknown.stderr
    assert unknown.stderr == "metalwire: error: cannot log in: Cloud nowhere was not found.\n"


def test_an_option_after_the_command_wins_over_the_same_before_it(
    server: MetalwireServer, tmp_path: Path
) -> None:
    dead = f"http://127.0.0.1:{free_port()}"  # nothing listens
    env = _clouds_yaml(tmp_path, server.url)
    after_is_live = run_metalwire("--url", dead, "node", "list", "--url", server.url, env=env)
    assert after_is_live.code == 0, after_is_live.stderr
    after_is_dead = run_metalwire(
        *("--os-endpoint", server.url, "node", "list", "--os-endpoint", dead),
        *("--max-retries", "0"),
        env=env,
    )
    assert after_is_dead.code == 1, after_is_dead.stderr
    assert f"Cannot reach {dead}/" in after_is_dead.stderr
    cloud_after = run_metalwire(
        "--os-cloud", "nowhere", "node", "list", "--os-cloud", "lab", env=env
    )
    assert cloud_after.code == 0, cloud_after.stderr
    cloud_before = run_metalwire(
        "--os-cloud", "lab", "node", "list", "--os-cloud", "nowhere", env=env
    )
    assert cloud_before.code == 2, cloud_before.stderr
    assert "Cloud nowhere was not found" in cloud_before.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["--os-cloud", "lab", "serve"],
        ["--insecure", "version"],
        ["--os-endpoint", "http://127.0.0.1:6385", "db", "current"],
    ],
    ids=" ".join,
)
def test_the_options_before_a_command_that_is_not_a_client_are_refused(argv: list[str]) -> None:
    run = run_metalwire(*argv, env=clean_env())
    assert run.code == 2, run.stderr
    option = "--url/--os-endpoint" if argv[0] == "--os-endpoint" else argv[0]
    assert run.stderr.endswith(
        f"metalwire: error: {option} is an option of the client commands only\n"
    )
    assert run.stdout == ""


def test_help_lists_the_options_once_and_the_commands_still_list_them() -> None:
    top = run_metalwire("--help", env=clean_env())
    assert top.code == 0, top.stderr
    assert top.stdout.startswith(
        "usage: metalwire [-h] [--version] [ENDPOINT AND LOGIN OPTIONS] COMMAND ...\n"
    )
    assert "endpoint and login of the client commands:" in top.stdout
    for option in ("--os-endpoint", "--os-cloud", "--os-cacert", "--os-cert", "--insecure"):
        assert top.stdout.count(f"{option} ") == 1, option
    command = run_metalwire("node", "list", "--help", env=clean_env())
    assert command.code == 0, command.stderr
    assert command.stdout.startswith("usage: metalwire node list [-h] [--url URL]")
    assert "--os-cloud VALUE" in command.stdout and "--insecure" in command.stdout
