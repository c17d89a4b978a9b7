"""A real OpenStack Keystone for the authentication tests.

``KeystoneServer`` runs Keystone (installed by ``scripts/install-keystone`` into a venv of its
own) on SQLite: it writes ``keystone.conf`` into a temporary directory, runs ``db_sync``,
``fernet_setup``, ``credential_setup`` and ``bootstrap`` (user ``admin``, project ``admin``,
the ``admin``, ``manager``, ``member``, ``reader`` and ``service`` roles, the identity
endpoint), then serves ``keystone.wsgi.api:application`` with gunicorn on a free loopback
port and waits until ``/v3`` answers.

Usage::

    with KeystoneServer() as keystone:
        token = keystone.token("admin", keystone.admin_password, project="admin")

For manual use, ``python -m tests.support.keystone`` starts one and waits for Ctrl-C.
"""

from __future__ import annotations

import contextlib
import getpass
import grp
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import httpx

from tests.support.helpers import free_port, stop_process_group
from tests.support.postgres import LOOPBACK

REPO_ROOT = Path(__file__).resolve().parents[2]
INSTALL_SCRIPT = REPO_ROOT / "scripts" / "install-keystone"
VENV_ENV_VAR = "METALWIRE_KEYSTONE_VENV"
ADMIN_PASSWORD = "keystone-admin-secret"

# Keystone parses sys.argv with oslo.config; gunicorn's own flags are not for it.
_WSGI_SHIM = """\
import sys

sys.argv = sys.argv[:1]

from keystone.wsgi.api import application  # noqa: E402

__all__ = ["application"]
"""


class KeystoneError(RuntimeError):
    """Keystone could not be configured or started, or refused an admin call."""


def default_venv() -> Path:
    configured = os.environ.get(VENV_ENV_VAR)
    return Path(configured) if configured else REPO_ROOT / ".venv-keystone"


def keystone_installed(venv: Path) -> bool:
    return all(
        (venv / "bin" / name).is_file() for name in ("python", "gunicorn", "keystone-manage")
    )


