"""``metalwire tbn check FILE`` and the trait-based networking file at ``metalwire serve``'s
start, through the real program."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from tests.cli.conftest import clean_env, run_metalwire, serve_until_exit
from tests.support.server import MetalwireServer, free_port

GOOD = dedent(
    """\
    CUSTOM_BONDED:
      order: 2
      actions:
        - action: group_and_attach_ports
          filter: port.category == 'network' && network.tags == 'bonded'
          min_count: 2
    CUSTOM_STORAGE:
      actions:
        - action: attach_port
          filter: port.vendor =~ 'mlx' || (port.physical_network == 'storage' && port.is_port)
    """
)

BAD = dedent(
    """\
    CUSTOM_BONDED:
      order: first
      actions:
        - action: bond_ports
          filter: port.category == 'network' &&
          min_count: 2
          colour: red
    """
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tbn.yaml"
    path.write_text(text)
    return path


def test_check_lists_a_valid_files_traits_in_the_order_they_are_tried(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    done = run_metalwire("tbn", "check", str(path), env=clean_env())
    assert done.code == 0, done.stderr
    assert done.stdout == (
        f"{path}: valid, 2 trait(s)\n"
        "CUSTOM_STORAGE (order 1)\n"
        "  line 9: attach_port \"port.vendor =~ 'mlx' || port.physical_network == 'storage' "
        '&& port.is_port"\n'
        "CUSTOM_BONDED (order 2)\n"
        "  line 4: group_and_attach_ports \"port.category == 'network' && network.tags == "
        "'bonded'\", min_count 2\n"
    )


def test_check_reports_every_mistake_with_its_line_and_exits_1(tmp_path: Path) -> None:
    path = write(tmp_path, BAD)
    done = run_metalwire("tbn", "check", str(path), env=clean_env())
    assert done.code == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"{path}: line 2: trait CUSTOM_BONDED order must be an integer",
        f"{path}: line 5: trait CUSTOM_BONDED action 1: filter \"port.category == 'network' "
        "&&\", column 30: expected a variable, port.is_port, port.is_portgroup or '(', found "
        "the end",
        f"{path}: line 7: trait CUSTOM_BONDED action 1 has an unknown key 'colour' (an action "
        "has action, filter, min_count, max_count)",
    ]


def test_check_of_a_missing_file_says_so(tmp_path: Path) -> None:
    done = run_metalwire("tbn", "check", str(tmp_path / "absent.yaml"), env=clean_env())
    assert done.code == 1
    assert "absent.yaml: cannot be read" in done.stderr


def test_check_needs_no_server_side_packages(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "metalwire.cli.main", "tbn", "check", str(path)],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "sqlalchemy" not in imported and "fastapi" not in imported


def conf_with(tmp_path: Path, rules: Path, enabled: bool = True) -> Path:
    config = tmp_path / "metalwire.conf"
    config.write_text(
        "[conductor]\n"
        f"enable_trait_based_networking = {str(enabled).lower()}\n"
        f"trait_based_networking_config_file = {rules}\n"
    )
    return config


@pytest.mark.server
def test_an_invalid_rules_file_stops_serve_naming_the_line(tmp_path: Path) -> None:
    config = conf_with(tmp_path, write(tmp_path, BAD))
    done = serve_until_exit(tmp_path / "data", "--config", str(config), "--port", str(free_port()))
    assert done.code == 2, done.stderr
    assert done.stderr.startswith(
        f"metalwire: trait-based networking file {tmp_path / 'tbn.yaml'} is invalid: "
        "line 2: trait CUSTOM_BONDED order must be an integer; line 5: "
    )
    assert not (tmp_path / "data" / "metalwire.db").exists()


@pytest.mark.server
def test_a_missing_rules_file_stops_serve_when_enabled(tmp_path: Path) -> None:
    config = conf_with(tmp_path, tmp_path / "absent.yaml")
    done = serve_until_exit(tmp_path / "data", "--config", str(config), "--port", str(free_port()))
    assert done.code == 2
    assert "absent.yaml: cannot be read" in done.stderr


@pytest.mark.server
def test_a_valid_rules_file_is_loaded_at_start_and_an_unread_one_when_disabled(
    tmp_path: Path,
) -> None:
    config = conf_with(tmp_path, write(tmp_path, GOOD))
    with MetalwireServer(tmp_path / "data", config=config) as server:
        log = server.log()
    assert (
        f"trait-based networking: 2 trait(s) from {tmp_path / 'tbn.yaml'}: CUSTOM_BONDED, "
        "CUSTOM_STORAGE"
    ) in log
    disabled = conf_with(tmp_path, write(tmp_path, BAD), enabled=False)
    with MetalwireServer(tmp_path / "data", config=disabled) as server:
        assert "trait-based networking" not in server.log()


def test_the_operators_guide_example_checks_as_the_guide_shows(tmp_path: Path) -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "operators.md").read_text()
    section = guide[guide.index("## Trait-based networking") :]
    blocks = section.split("```")
    example = next(b for b in blocks if b.startswith("yaml\n# /etc/metalwire/"))[len("yaml\n") :]
    shown = next(b for b in blocks if b.startswith("sh\n$ metalwire tbn check "))
    command, expected = shown[len("sh\n$ ") :].split("\n", 1)
    documented_path = command.split()[-1]
    path = tmp_path / "trait_based_networking.yaml"
    path.write_text(example)
    done = run_metalwire("tbn", "check", str(path), env=clean_env())
    assert done.code == 0, done.stderr
    assert done.stdout == expected.replace(documented_path, str(path))


def test_an_order_of_zero_or_below_comes_before_the_default_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        dedent(
            """\
            CUSTOM_LATER:
              actions:
                - action: attach_port
                  filter: port.is_port
            CUSTOM_FIRST:
              order: 0
              actions:
                - action: attach_portgroup
                  filter: port.is_portgroup
            CUSTOM_EARLIEST:
              order: -1
              actions:
                - action: attach_port
                  filter: port.category == 'x'
            """
        ),
    )
    done = run_metalwire("tbn", "check", str(path), env=clean_env())
    assert done.code == 0, done.stderr
    listed = [line for line in done.stdout.splitlines() if line.startswith("CUSTOM_")]
    assert listed == [
        "CUSTOM_EARLIEST (order -1)",
        "CUSTOM_FIRST (order 0)",
        "CUSTOM_LATER (order 1)",
    ]
