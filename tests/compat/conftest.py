"""Fixtures for driving a real ``metalwire serve`` with the unmodified OpenStack clients.

``compat_server`` (session scope) is the server; ``sdk`` is an openstacksdk baremetal proxy
with no authentication; ``cli_env`` is the environment the ``baremetal`` and ``openstack``
programs run in: a throwaway HOME and no ``OS_*`` variable, so no clouds.yaml or
credential of the person running the tests takes part. ``http`` talks plain HTTP at the
newest microversion, to set up and check state independently of the client under test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from metalwire.api_versions import MAX_MINOR
from tests.support.server import MetalwireServer

_HERE = Path(__file__).resolve().parent
LATEST = f"1.{MAX_MINOR}"
VERSION_HEADER = "X-OpenStack-Ironic-API-Version"

# openstacksdk 4.x warns about its own internal deprecations on every connection, resource
# and request, whatever the caller does; none of them is about the API being served.
SDK_INTERNAL_WARNINGS = (
    "ignore:Support for InfluxDB requires:openstack.warnings.RemovedInSDK60Warning",
    "ignore:The _compute_attributes method is deprecated:openstack.warnings.RemovedInSDK50Warning",
    "ignore:The 'service_type' parameter is unnecesary:openstack.warnings.RemovedInSDK50Warning",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).resolve().parents:
            for spec in SDK_INTERNAL_WARNINGS:
                item.add_marker(pytest.mark.filterwarnings(spec))


@pytest.fixture(scope="session")
def compat_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MetalwireServer]:
    with MetalwireServer(tmp_path_factory.mktemp("compat-server")) as running:
        yield running


@pytest.fixture(scope="session")
def client_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("client-home")
    (home / ".config").mkdir()
    (home / ".cache").mkdir()
    return home


@pytest.fixture(scope="session")
def cli_env(client_home: Path) -> dict[str, str]:
    """The whole environment of a client subprocess: nothing inherited but PATH."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(client_home),
        "XDG_CONFIG_HOME": str(client_home / ".config"),
        "XDG_CACHE_HOME": str(client_home / ".cache"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
    }


@pytest.fixture(scope="module")
def isolated_environ(client_home: Path) -> Iterator[None]:
    """This process's environment without ``OS_*`` and with the throwaway HOME."""
    with pytest.MonkeyPatch.context() as mp:
        for name in list(os.environ):
            if name.startswith("OS_"):
                mp.delenv(name)
        mp.setenv("HOME", str(client_home))
        mp.setenv("XDG_CONFIG_HOME", str(client_home / ".config"))
        yield


def _connect(server: MetalwireServer, **options: Any) -> Any:
    import openstack

    return openstack.connect(
        auth_type="none",
        baremetal_endpoint_override=server.url + "/",
        load_yaml_config=False,
        load_envvars=False,
        **options,
    )


@pytest.fixture(scope="module")
def sdk(compat_server: MetalwireServer, isolated_environ: None) -> Iterator[Any]:
    """The baremetal proxy of an unauthenticated openstacksdk connection."""
    conn = _connect(compat_server)
    try:
        yield conn.baremetal
    finally:
        conn.close()


@pytest.fixture(scope="module")
def sdk_no_retry(compat_server: MetalwireServer, isolated_environ: None) -> Iterator[Any]:
    """Like ``sdk``, but a 409 is not retried (the SDK retries it 5 times by default)."""
    conn = _connect(compat_server, baremetal_status_code_retries=0)
    try:
        yield conn.baremetal
    finally:
        conn.close()


@pytest.fixture(scope="session")
def http(compat_server: MetalwireServer) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=compat_server.url, headers={VERSION_HEADER: LATEST}, timeout=30.0
    ) as client:
        yield client
