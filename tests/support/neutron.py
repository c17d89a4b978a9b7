"""A real OpenStack Neutron API server for integration tests.

``NeutronServer`` runs Neutron (installed by ``scripts/install-neutron`` into a venv of its
own) against a database of a ``PostgresServer``: it writes the configuration into a
temporary directory, runs the database migrations, serves ``neutron.wsgi.api:application``
with gunicorn on a free port of 127.0.0.1 and waits until the API answers.

The ML2 plugin is set up for bare-metal ports: ``flat`` and ``vlan`` type drivers on the
physical networks ``physnet1`` and ``physnet2``, and networking-generic-switch with two fake
switches (``sw1``, ``sw2``) that accept every port without any hardware or agent. The API
runs with ``auth_strategy = noauth``; send ``ADMIN_HEADERS`` with every request.

Usage::

    with PostgresServer() as pg, NeutronServer(pg) as neutron:
        httpx.get(f"{neutron.endpoint}/v2.0/networks", headers=ADMIN_HEADERS)

For manual use, ``python -m tests.support.neutron`` starts both servers, prints the
endpoint and waits for SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, TracebackType
from typing import Self

from tests.support.helpers import free_port
from tests.support.postgres import LOOPBACK, PostgresServer

__all__ = [
    "ADMIN_HEADERS",
    "DEFAULT_SWITCHES",
    "INSTALL_SCRIPT",
    "NeutronError",
    "NeutronServer",
    "SwitchConfig",
    "default_venv",
    "main",
    "neutron_installed",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
INSTALL_SCRIPT = REPO_ROOT / "scripts" / "install-neutron"
VENV_ENV_VAR = "METALWIRE_NEUTRON_VENV"

# With auth_strategy = noauth Neutron takes the roles from this header. Setting
# binding:profile needs the "service" role. Leave X-Project-Id out: without it the
# request runs with an elevated context, and project_id goes into the request bodies.
ADMIN_HEADERS: Mapping[str, str] = {"X-Roles": "admin,service"}

# Revisions around the one migration that only works on MySQL (it converts the tags
# table to a MySQL collation): upgrade to its parent, stamp it, then carry on.
_BEFORE_MYSQL_ONLY = "ad80a9f07c5c"
_MYSQL_ONLY = "d553edeb540f"

_WSGI_SHIM = """\
import sys

# Neutron parses sys.argv as its own command line; gunicorn's options are not for it.
sys.argv = [sys.argv[0] if sys.argv else "neutron-api"]

from neutron.wsgi.api import application  # noqa: E402

