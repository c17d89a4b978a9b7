"""The endpoint, connection, login and TLS options go before the command, as the openstack
command takes them (``metalwire --os-cloud C node list``), or after it; given both ways, the one
after the command wins. The output options go either way too, with the same meaning; given both
ways, with the same value. The real program against the session's real server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from metalwire.client import Client
from tests.cli.conftest import Run, clean_env, run_metalwire
from tests.client.util import mac, unique, vif_namer
from tests.support.helpers import free_port
from tests.support.server import MetalwireServer

v = vif_namer()


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


def test_the_connection_options_may_come_before_the_command(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("connection")).uuid
    # the version: below node traits' 1.37 the client refuses to ask, naming both versions
    for option in ("--os-baremetal-api-version", "--api-version"):
        old = cli(option, "1.36", "node", "trait", "list", node)
        assert old.code == 1 and "1.37" in old.stderr and "1.36" in old.stderr, old.stderr
    after_wins = cli(
        "--api-version", "1.36", "node", "trait", "list", node, "--api-version", "1.37"
    )
    assert after_wins.code == 0, after_wins.stderr
    from_env = cli("node", "trait", "list", node, OS_BAREMETAL_API_VERSION="1.36")
    assert from_env.code == 1 and "1.37" in from_env.stderr, from_env.stderr
    over_env = cli(
        "--api-version", "1.37", "node", "trait", "list", node, OS_BAREMETAL_API_VERSION="1.36"
    )
    assert over_env.code == 0, over_env.stderr
    # --debug logs the requests; --max-retries 0 gives up at the first refused connection
    debug = cli("--debug", "node", "show", node)
    assert debug.code == 0 and f"/v1/nodes/{node}" in debug.stderr, debug.stderr
    quiet = cli("node", "show", node)
    assert quiet.code == 0 and quiet.stderr == "", quiet.stderr
    dead = f"http://127.0.0.1:{free_port()}"  # nothing listens
    no_retry = cli("--debug", "--max-retries", "0", "--url", dead, "node", "list")
    retried = cli(
        *("--debug", "--max-retries", "0", "--url", dead, "node", "list", "--max-retries", "1")
    )
    assert no_retry.code == retried.code == 1, (no_retry.stderr, retried.stderr)
    assert "retry 1 in" not in no_retry.stderr and "retry 1 in" in retried.stderr, retried.stderr
    timeout = cli("--timeout", "5", "node", "show", node)
    assert timeout.code == 0, timeout.stderr
    bad = cli("--timeout", "soon", "node", "show", node)
    assert bad.code == 2 and "--timeout" in bad.stderr, bad.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["--os-cloud", "lab", "serve"],
        ["--insecure", "version"],
        ["--os-endpoint", "http://127.0.0.1:6385", "db", "current"],
        ["--os-baremetal-api-version", "1.50", "serve"],
        ["--debug", "version"],
        ["--max-retries", "0", "db", "current"],
    ],
    ids=" ".join,
)
def test_the_options_before_a_command_that_is_not_a_client_are_refused(argv: list[str]) -> None:
    run = run_metalwire(*argv, env=clean_env())
    assert run.code == 2, run.stderr
    option = {
        "--os-endpoint": "--url/--os-endpoint",
        "--os-baremetal-api-version": "--api-version/--os-baremetal-api-version",
    }.get(argv[0], argv[0])
    assert run.stderr.endswith(
        f"metalwire: error: {option} is an option of the client commands only\n"
    )
    assert run.stdout == ""


def test_help_lists_the_options_once_and_the_commands_still_list_them() -> None:
    top = run_metalwire("--help", env=clean_env())
    assert top.code == 0, top.stderr
    assert top.stdout.startswith(
        "usage: metalwire [-h] [--version] [CLIENT OPTIONS] [-f FORMAT] [-c COLUMN] COMMAND ...\n"
    )
    assert "endpoint, connection and login of the client commands:" in top.stdout
    for option in (
        *("--os-endpoint", "--os-cloud", "--os-cacert", "--os-cert", "--insecure"),
        *("--os-baremetal-api-version", "--timeout", "--max-retries", "--debug"),
    ):
        assert top.stdout.count(f"{option} ") == 1, option
    command = run_metalwire("node", "list", "--help", env=clean_env())
    assert command.code == 0, command.stderr
    assert command.stdout.startswith("usage: metalwire node list [-h] [--url URL]")
    assert "--os-cloud VALUE" in command.stdout and "--insecure" in command.stdout


def test_the_output_options_may_come_before_the_command(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("before"))
    port = mw.create_port(node.uuid, mac())
    mw.vif_attach(node.uuid, v("vif-before"))
    name = node.name or ""
    before = cli("-f", "yaml", "node", "vif", "list", name)
    assert (before.code, before.stderr) == (0, "")
    assert before.stdout == f"- ID: {v('vif-before')}\n"
    assert before.stdout == cli("node", "vif", "list", name, "-f", "yaml").stdout
    uuid = cli("--format", "value", "--column", "uuid", "node", "show", name)
    assert (uuid.code, uuid.stderr, uuid.stdout) == (0, "", f"{node.uuid}\n")
    listed = cli("-f", "json", "-c", "UUID", "-c", "Address", "port", "list", "--node", name)
    assert (listed.code, listed.stderr) == (0, "")
    assert json.loads(listed.stdout) == [{"UUID": port.uuid, "Address": port.address}]
    split = cli("-f", "value", "port", "list", "--node", name, "-c", "Address")
    assert (split.code, split.stderr, split.stdout) == (0, "", f"{port.address}\n")
    same = cli("-f", "json", "node", "vif", "list", name, "--format", "json")
    assert (same.code, same.stderr) == (0, "")
    assert json.loads(same.stdout) == [{"ID": v("vif-before")}]


def test_the_output_options_may_come_between_a_group_and_its_verb(cli: Run, mw: Client) -> None:
    node = mw.create_node("fake-hardware", name=unique("between"))
    port = mw.create_port(node.uuid, mac())
    mw.vif_attach(node.uuid, v("vif-between"))
    name = node.name or ""
    after = cli("node", "vif", "list", name, "-f", "yaml")
    assert (after.code, after.stdout) == (0, f"- ID: {v('vif-between')}\n"), after.stderr
    for argv in (
        ["node", "-f", "yaml", "vif", "list", name],
        ["node", "vif", "-f", "yaml", "list", name],
        ["-f", "yaml", "node", "vif", "--format", "yaml", "list", name, "-f", "yaml"],
    ):
        run = cli(*argv)
        assert (run.code, run.stderr, run.stdout) == (0, "", after.stdout), argv
    uuid = cli("node", "-f", "value", "-c", "uuid", "show", name)
    assert (uuid.code, uuid.stderr, uuid.stdout) == (0, "", f"{node.uuid}\n")
    listed = cli("port", "-f", "json", "-c", "UUID", "list", "--node", name, "-c", "UUID")
    assert (listed.code, listed.stderr) == (0, "")
    assert json.loads(listed.stdout) == [{"UUID": port.uuid}]
    group_help = cli("node", "--help")
    assert group_help.stdout.startswith("usage: metalwire node [-h] [-f ")
    # A group none of whose commands prints results does not offer them.
    assert "--format" not in cli("db", "--help").stdout


def test_an_unknown_column_before_the_command_is_the_same_usage_error(cli: Run) -> None:
    before = cli("-c", "Nope", "node", "list")
    after = cli("node", "list", "-c", "Nope")
    assert before.code == after.code == 2, before.stderr
    assert before.stderr == after.stderr
    assert before.stderr.startswith("metalwire: error: No such column: Nope.")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["-f", "yaml", "node", "list", "-f", "json"],
            "-f/--format is given before the command (yaml) and after it (json): "
            "give it once, or the same both ways",
        ),
        (
            ["-c", "UUID", "node", "list", "-c", "Name"],
            "-c/--column is given before the command (-c UUID) and after it (-c Name): "
            "give it once, or the same both ways",
        ),
        (
            ["-f", "json", "node", "delete", "nothing-is-deleted"],
            "-f/--format is an option of the commands that print results only",
        ),
        (
            ["-c", "UUID", "version"],
            "-c/--column is an option of the commands that print results only",
        ),
        (
            ["-f", "yaml", "serve"],
            "-f/--format is an option of the commands that print results only",
        ),
        (["-f", "xml", "node", "list"], "argument -f/--format: invalid choice: 'xml'"),
        (
            ["node", "-f", "yaml", "list", "-f", "json"],
            "-f/--format is given before the command (yaml) and after it (json): "
            "give it once, or the same both ways",
        ),
        (
            ["-f", "json", "node", "-f", "yaml", "list"],
            "-f/--format is given twice before the command (json and yaml): "
            "give it once, or the same each time",
        ),
        (
            ["node", "-c", "UUID", "vif", "-c", "Name", "list", "x"],
            "-c/--column is given twice before the command (-c UUID and -c Name): "
            "give it once, or the same each time",
        ),
        (
            ["node", "-f", "json", "delete", "nothing-is-deleted"],
            "-f/--format is an option of the commands that print results only",
        ),
        (
            ["node", "delete", "nothing-is-deleted", "-f", "json"],
            "-f/--format is an option of the commands that print results only",
        ),
        (
            ["node", "maintenance", "-c", "UUID", "set", "nothing-is-changed"],
            "-c/--column is an option of the commands that print results only",
        ),
        (
            ["db", "-f", "yaml", "current"],
            "-f/--format is an option of the commands that print results only",
        ),
    ],
    ids=" ".join,
)
def test_output_options_before_the_command_that_cannot_apply_are_refused(
    cli: Run, argv: list[str], message: str
) -> None:
    run = cli(*argv)
    assert run.code == 2, run.stderr
    assert run.stderr.startswith("usage: metalwire ")
    assert f"\nmetalwire: error: {message}" in run.stderr
    assert run.stdout == ""
