"""openstacksdk's own functional baremetal tests against a real ``metalwire serve``.

The upstream modules run once, unmodified, in one pytest process of their own: isolated from
this project's pytest configuration (``-c /dev/null``, its own root directory) and from the
caller's HOME and ``OS_*`` variables (a throwaway HOME whose ``clouds.yaml`` names the server
under every cloud name the upstream tests ask for). Its JUnit report gives one outcome per
upstream test, and each is a test case here: an upstream failure fails its own case, with the
upstream error; an upstream skip skips it, with the upstream reason.

Which upstream tests exist is read from the module's source (``ast``) when this module is
collected, so a test the run did not report fails too, as does an upstream test this reading
missed (``test_module_reports_every_upstream_test``).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.helpers import skip_or_fail
from tests.support.server import MetalwireServer

PACKAGE = "openstack.tests.functional.baremetal.v1"

#: The upstream modules of the tier: those of the resources metalwire serves (inspection
#: rules are not).
UPSTREAM_MODULES = (
    "test_allocation",
    "test_chassis",
    "test_conductor",
    "test_deploy_templates",
    "test_driver",
    "test_node",
    "test_port",
    "test_port_group",
    "test_runbooks",
    "test_volume_connector",
    "test_volume_target",
)

#: Upstream tests that fail against metalwire, each with why: expected to fail (strictly: one
#: that passes fails its case, so the entry goes once the cause is fixed).
KNOWN_FAILURES: dict[str, str] = {
    "test_allocation.TestBareMetalAllocation.test_allocation_create_get_delete": (
        "asserts that a create answers 'allocating' (Ironic reserves the node in the "
        "background); metalwire reserves it within the request and answers 'active' "
        "(docs/api-ref/allocations.md); the rest of the test is the same in the other "
        "upstream tests, which pass"
    ),
}

#: What the upstream tests import beyond openstacksdk (the project's ``test`` extra has them).
TEST_DEPENDENCIES = ("fixtures", "testtools", "oslotest")

#: Every cloud name openstacksdk's functional base class reads, by default or by variable.
CLOUD_NAMES = ("mw", "devstack", "devstack-admin", "devstack-alt", "devstack-system-admin")

# The default per-test timeout (5 s) is shorter than the client's own retries of a 409,
# which test_retired_in_available waits through to see the 409 it expects.
UPSTREAM_TEST_TIMEOUT = "600"
RUN_TIMEOUT = 300.0


@dataclass(frozen=True)
class Outcome:
    """One upstream test's result: ``passed``, ``failed``, ``error`` or ``skipped``."""

    kind: str
    message: str = ""
    detail: str = ""


@dataclass(frozen=True)
class UpstreamRun:
    returncode: int
    outcomes: dict[str, Outcome]  # by "module.Class.test_name"
    output: str


def _source(module: str) -> str | None:
    try:
        spec = importlib.util.find_spec(f"{PACKAGE}.{module}")
    except ModuleNotFoundError:
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).read_text(encoding="utf-8")


@functools.cache
def upstream_tests(module: str) -> tuple[str, ...]:
    """``Class.test_name`` of each test the upstream module defines, inherited ones included
    (a class extending another class of the module runs that class's tests too)."""
    source = _source(module)
    if source is None:
        return ()
    classes = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)]
    own = {
        cls.name: [
            item.name
            for item in cls.body
            if isinstance(item, ast.FunctionDef) and item.name.startswith("test_")
        ]
        for cls in classes
    }
    parents = {
        cls.name: [base.id for base in cls.bases if isinstance(base, ast.Name) and base.id in own]
        for cls in classes
    }

    def tests_of(name: str) -> list[str]:
        inherited = [test for parent in parents[name] for test in tests_of(parent)]
        return list(dict.fromkeys([*inherited, *own[name]]))

    return tuple(f"{cls.name}.{test}" for cls in classes for test in tests_of(cls.name))


def _outcome(case: ElementTree.Element) -> Outcome:
    for kind in ("failure", "error", "skipped"):
        found = case.find(kind)
        if found is not None:
            name = "failed" if kind == "failure" else kind
            return Outcome(name, found.get("message", ""), found.text or "")
    return Outcome("passed")


def read_junit(report: Path) -> dict[str, Outcome]:
    """Each reported test's outcome, by ``module.Class.test_name`` (the report's class names
    are the dotted paths of the classes)."""
    outcomes: dict[str, Outcome] = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        module_and_class = ".".join(case.get("classname", "").split(".")[-2:])
        outcomes[f"{module_and_class}.{case.get('name', '')}"] = _outcome(case)
    return outcomes


