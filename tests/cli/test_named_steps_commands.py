"""``metalwire deploy template ...`` and ``metalwire runbook ...`` against a real server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from metalwire.client import Client
from tests.cli.conftest import Run
from tests.client.util import unique

BIOS = {"settings": [{"name": "LogicalProc", "value": "Enabled"}]}


def _trait(prefix: str) -> str:
    return unique(f"CUSTOM_{prefix}").upper().replace("-", "_")


def _json(cli: Run, *args: str) -> Any:
    result = cli(*args, "-f", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_deploy_templates_made_listed_changed_and_deleted(
    cli: Run, mw: Client, tmp_path: Path
) -> None:
    name = _trait("TPL")
    step = {"interface": "bios", "step": "apply_configuration", "args": BIOS, "priority": 150}
    made = _json(
        cli, "deploy", "template", "create", name, "--steps", json.dumps([step]),
        "--extra", "team=infra",
    )  # fmt: skip
    assert (made["name"], made["steps"], made["extra"]) == (name, [step], {"team": "infra"})

    assert {"UUID": made["uuid"], "Name": name} in _json(
        cli, "deploy", "template", "list", "--limit", "0"
    )
    long = _json(cli, "deploy", "template", "list", "--long", "--limit", "0")
    assert [row["Steps"] for row in long if row["Name"] == name] == [[step]]
    assert _json(cli, "deploy", "template", "show", name, "--fields", "uuid", "name") == {
        "uuid": made["uuid"],
        "name": name,
    }

    renamed = _trait("TPL")
    steps_file = tmp_path / "steps.yaml"
    steps_file.write_text(
        "- interface: raid\n  step: delete_configuration\n  args: {}\n  priority: 90\n"
    )
    done = cli("deploy", "template", "set", name, "--name", renamed, "--steps", str(steps_file))
    assert done.code == 0, done.stderr
    assert cli("deploy", "template", "unset", renamed, "--extra", "team").code == 0
    template = mw.get_deploy_template(renamed)
    assert (template.name, template["extra"]) == (renamed, {})
    assert template.steps == [
        {"interface": "raid", "step": "delete_configuration", "args": {}, "priority": 90}
    ]

    refused = cli(
        "deploy", "template", "set", renamed, "--steps", json.dumps([{**step, "priority": "x"}])
    )
    assert refused.code == 1 and "priority" in refused.stderr, refused.stderr
    assert mw.get_deploy_template(renamed).steps[0]["priority"] == 90
    not_json = cli("deploy", "template", "set", renamed, "--steps", "[{interface")
    assert not_json.code == 2 and "--steps" in not_json.stderr, not_json.stderr

    deleted = cli("deploy", "template", "delete", renamed)
    assert (deleted.code, deleted.stdout) == (0, f"Deleted deploy template {renamed}\n")
    gone = cli("deploy", "template", "show", renamed)
    assert gone.code == 1 and "could not be found" in gone.stderr, gone.stderr


def test_runbooks_made_listed_changed_and_deleted(cli: Run, mw: Client) -> None:
    name = _trait("RB")
    step = {"interface": "bios", "step": "apply_configuration", "args": BIOS, "order": 1}
    made = _json(
        cli, "runbook", "create", "--name", name, "--steps", json.dumps([step]),
        "--description", "BIOS baseline", "--public",
    )  # fmt: skip
    assert (made["name"], made["steps"], made["public"]) == (name, [step], True)
    assert (made["description"], made["owner"], made["disable_ramdisk"]) == (
        "BIOS baseline",
        None,
        False,
    )
    assert name in {row["Name"] for row in _json(cli, "runbook", "list", "--limit", "0")}

    done = cli(
        "runbook", "set", name, "--public", "false", "--owner", "project-a",
        "--disable-ramdisk", "--extra", "ticket=42",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    runbook = mw.get_runbook(name)
    assert (runbook["public"], runbook["owner"], runbook["disable_ramdisk"]) == (
        False,
        "project-a",
        True,
    )
    assert runbook["extra"] == {"ticket": 42}

    done = cli("runbook", "unset", name, "--owner", "--description", "--extra", "ticket")
    assert done.code == 0, done.stderr
    runbook = mw.get_runbook(name)
    assert (runbook["owner"], runbook["description"], runbook["extra"]) == (None, None, {})

    bad = cli("runbook", "set", name, "--public", "maybe")
    assert bad.code == 2 and "expected true or false" in bad.stderr, bad.stderr
    missing = cli("runbook", "create", "--name", _trait("RB"))
    assert missing.code == 2 and "--steps" in missing.stderr, missing.stderr

    deleted = cli("runbook", "delete", name)
    assert (deleted.code, deleted.stdout) == (0, f"Deleted runbook {name}\n"), deleted.stderr


def test_runbook_traits_added_listed_and_removed(cli: Run, mw: Client) -> None:
    name = _trait("RBT")
    mw.create_runbook(name, [{"interface": "bios", "step": "apply_configuration", "order": 1}])

    def traits() -> list[str]:
        return [row["Trait"] for row in _json(cli, "runbook", "trait", "list", name)]

    assert traits() == []
    added = cli("runbook", "trait", "add", name, "CUSTOM_GOLD", "HW_CPU_X86_AVX2", "CUSTOM_GOLD")
    assert added.code == 0, added.stderr
    assert traits() == ["CUSTOM_GOLD", "HW_CPU_X86_AVX2"]
    assert mw.runbook_traits(name) == mw.get_runbook(name)["traits"] == traits()

    some_bad = cli("runbook", "trait", "add", name, "lower-case", "CUSTOM_SILVER")
    assert some_bad.code == 1
    assert f"Failed to add trait lower-case to runbook {name}: " in some_bad.stderr
    assert "HTTP 400" in some_bad.stderr, some_bad.stderr
    assert traits() == ["CUSTOM_GOLD", "CUSTOM_SILVER", "HW_CPU_X86_AVX2"]

    # A trait the runbook has not is no error, as in Ironic.
    removed = cli("runbook", "trait", "remove", name, "CUSTOM_GOLD", "CUSTOM_NEVER")
    assert removed.code == 0, removed.stderr
    assert traits() == ["CUSTOM_SILVER", "HW_CPU_X86_AVX2"]

    neither = cli("runbook", "trait", "remove", name)
    assert neither.code == 2 and "--all" in neither.stderr, neither.stderr
    both = cli("runbook", "trait", "remove", name, "CUSTOM_SILVER", "--all")
    assert both.code == 2 and "--all" in both.stderr, both.stderr
    assert cli("runbook", "trait", "remove", name, "--all").code == 0
    assert traits() == []

    mw.set_runbook_traits(name, ["CUSTOM_B", "CUSTOM_A"])
    assert traits() == ["CUSTOM_A", "CUSTOM_B"]
    older = cli("--api-version", "1.111", "runbook", "trait", "list", name)
    assert older.code == 1 and "runbook traits" in older.stderr, older.stderr
    assert "1.112" in older.stderr, older.stderr
    missing = cli("runbook", "trait", "add", unique("no-such-runbook"), "CUSTOM_A")
    assert missing.code == 1 and "could not be found" in missing.stderr, missing.stderr