class KeystoneServer:
    def __init__(self, venv: Path | None = None, start_timeout: float = 120.0) -> None:
        self.venv = venv or default_venv()
        self.start_timeout = start_timeout
        self.port = 0
        self.root: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.admin_password = ADMIN_PASSWORD
        self._admin_token: str | None = None
        self.timings: dict[str, float] = {}
        # One client for every call (its TLS context is read once, not per call).
        self.http = httpx.Client(timeout=30)

    @property
    def url(self) -> str:
        """The identity endpoint, ``http://127.0.0.1:PORT/v3``."""
        return f"http://{LOOPBACK}:{self.port}/v3"

    @property
    def log_file(self) -> Path:
        assert self.root is not None
        return self.root / "keystone.log"

    def log_text(self) -> str:
        try:
            return self.log_file.read_text(errors="replace")
        except OSError:
            return ""

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> Self:
        if not keystone_installed(self.venv):
            raise KeystoneError(f"Keystone is not installed in {self.venv}: run {INSTALL_SCRIPT}")
        self.root = Path(tempfile.mkdtemp(prefix="metalwire-keystone-"))
        self.port = free_port()
        conf = self.root / "keystone.conf"
        conf.write_text(
            "[DEFAULT]\nuse_stderr = true\n"
            f"[database]\nconnection = sqlite:///{self.root / 'keystone.db'}\n"
            "[token]\nprovider = fernet\nexpiration = 3600\n"
            f"[fernet_tokens]\nkey_repository = {self.root / 'fernet-keys'}\n"
            f"[credential]\nkey_repository = {self.root / 'credential-keys'}\n"
            "[cache]\nenabled = false\n"
            # Cheap password hashes: the tests issue many password tokens.
            "[identity]\npassword_hash_rounds = 4\n"
        )
        (self.root / "metalwire_keystone_wsgi.py").write_text(_WSGI_SHIM)
        env = {**os.environ, "OS_KEYSTONE_CONFIG_FILES": str(conf)}
        user, group = getpass.getuser(), grp.getgrgid(os.getgid()).gr_name
        manage = str(self.venv / "bin" / "keystone-manage")
        for args in (
            ["db_sync"],
            ["fernet_setup", "--keystone-user", user, "--keystone-group", group],
            ["credential_setup", "--keystone-user", user, "--keystone-group", group],
            [
                "bootstrap",
                "--bootstrap-password",
                self.admin_password,
                "--bootstrap-public-url",
                self.url,
                "--bootstrap-region-id",
                "RegionOne",
            ],
        ):
            began = time.monotonic()
            done = subprocess.run(
                [manage, "--config-file", str(conf), *args], env=env, capture_output=True
            )
            self.timings[args[0]] = time.monotonic() - began
            if done.returncode != 0:
                raise KeystoneError(f"keystone-manage {args[0]} failed:\n{done.stderr.decode()}")
        with self.log_file.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    str(self.venv / "bin" / "gunicorn"),
                    "--bind",
                    f"{LOOPBACK}:{self.port}",
                    "--workers",
                    "2",
                    "--chdir",
                    str(self.root),
                    "metalwire_keystone_wsgi:application",
                ],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        began = time.monotonic()
        deadline = began + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise KeystoneError(f"Keystone exited early:\n{self.log_text()}")
            try:
                if self.http.get(self.url, timeout=2.0).status_code == 200:
                    self.timings["answer"] = time.monotonic() - began
                    return self
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()
        raise KeystoneError(f"Keystone did not answer within {self.start_timeout} s")

    def stop(self) -> None:
        stop_process_group(self.process, 15)
        self.http.close()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- tokens --------------------------------------------------------------------------

    def token(
        self,
        user: str,
        password: str,
        project: str | None = None,
        system: bool = False,
        domain: str | None = None,
    ) -> str:
        """A token of ``user`` scoped to ``project`` (by name), the system, ``domain`` (by
        id), or nothing (an unscoped token: the users made here have no default project)."""
        auth: dict[str, Any] = {
            "identity": {
                "methods": ["password"],
                "password": {
                    "user": {"name": user, "domain": {"id": "default"}, "password": password}
                },
            }
        }
        if system:
            auth["scope"] = {"system": {"all": True}}
        elif domain is not None:
            auth["scope"] = {"domain": {"id": domain}}
        elif project is not None:
            auth["scope"] = {"project": {"name": project, "domain": {"id": "default"}}}
        resp = self.http.post(f"{self.url}/auth/tokens", json={"auth": auth})
        if resp.status_code != 201:
            raise KeystoneError(f"token for {user}: {resp.status_code} {resp.text}")
        return resp.headers["x-subject-token"]

    def app_credential_token(self, app_cred_id: str, secret: str) -> str:
        auth = {
            "identity": {
                "methods": ["application_credential"],
                "application_credential": {"id": app_cred_id, "secret": secret},
            }
        }
        resp = self.http.post(f"{self.url}/auth/tokens", json={"auth": auth})
        if resp.status_code != 201:
            raise KeystoneError(f"app credential token: {resp.status_code} {resp.text}")
        return resp.headers["x-subject-token"]

    def revoke(self, token: str) -> None:
        self.admin("DELETE", "/auth/tokens", headers={"X-Subject-Token": token})

    # -- admin calls ---------------------------------------------------------------------

    def admin(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        if self._admin_token is None:
            self._admin_token = self.token("admin", self.admin_password, system=True)
        headers = {"X-Auth-Token": self._admin_token, **kw.pop("headers", {})}
        resp = self.http.request(method, self.url + path, headers=headers, **kw)
        if resp.status_code >= 300:
            raise KeystoneError(f"{method} {path}: {resp.status_code} {resp.text}")
        return resp.json() if resp.content else {}

    def find(self, kind: str, name: str) -> str:
        items = self.admin("GET", f"/{kind}", params={"name": name})[kind]
        if not items:
            raise KeystoneError(f"no {kind} named {name}")
        return str(items[0]["id"])

    def project(self, name: str) -> str:
        body = {"project": {"name": name, "domain_id": "default"}}
        return str(self.admin("POST", "/projects", json=body)["project"]["id"])

    def user(self, name: str, password: str) -> str:
        body = {"user": {"name": name, "password": password, "domain_id": "default"}}
        return str(self.admin("POST", "/users", json=body)["user"]["id"])

    def grant(
        self, user_id: str, role: str, project_id: str | None = None, domain_id: str | None = None
    ) -> None:
        """``role`` on the project, else on the domain, else on the system."""
        role_id = self.find("roles", role)
        if project_id:
            target = f"/projects/{project_id}"
        else:
            target = f"/domains/{domain_id}" if domain_id else "/system"
        self.admin("PUT", f"{target}/users/{user_id}/roles/{role_id}")

    def register_service(self, service_type: str, name: str, url: str) -> None:
        """A catalog entry: ``service_type`` at ``url`` (public, RegionOne)."""
        body = {"service": {"type": service_type, "name": name}}
        service_id = self.admin("POST", "/services", json=body)["service"]["id"]
        for interface in ("public", "internal"):
            endpoint = {
                "service_id": service_id,
                "interface": interface,
                "url": url,
                "region_id": "RegionOne",
            }
            self.admin("POST", "/endpoints", json={"endpoint": endpoint})


def main() -> int:
    with KeystoneServer() as keystone:
        print(f"Keystone at {keystone.url}; admin password {keystone.admin_password}")
        sys.stdout.flush()
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()
    return 0


if __name__ == "__main__":
    sys.exit(main())