def write_clouds_yaml(home: Path, url: str) -> None:
    cloud = {
        "auth_type": "none",
        # keystoneauth reads the microversions from the endpoint it is given here: without
        # it every upstream test skips, for want of a microversion.
        "auth": {"endpoint": url},
        "baremetal_endpoint_override": url,
        # otherwise the upstream setUp asks a compute and an image service for a flavor
        "has_compute": False,
        "has_image": False,
    }
    config = home / ".config" / "openstack"
    config.mkdir(parents=True, exist_ok=True)
    clouds = {"clouds": dict.fromkeys(CLOUD_NAMES, cloud)}
    (config / "clouds.yaml").write_text(yaml.safe_dump(clouds), encoding="utf-8")


def upstream_environment(home: Path) -> dict[str, str]:
    """Nothing of the caller's but PATH (and PYTHONPATH, which says which tree is tested)."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "OS_TEST_TIMEOUT": UPSTREAM_TEST_TIMEOUT,
        "OPENSTACKSDK_OPERATOR_CLOUD": "mw",
        "OPENSTACKSDK_DEMO_CLOUD": "mw",
        "OPENSTACKSDK_DEMO_CLOUD_ALT": "mw",
        "OPENSTACKSDK_SYSTEM_ADMIN_CLOUD": "mw",
    }
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def _installed_under() -> Path:
    """The directory openstacksdk is installed in: the upstream run's root directory, so that
    its report names each test by its module (``openstack.tests...test_node.Class``)."""
    spec = importlib.util.find_spec("openstack")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent.parent


def run_upstream(server: MetalwireServer, workdir: Path) -> UpstreamRun:
    home = workdir / "home"
    write_clouds_yaml(home, server.url)
    report = workdir / "junit.xml"
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
        "-c", os.devnull, "--rootdir", str(_installed_under()), "-o", "junit_family=xunit2",
        f"--junitxml={report}", "--pyargs",
        *(f"{PACKAGE}.{module}" for module in UPSTREAM_MODULES),
    ]  # fmt: skip
    done = subprocess.run(
        command,
        cwd=workdir,
        env=upstream_environment(home),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    output = done.stdout + done.stderr
    outcomes = read_junit(report) if report.exists() else {}
    return UpstreamRun(done.returncode, outcomes, output)


def _missing_dependencies() -> list[str]:
    return [name for name in TEST_DEPENDENCIES if importlib.util.find_spec(name) is None]


@pytest.fixture(scope="session")
def upstream_run(
    functional_server: MetalwireServer, tmp_path_factory: pytest.TempPathFactory
) -> UpstreamRun:
    """The upstream modules, run once (one process: its start and imports take seconds)."""
    missing = _missing_dependencies()
    if missing:
        skip_or_fail(
            f"the upstream tests need {', '.join(missing)}: install the project's test extra"
        )
    return run_upstream(functional_server, tmp_path_factory.mktemp("upstream"))


def _case(module: str, test: str) -> Any:
    name = f"{module}.{test}"
    known = KNOWN_FAILURES.get(name)
    marks = [pytest.mark.xfail(reason=known, strict=True)] if known else []
    return pytest.param(module, test, id=name, marks=marks)


CASES = [_case(module, test) for module in UPSTREAM_MODULES for test in upstream_tests(module)]


@pytest.mark.parametrize(("module", "test"), CASES)
def test_upstream(module: str, test: str, upstream_run: UpstreamRun) -> None:
    name = f"{module}.{test}"
    outcome = upstream_run.outcomes.get(name)
    assert outcome is not None, f"{name} was not reported by the run:\n{upstream_run.output}"
    if outcome.kind == "skipped":
        pytest.skip(f"upstream: {outcome.message}")
    assert outcome.kind == "passed", f"{name} {outcome.kind}: {outcome.message}\n{outcome.detail}"


@pytest.mark.parametrize("module", UPSTREAM_MODULES)
def test_module_reports_every_upstream_test(module: str, upstream_run: UpstreamRun) -> None:
    """The run reported exactly the tests read from the source, and some of them passed (a
    run whose every test skipped, as when the client finds no microversion, tests nothing)."""
    assert upstream_tests(module), f"{PACKAGE}.{module} is not installed (openstacksdk)"
    run = upstream_run
    assert run.returncode in (0, 1), f"the upstream run did not complete:\n{run.output}"
    reported = {name: o for name, o in run.outcomes.items() if name.startswith(f"{module}.")}
    expected = {f"{module}.{test}" for test in upstream_tests(module)}
    assert set(reported) == expected, run.output
    stale = {name for name in KNOWN_FAILURES if name.startswith(f"{module}.")} - expected
    assert not stale, f"KNOWN_FAILURES names tests the module does not have: {sorted(stale)}"
    assert any(o.kind == "passed" for o in reported.values()), run.output
