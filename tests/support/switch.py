"""An emulated top-of-rack switch for integration tests: Open vSwitch behind OpenSSH.

``EmulatedSwitch`` builds, on this machine and as root (``scripts/install-switch`` installs
the Debian packages):

- a network namespace for the switch, holding an Open vSwitch bridge on the userspace
  datapath (``datapath_type=netdev``: no kernel module) with the ports ``swp1..swpN``;
- one namespace per "server" (``server(1)`` ...), whose ``eth0`` is the other end of a veth
  pair with ``swpN``, addressed ``10.99.0.N/24`` so that only VLANs separate the servers;
- its own ``ovsdb-server`` and ``ovs-vswitchd`` (database, sockets and logs in a private
  directory), so several test sessions never share a switch;
- a real OpenSSH server on ``127.0.0.1:<free port>`` that lets ``root`` in with a key made
  for this switch only, and points ``ovs-vsctl`` at this switch's database (``SetEnv
  OVS_RUNDIR``): the management address networking-generic-switch's ``netmiko_ovs_linux``
  device type logs in to.

Namespaces are named ``mwsw-<pid>-<random>-...`` so that parallel sessions do not collide, and
the ones a dead session left behind are removed when the next switch starts. Leaving the
``with`` block stops the daemons and deletes the namespaces, the bridge and the directory.

Usage::

    with EmulatedSwitch(ports=3) as switch:
        switch.set_access_vlan("swp1", 100)
        switch.port_vlan("swp1")           # PortVlan(tag=100, vlan_mode="access", trunks=())
        switch.ping(1, 2)                  # True when server 1 reaches server 2

For manual use, ``python -m tests.support.switch`` starts a switch, prints how to reach it
and waits for SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import Self

from tests.support.helpers import free_port, stop_process_group
from tests.support.postgres import LOOPBACK

__all__ = [
    "INSTALL_SCRIPT",
    "NAMESPACE_PREFIX",
    "EmulatedSwitch",
    "PortVlan",
    "SwitchError",
    "main",
    "missing_requirements",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
INSTALL_SCRIPT = REPO_ROOT / "scripts" / "install-switch"
NAMESPACE_PREFIX = "mwsw-"
SERVER_SUBNET = "10.99.0"
SSH_USER = "root"

_REQUIRED_PROGRAMS = ("ovsdb-tool", "ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ip", "ping")
_SSHD = Path("/usr/sbin/sshd")
_SCHEMA = Path("/usr/share/openvswitch/vswitch.ovsschema")
_STARTUP_TIMEOUT = 20.0
_OWNER_PID = re.compile(rf"^{re.escape(NAMESPACE_PREFIX)}(\d+)-")


class SwitchError(RuntimeError):
    """The emulated switch could not be built, or a command on it failed."""


@dataclass(frozen=True)
class PortVlan:
    """A switch port's VLAN settings as ``ovs-vsctl get port NAME tag vlan_mode trunks`` reads
    them; ``None`` and ``()`` where the column is empty."""

    tag: int | None
    vlan_mode: str | None
    trunks: tuple[int, ...]


def missing_requirements() -> list[str]:
    """What this machine lacks to build a switch (empty when everything is there)."""
    missing = [name for name in _REQUIRED_PROGRAMS if shutil.which(name) is None]
    if not _SSHD.exists():
        missing.append(str(_SSHD))
    if not _SCHEMA.exists():
        missing.append(str(_SCHEMA))
    if os.geteuid() != 0:
        missing.append("root (network namespaces)")
    return missing


def parse_port_vlan(output: str) -> PortVlan:
    """Parse the three lines ``ovs-vsctl get port NAME tag vlan_mode trunks`` prints."""
    lines = output.strip().splitlines()
    if len(lines) != 3:
        raise SwitchError(f"unexpected ovs-vsctl output for tag, vlan_mode, trunks: {output!r}")
    tag, mode, trunks = (line.strip() for line in lines)
    return PortVlan(
        tag=None if tag == "[]" else int(tag),
        vlan_mode=None if mode == "[]" else mode.strip('"'),
        trunks=tuple(int(vlan) for vlan in trunks.strip("[]").split(",") if vlan.strip()),
    )


def _run(argv: Sequence[str], env: dict[str, str] | None = None) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        raise SwitchError(
            f"{' '.join(argv)} exited with {result.returncode}: {result.stderr.strip()}"
        )
    return result.stdout


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _namespaces() -> list[str]:
    return [line.split()[0] for line in _run(["ip", "netns", "list"]).splitlines() if line]


def remove_abandoned_namespaces() -> list[str]:
    """Delete the namespaces of switches whose test session died without tearing down."""
    removed = []
    for name in _namespaces():
        owner = _OWNER_PID.match(name)
        if owner and not _pid_alive(int(owner.group(1))):
            subprocess.run(["ip", "netns", "delete", name], capture_output=True, check=False)
            removed.append(name)
    return removed


class EmulatedSwitch:
    """An Open vSwitch switch in a namespace, with servers on ``swp1..swpN``, behind sshd."""

    def __init__(self, ports: int = 3, bridge: str = "br0") -> None:
        if not 1 <= ports <= 250:
            raise ValueError(f"ports must be between 1 and 250, not {ports}")
        self.ports = ports
        self.bridge = bridge
        self.prefix = f"{NAMESPACE_PREFIX}{os.getpid()}-{secrets.token_hex(3)}"
        self.namespace = f"{self.prefix}-sw"
        self.ssh_host = LOOPBACK
        self.ssh_port = 0
        self.username = SSH_USER
        self._dir: Path | None = None
        self._processes: dict[str, subprocess.Popen[bytes]] = {}
        self._made_namespaces: list[str] = []

    # -- what a test needs ------------------------------------------------------------------

    @property
    def directory(self) -> Path:
        if self._dir is None:
            raise SwitchError("the switch is not running")
        return self._dir

    @property
    def key_file(self) -> Path:
        """The private key that logs ``root`` in over SSH (this switch's only credential)."""
        return self.directory / "client_key"

    @property
    def port_names(self) -> list[str]:
        return [f"swp{n}" for n in range(1, self.ports + 1)]

    def server_namespace(self, number: int) -> str:
        self._check_server(number)
        return f"{self.prefix}-h{number}"

    def server_address(self, number: int) -> str:
        self._check_server(number)
        return f"{SERVER_SUBNET}.{number}"

    def switch_file_section(
        self, name: str = "emulated", allowed_vlans: str = "", mac_address: str = ""
    ) -> str:
        """A ``[switch:<name>]`` section of a switch file that logs in to this switch."""
        lines = [
            f"[switch:{name}]",
            "driver_type = generic-switch",
            "device_type = netmiko_ovs_linux",
            f"address = {self.ssh_host}",
            f"port = {self.ssh_port}",
            f"username = {self.username}",
            f"key_file = {self.key_file}",
        ]
        if allowed_vlans:
            lines.append(f"allowed_vlans = {allowed_vlans}")
        if mac_address:
            lines.append(f"mac_address = {mac_address}")
        return "\n".join(lines) + "\n"

    def vsctl(self, *args: str) -> str:
        """Run ``ovs-vsctl`` against this switch's database and return its output."""
        return _run(["ovs-vsctl", f"--db=unix:{self.directory / 'db.sock'}", "--timeout=10", *args])

    def port_vlan(self, port: str) -> PortVlan:
        return parse_port_vlan(self.vsctl("get", "port", port, "tag", "vlan_mode", "trunks"))

    def set_access_vlan(self, port: str, vlan: int) -> None:
        """Put a port on one untagged VLAN directly (no SSH), as a test's starting state."""
        self.vsctl("set", "port", port, "vlan_mode=access", f"tag={vlan}")

    def clear_vlan(self, port: str) -> None:
        self.vsctl("clear", "port", port, "tag", "--", "clear", "port", port, "trunks", "--")
        self.vsctl("clear", "port", port, "vlan_mode")

    def ping(self, source: int, destination: int, timeout: float = 1.0) -> bool:
        """Whether server ``source`` gets an answer from server ``destination``."""
        namespace = self.server_namespace(source)
        # a failed ARP entry left by an earlier ping would delay this one by a second
        _run(["ip", "-n", namespace, "neigh", "flush", "all"])
        argv = ["ip", "netns", "exec", namespace, "ping", "-c", "1"]
        argv += ["-W", f"{timeout:g}", self.server_address(destination)]
        return subprocess.run(argv, capture_output=True, check=False).returncode == 0

    def daemon_pids(self) -> dict[str, int]:
        """The process ids of this switch's running ``ovsdb-server``, ``ovs-vswitchd`` and
        ``sshd`` (``ovs-vswitchd`` through the ``ip netns exec`` that started it)."""
        return {name: process.pid for name, process in self._processes.items()}

    def log(self, daemon: str) -> str:
        """The log of ``ovsdb-server``, ``ovs-vswitchd`` or ``sshd``."""
        path = self.directory / f"{daemon}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    # -- life cycle -------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        missing = missing_requirements()
        if missing:
            raise SwitchError(f"cannot build a switch, missing: {', '.join(missing)}")
        remove_abandoned_namespaces()
        self._dir = Path(tempfile.mkdtemp(prefix="mwsw-"))
        try:
            self._start_database()
            self._add_namespace(self.namespace)
            self._start_vswitchd()
            self._build_bridge()
            self._start_sshd()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the daemons and delete the namespaces and the directory; safe to call twice."""
        if "ovs-vswitchd" in self._processes:
            with contextlib.suppress(SwitchError):
                self.vsctl("--if-exists", "del-br", self.bridge)
        for name in ("sshd", "ovs-vswitchd", "ovsdb-server"):
            process = self._processes.pop(name, None)
            if process is not None:
                stop_process_group(process, 5)
        for namespace in reversed(self._made_namespaces):
            subprocess.run(["ip", "netns", "delete", namespace], capture_output=True, check=False)
        self._made_namespaces.clear()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def _check_server(self, number: int) -> None:
        if not 1 <= number <= self.ports:
            raise ValueError(f"server {number} does not exist: ports 1..{self.ports}")

    def _add_namespace(self, name: str) -> None:
        _run(["ip", "netns", "add", name])
        self._made_namespaces.append(name)
        _run(["ip", "-n", name, "link", "set", "lo", "up"])

    def _spawn(self, name: str, argv: Sequence[str]) -> None:
        log = (self.directory / f"{name}.log").open("ab")
        with log:
            self._processes[name] = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def _wait_for(self, name: str, ready: Path | tuple[str, int]) -> None:
        deadline = time.monotonic() + _STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self._processes[name].poll() is not None:
                raise SwitchError(f"{name} exited at start:\n{self.log(name)}")
            if isinstance(ready, Path):
                if ready.exists():
                    return
            else:
                with contextlib.suppress(OSError), socket.create_connection(ready, 0.2):
                    return
            time.sleep(0.05)
        raise SwitchError(f"{name} did not come up in {_STARTUP_TIMEOUT:g} s:\n{self.log(name)}")

    def _start_database(self) -> None:
        database = self.directory / "conf.db"
        _run(["ovsdb-tool", "create", str(database), str(_SCHEMA)])
        socket_path = self.directory / "db.sock"
        self._spawn(
            "ovsdb-server",
            [
                "ovsdb-server",
                str(database),
                f"--remote=punix:{socket_path}",
                f"--unixctl={self.directory / 'ovsdb-server.ctl'}",
                "--no-chdir",
            ],
        )
        self._wait_for("ovsdb-server", socket_path)
        self.vsctl("--no-wait", "init")

    def _start_vswitchd(self) -> None:
        control = self.directory / "ovs-vswitchd.ctl"
        self._spawn(
            "ovs-vswitchd",
            [
                "ip",
                "netns",
                "exec",
                self.namespace,
                "ovs-vswitchd",
                f"unix:{self.directory / 'db.sock'}",
                "--disable-system",
                f"--unixctl={control}",
                "--no-chdir",
            ],
        )
        self._wait_for("ovs-vswitchd", control)

    def _build_bridge(self) -> None:
        self.vsctl(
            "add-br", self.bridge, "--", "set", "bridge", self.bridge, "datapath_type=netdev"
        )
        for number, port in enumerate(self.port_names, start=1):
            server = self.server_namespace(number)
            self._add_namespace(server)
            veth = ["type", "veth", "peer", "name", "eth0", "netns", server]
            _run(["ip", "-n", self.namespace, "link", "add", port, *veth])
            _run(["ip", "-n", self.namespace, "link", "set", port, "up"])
            _run(
                [
                    "ip",
                    "-n",
                    server,
                    "addr",
                    "add",
                    f"{self.server_address(number)}/24",
                    "dev",
                    "eth0",
                ]
            )
            _run(["ip", "-n", server, "link", "set", "eth0", "up"])
            self.vsctl("add-port", self.bridge, port)

    def _start_sshd(self) -> None:
        host_key = self.directory / "ssh_host_ed25519_key"
        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host_key)])
        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.key_file)])
        authorized = self.directory / "authorized_keys"
        shutil.copyfile(self.key_file.with_suffix(".pub"), authorized)
        self.ssh_port = free_port()
        config = self.directory / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    f"ListenAddress {self.ssh_host}:{self.ssh_port}",
                    f"HostKey {host_key}",
                    f"PidFile {self.directory / 'sshd.pid'}",
                    f"AuthorizedKeysFile {authorized}",
                    f"AllowUsers {SSH_USER}",
                    "PermitRootLogin prohibit-password",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "UsePAM no",
                    # the key and its folder are the test's own, under /tmp
                    "StrictModes no",
                    "PrintMotd no",
                    "PrintLastLog no",
                    # ovs-vsctl in the login shell finds this switch's database
                    f"SetEnv OVS_RUNDIR={self.directory}",
                    "",
                ]
            )
        )
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation dir
        self._spawn("sshd", [str(_SSHD), "-D", "-e", "-f", str(config)])
        self._wait_for("sshd", (self.ssh_host, self.ssh_port))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--ports", type=int, default=3, help="number of switch ports")
    args = parser.parse_args(argv)

    stop = False

    def request_stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    with EmulatedSwitch(ports=args.ports) as switch:
        print(f"switch namespace {switch.namespace}, ports {', '.join(switch.port_names)}")
        print(f"ssh -i {switch.key_file} -p {switch.ssh_port} {switch.username}@{switch.ssh_host}")
        for number in range(1, switch.ports + 1):
            namespace, address = switch.server_namespace(number), switch.server_address(number)
            print(f"server {number}: {namespace} {address}")
        while not stop:
            time.sleep(0.2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
