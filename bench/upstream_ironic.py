"""Install and run upstream OpenStack Ironic, all-in-one, on loopback, for comparison.

Ironic goes into its own venv (default .bench/venv-ironic, git-ignored), never into
the project's. The server runs as the single `ironic` process (API and conductor
together, no RPC bus, no JSON-RPC, no message broker, no DHCP provider), with
SQLite, no authentication, and only the fake-hardware type.

    python bench/upstream_ironic.py install
    python bench/upstream_ironic.py serve             # foreground; Ctrl-C stops it
    python bench/upstream_ironic.py start             # prints {"url", "pid", "workdir"}
    python bench/upstream_ironic.py stop --pid PID
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from procs import LOOPBACK, Process, free_port, log

REPO = Path(__file__).resolve().parent.parent
DEFAULT_VENV = REPO / ".bench" / "venv-ironic"
IRONIC_VERSION = "39.0.0"

CONFIG = """\
[DEFAULT]
host = bench-ironic
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_bios_interfaces = fake,no-bios
enabled_boot_interfaces = fake
enabled_console_interfaces = fake,no-console
enabled_deploy_interfaces = fake,direct
enabled_firmware_interfaces = fake,no-firmware
enabled_inspect_interfaces = fake,no-inspect,agent
enabled_management_interfaces = fake
enabled_power_interfaces = fake
enabled_raid_interfaces = fake,no-raid
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = fake,noop
enabled_vendor_interfaces = fake,no-vendor
enabled_network_interfaces = {network_interfaces}
default_network_interface = {default_network_interface}

[api]
host_ip = {host}
port = {port}

[database]
connection = sqlite:///{workdir}/ironic.sqlite

[deploy]
http_url = http://{host}:8088

[dhcp]
dhcp_provider = none

[oslo_concurrency]
lock_path = {workdir}/locks

[vnc]
enabled = false
"""


def installed_version(venv: Path) -> str | None:
    python = venv / "bin" / "python"
    if not (python.exists() and (venv / "bin" / "ironic").exists()):
        return None
    probe = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('ironic'))"],
        capture_output=True,
        text=True,
        check=False,
    )
    return probe.stdout.strip() if probe.returncode == 0 else None


def ensure_installed(venv: Path = DEFAULT_VENV, version: str = IRONIC_VERSION) -> Path:
    """Create the venv and pip-install ironic==version unless it is already there."""
    if installed_version(venv) == version:
        return venv
    log(f"installing ironic=={version} into {venv} (takes a minute or two)")
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, f"ironic=={version}"], check=True)
    found = installed_version(venv)
    if found != version:
        raise RuntimeError(f"ironic {version} not importable from {venv} (found {found})")
    return venv


class IronicServer:
    """One all-in-one Ironic process with a fresh SQLite database in workdir."""

    def __init__(
        self,
        venv: Path = DEFAULT_VENV,
        workdir: Path | None = None,
        port: int | None = None,
        network_interfaces: str = "noop,flat",
        default_network_interface: str = "noop",
        log_path: Path | None = None,
    ) -> None:
        self.venv = venv.resolve()
        self.workdir = (workdir or Path(tempfile.mkdtemp(prefix="mwbench-ironic-"))).resolve()
        self.port = port or free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        self.config = self.workdir / "ironic.conf"
        self.network_interfaces = network_interfaces
        self.default_network_interface = default_network_interface
        self.process = Process(
            name="ironic",
            argv=[str(self.venv / "bin" / "ironic"), "--config-file", str(self.config)],
            log_path=log_path or self.workdir / "ironic.log",
            url=self.url,
            cwd=self.workdir,
        )

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def prepare(self) -> None:
        (self.workdir / "locks").mkdir(parents=True, exist_ok=True)
        self.config.write_text(
            CONFIG.format(
                host=LOOPBACK,
                port=self.port,
                workdir=self.workdir,
                network_interfaces=self.network_interfaces,
                default_network_interface=self.default_network_interface,
            )
        )
        dbsync = [str(self.venv / "bin" / "ironic-dbsync"), "--config-file", str(self.config)]
        with (self.workdir / "dbsync.log").open("wb") as out:
            subprocess.run(
                [*dbsync, "create_schema"], stdout=out, stderr=subprocess.STDOUT, check=True
            )

    def start(self, timeout: float = 120.0) -> None:
        self.prepare()
        self.process.start()
        self.process.wait_ready(timeout=timeout, path="/")

    def stop(self) -> None:
        self.process.stop()


def stop_pid(pid: int, timeout: float = 20.0) -> None:
    """Stop a server left running by `start`: its process group is led by pid."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        log(f"no process {pid}")
        return
    if b"ironic" not in cmdline:
        raise SystemExit(f"pid {pid} is not an ironic process: {cmdline.decode(errors='replace')}")
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def main() -> int:
    parser = argparse.ArgumentParser(description="Upstream Ironic on loopback, for the bench")
    parser.add_argument("command", choices=["install", "serve", "start", "stop"])
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--version", default=IRONIC_VERSION, help="ironic release on PyPI")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--workdir", type=Path, help="config, database, log (default: tmp)")
    parser.add_argument("--network-interfaces", default="noop,flat")
    parser.add_argument("--default-network-interface", default="noop")
    parser.add_argument("--pid", type=int, help="for stop")
    args = parser.parse_args()

    if args.command == "stop":
        if args.pid is None:
            parser.error("stop needs --pid")
        stop_pid(args.pid)
        return 0
    ensure_installed(args.venv, args.version)
    if args.command == "install":
        return 0
    server = IronicServer(
        venv=args.venv,
        workdir=args.workdir,
        port=args.port or None,
        network_interfaces=args.network_interfaces,
        default_network_interface=args.default_network_interface,
    )
    server.start()
    info = {"url": server.url, "pid": server.pid, "workdir": str(server.workdir)}
    print(json.dumps(info), flush=True)
    if args.command == "start":
        return 0
    log(f"ironic answering on {server.url}; Ctrl-C or SIGTERM stops it")
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        with contextlib.suppress(KeyboardInterrupt):
            while not done.is_set() and server.process.running():
                done.wait(1.0)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