__all__ = ["application"]
"""


class NeutronError(RuntimeError):
    """Neutron could not be configured, migrated or started."""


@dataclass(frozen=True)
class SwitchConfig:
    """One ``[genericswitch:NAME]`` section of networking-generic-switch."""

    name: str
    mac_address: str
    device_type: str = "netmiko_fake"
    extra: Mapping[str, str] = field(default_factory=dict)


DEFAULT_SWITCHES: tuple[SwitchConfig, ...] = (
    SwitchConfig("sw1", "00:00:5e:00:53:01"),
    SwitchConfig("sw2", "00:00:5e:00:53:02"),
)
DEFAULT_FLAT_NETWORKS: tuple[str, ...] = ("physnet1", "physnet2")
DEFAULT_VLAN_RANGES: tuple[str, ...] = ("physnet1:100:199", "physnet2:200:299")


def default_venv() -> Path:
    """The Neutron venv: ``$METALWIRE_NEUTRON_VENV`` or ``.venv-neutron`` in the repo root."""
    configured = os.environ.get(VENV_ENV_VAR)
    return Path(configured) if configured else REPO_ROOT / ".venv-neutron"


def neutron_installed(venv: Path) -> bool:
    """Whether ``venv`` holds what ``scripts/install-neutron`` installs."""
    return all(
        (venv / "bin" / name).is_file() for name in ("python", "gunicorn", "neutron-db-manage")
    )


def _ini(sections: Mapping[str, Mapping[str, str]]) -> str:
    out: list[str] = []
    for section, options in sections.items():
        out.append(f"[{section}]")
        out.extend(f"{key} = {value}" for key, value in options.items())
        out.append("")
    return "\n".join(out)


class NeutronServer:
    """A Neutron API server backed by a database of ``postgres``.

    ``postgres`` must be started before ``start()``. ``venv`` defaults to
    ``default_venv()``. ``config`` adds or overrides options, as
    ``{"neutron.conf": {"DEFAULT": {"debug": "true"}}}`` (files ``neutron.conf`` and
    ``ml2_conf.ini``).
    """

    def __init__(
        self,
        postgres: PostgresServer,
        *,
        venv: Path | str | None = None,
        database: str = "neutron",
        port: int = 0,
        workers: int = 1,
        switches: Sequence[SwitchConfig] = DEFAULT_SWITCHES,
        flat_networks: Sequence[str] = DEFAULT_FLAT_NETWORKS,
        vlan_ranges: Sequence[str] = DEFAULT_VLAN_RANGES,
        config: Mapping[str, Mapping[str, Mapping[str, str]]] | None = None,
        debug: bool = False,
        start_timeout: float = 180.0,
        base_dir: Path | str | None = None,
    ) -> None:
        self.postgres = postgres
        self.venv = Path(venv) if venv is not None else default_venv()
        self.database = database
        self.host = LOOPBACK
        self._wanted_port = port
        self.port = port
        self.workers = workers
        self.switches = tuple(switches)
        self.flat_networks = tuple(flat_networks)
        self.vlan_ranges = tuple(vlan_ranges)
        self.extra_config = config or {}
        self.debug = debug
        self.start_timeout = start_timeout
        self._base_dir = Path(base_dir) if base_dir is not None else None
        self.root: Path | None = None
        self.database_url: str | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.timings: dict[str, float] = {}

    # -- paths -------------------------------------------------------------------------

    def _require_root(self) -> Path:
        if self.root is None:
            raise NeutronError("the Neutron server is not started")
        return self.root

    @property
    def config_dir(self) -> Path:
        return self._require_root() / "etc"

    @property
    def log_file(self) -> Path:
        """gunicorn's and Neutron's output (Neutron logs to stderr)."""
        return self._require_root() / "neutron-server.log"

    @property
    def endpoint(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:PORT`` (the API itself is under ``/v2.0``)."""
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def log_text(self) -> str:
        """Everything Neutron logged so far ("" once stopped)."""
        try:
            return self.log_file.read_text(errors="replace")
        except (OSError, NeutronError):
            return ""

    def log_lines(self, *needles: str) -> list[str]:
        """Log lines that contain every one of ``needles``."""
        return [line for line in self.log_text().splitlines() if all(n in line for n in needles)]

    def fake_switch_commands(self) -> list[str]:
        """Commands the ``netmiko_fake`` switches received, oldest first.

        For example ``"plug port Ethernet1/1 to network 256"``, ``"delete port
        Ethernet1/1"``, ``"add network 256"`` (the switch name is not part of these
        lines; ``log_lines("on device sw2")`` finds the driver's per-switch lines).
        """
        marker = "networking_generic_switch.devices.netmiko_devices.fake "
        commands = []
        for line in self.log_text().splitlines():
            if marker in line and "] " in line:
                commands.append(line.split("] ", 1)[1].strip())
        return commands

    def map_host_to_segment(self, host: str, segment_id: str) -> None:
        """Tell Neutron that ``host`` reaches the network segment ``segment_id``, as an
        agent's report does (networking-baremetal's ironic-neutron-agent reports each node's
        UUID with its physical networks). Without a message broker no agent reports here,
        so the row goes straight into Neutron's ``segmenthostmappings`` table. Neutron
        then allocates a routed network's port of that host an address of that segment."""
        import psycopg  # the tests' PostgreSQL driver; Neutron's own URL names psycopg2

        if self.database_url is None:
            raise NeutronError("the Neutron server is not started")
        url = self.database_url.replace("postgresql+psycopg2://", "postgresql://", 1)
        with psycopg.connect(url) as connection:
            connection.execute(
                "INSERT INTO segmenthostmappings (segment_id, host) VALUES (%s, %s)",
                (segment_id, host),
            )

    def report_agent_alive(self, host: str) -> None:
        """Make Neutron list an alive Open vSwitch agent on ``host``, as the agent's heartbeat
        would (for about 75 s, Neutron's ``agent_down_time``; a second call renews it).
        Without a message broker no agent reports here, so the row goes straight into
        Neutron's ``agents`` table."""
        import psycopg

        if self.database_url is None:
            raise NeutronError("the Neutron server is not started")
        url = self.database_url.replace("postgresql+psycopg2://", "postgresql://", 1)
        with psycopg.connect(url) as connection:
            connection.execute(
                'INSERT INTO agents (id, agent_type, "binary", topic, host, admin_state_up,'
                " created_at, started_at, heartbeat_timestamp, configurations, load)"
                " VALUES (gen_random_uuid()::text, 'Open vSwitch agent',"
                " 'neutron-openvswitch-agent', 'N/A', %s, true, now() at time zone 'utc',"
                " now() at time zone 'utc', now() at time zone 'utc', '{}', 0)"
                " ON CONFLICT (agent_type, host) DO UPDATE"
                " SET heartbeat_timestamp = excluded.heartbeat_timestamp",
                (host,),
            )

    def report_agent_dead(self, host: str) -> None:
        """Make the agents on ``host`` miss their heartbeats: Neutron lists them not alive."""
        import psycopg

        if self.database_url is None:
            raise NeutronError("the Neutron server is not started")
        url = self.database_url.replace("postgresql+psycopg2://", "postgresql://", 1)
        with psycopg.connect(url) as connection:
            connection.execute(
                "UPDATE agents SET heartbeat_timestamp = heartbeat_timestamp - interval '1 hour'"
                " WHERE host = %s",
                (host,),
            )

    # -- configuration -----------------------------------------------------------------

    def _config_files(self) -> dict[str, dict[str, dict[str, str]]]:
        assert self.database_url is not None
        root = self._require_root()
        neutron_conf: dict[str, dict[str, str]] = {
            "DEFAULT": {
                "core_plugin": "ml2",
                "service_plugins": "segments",
                "auth_strategy": "noauth",
                "transport_url": "fake://",
                "bind_host": self.host,
                "bind_port": str(self.port),
                "api_paste_config": str(self.config_dir / "api-paste.ini"),
                "state_path": str(root / "state"),
                "api_workers": str(self.workers),
                "rpc_workers": "0",
                "rpc_state_report_workers": "0",
                "dhcp_agent_notification": "false",
                "notify_nova_on_port_status_changes": "false",
                "notify_nova_on_port_data_changes": "false",
                "debug": "true" if self.debug else "false",
                "use_stderr": "true",
            },
            "database": {"connection": self.database_url},
            "oslo_concurrency": {"lock_path": str(root / "lock")},
        }
        ml2_conf: dict[str, dict[str, str]] = {
            "ml2": {
                "type_drivers": "flat,vlan",
                "tenant_network_types": "",
                "mechanism_drivers": "genericswitch",
                "extension_drivers": "",
            },
            "ml2_type_flat": {"flat_networks": ",".join(self.flat_networks)},
            "ml2_type_vlan": {"network_vlan_ranges": ",".join(self.vlan_ranges)},
        }
        for switch in self.switches:
            ml2_conf[f"genericswitch:{switch.name}"] = {
                "device_type": switch.device_type,
                "ngs_mac_address": switch.mac_address,
                **switch.extra,
            }
        files = {"neutron.conf": neutron_conf, "ml2_conf.ini": ml2_conf}
        for filename, sections in self.extra_config.items():
            target = files.setdefault(filename, {})
            for section, options in sections.items():
                target.setdefault(section, {}).update(options)
        return files

    def _write_config(self) -> list[Path]:
        etc = self.config_dir
        etc.mkdir()
        for sub in ("state", "lock"):
            (self._require_root() / sub).mkdir()
        paste = self.venv / "etc" / "neutron" / "api-paste.ini"
        if not paste.is_file():
            raise NeutronError(f"{paste} is missing: is {self.venv} a Neutron venv?")
        shutil.copyfile(paste, etc / "api-paste.ini")
        written = []
        for filename, sections in self._config_files().items():
            path = etc / filename
            path.write_text(_ini(sections))
            written.append(path)
        (self._require_root() / "neutron_wsgi_shim.py").write_text(_WSGI_SHIM)
        return written

    def _env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("PYTHON", "VIRTUAL_ENV", "OS_"))
        }
        env.update(
            {
                "PATH": f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
                "VIRTUAL_ENV": str(self.venv),
                "OS_NEUTRON_CONFIG_DIR": str(self.config_dir),
                "OS_NEUTRON_CONFIG_FILES": "neutron.conf;ml2_conf.ini",
                "PYTHONWARNINGS": "ignore",
                # No proxy may route loopback traffic elsewhere.
                "NO_PROXY": "*",
                "no_proxy": "*",
            }
        )
        return env

    # -- lifecycle ---------------------------------------------------------------------

    def _db_manage(self, config_files: list[Path], *args: str) -> None:
        command = [str(self.venv / "bin" / "neutron-db-manage")]
        for path in config_files:
            command += ["--config-file", str(path)]
        command += list(args)
        result = subprocess.run(
            command,
            env=self._env(),
            cwd=self._require_root(),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if result.returncode != 0:
            raise NeutronError(
                f"neutron-db-manage {' '.join(args)} failed (exit {result.returncode}):\n"
                f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
            )

    def migrate(self, config_files: list[Path]) -> None:
        """Bring the database to the newest schema, stepping over the MySQL-only one."""
        self._db_manage(config_files, "upgrade", _BEFORE_MYSQL_ONLY)
        self._db_manage(config_files, "stamp", _MYSQL_ONLY)
        self._db_manage(config_files, "upgrade", "head")

    def start(self) -> Self:
        """Configure, migrate and start Neutron; returns once the API answers."""
        if self.process is not None:
            return self
        if not neutron_installed(self.venv):
            raise NeutronError(
                f"no Neutron venv at {self.venv}: run {INSTALL_SCRIPT} "
                f"(or set {VENV_ENV_VAR} to the venv it made)"
            )
        if not self.postgres.running:
            raise NeutronError("start the PostgreSQL server before Neutron")
        base = str(self._base_dir) if self._base_dir is not None else None
        self.root = Path(tempfile.mkdtemp(prefix="metalwire-neutron-", dir=base))
        try:
            began = time.monotonic()
            # Neutron's own venv reaches PostgreSQL through psycopg2.
            self.database_url = self.postgres.create_database(self.database, driver="psycopg2")
            self.port = self._wanted_port or free_port()
            config_files = self._write_config()
            self.migrate(config_files)
            migrated = time.monotonic()
            self.timings["migrate_s"] = migrated - began
            self._spawn()
            self._wait_ready()
            self.timings["serve_s"] = time.monotonic() - migrated
            self.timings["start_s"] = time.monotonic() - began
        except BaseException:
            self.stop()
            raise
        return self

    def _spawn(self) -> None:
        root = self._require_root()
        command = [
            str(self.venv / "bin" / "gunicorn"),
            "--bind",
            f"{self.host}:{self.port}",
            "--workers",
            str(self.workers),
            "--timeout",
            "300",
            "--graceful-timeout",
            "5",
            "--chdir",
            str(root),
            "--pythonpath",
            str(root),
            "--name",
            "metalwire-test-neutron",
            "neutron_wsgi_shim:application",
        ]
        with open(self.log_file, "ab") as log:
            self.process = subprocess.Popen(
                command,
                env=self._env(),
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def _wait_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.start_timeout
        url = f"{self.endpoint}/v2.0/networks?limit=1"
        last_error = "no answer yet"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise NeutronError(
                    f"Neutron exited with status {self.process.returncode}:\n"
                    f"{self.log_text()[-6000:]}"
                )
            request = urllib.request.Request(url, headers=dict(ADMIN_HEADERS))
            try:
                with opener.open(request, timeout=5) as response:
                    if response.status == 200:
                        json.load(response)
                        return
                    last_error = f"HTTP {response.status}"
            except urllib.error.HTTPError as exc:
                last_error = f"HTTP {exc.code}"
            except (OSError, ValueError) as exc:
                last_error = str(exc)
            time.sleep(0.2)
        raise NeutronError(
            f"Neutron did not answer within {self.start_timeout:.0f} s ({last_error}):\n"
            f"{self.log_text()[-6000:]}"
        )

    def rss_bytes(self) -> int:
        """Resident memory of the gunicorn master and its workers, in bytes."""
        if self.process is None:
            return 0
        total = 0
        pgid = self.process.pid
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if os.getpgid(int(entry.name)) != pgid:
                    continue
                for line in (entry / "status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
            except (OSError, ValueError):
                continue
        return total

    def stop(self) -> None:
        """Stop gunicorn and its workers (the whole process group), remove the temp dir."""
        process, self.process = self.process, None
        if process is not None:
            self._kill_group(process)
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None
        if self.database_url is not None:
            self.database_url = None
            if self.postgres.running:
                with contextlib.suppress(Exception):
                    self.postgres.drop_database(self.database)

    @staticmethod
    def _kill_group(process: subprocess.Popen[bytes]) -> None:
        pgid = process.pid
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=15)
        # Workers can outlive the master for a moment; make sure none are left.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main(argv: Sequence[str] | None = None) -> int:
    """Start PostgreSQL and Neutron, print the endpoint, wait for SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.neutron",
        description="Run a throwaway Neutron server (with PostgreSQL) on 127.0.0.1.",
    )
    parser.add_argument("--venv", type=Path, default=None, help="Neutron venv")
    parser.add_argument("--port", type=int, default=0, help="API port (default: any free)")
    parser.add_argument("--debug", action="store_true", help="Neutron debug logging")
    args = parser.parse_args(argv)

    stopping = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with (
            PostgresServer() as pg,
            NeutronServer(pg, venv=args.venv, port=args.port, debug=args.debug) as neutron,
        ):
            print(f"Neutron endpoint: {neutron.endpoint}", flush=True)
            print(f"headers: {json.dumps(dict(ADMIN_HEADERS))}", flush=True)
            t = neutron.timings
            print(
                f"started in {t['start_s']:.1f} s (migrations {t['migrate_s']:.1f} s, "
                f"API {t['serve_s']:.1f} s); {neutron.rss_bytes() / 2**20:.0f} MiB resident",
                flush=True,
            )
            print(f"log: {neutron.log_file}", flush=True)
            print(f"database: {neutron.database_url}", flush=True)
            print("switches:", flush=True)
            for switch in neutron.switches:
                print(f"  {switch.name}: {switch.mac_address} ({switch.device_type})", flush=True)
            print("Ctrl-C or SIGTERM stops it.", flush=True)
            while not stopping:
                time.sleep(0.2)
    except NeutronError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
