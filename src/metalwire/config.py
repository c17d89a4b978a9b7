"""Configuration, declared once in code with help text.

Each section is a dataclass; its fields are the options, their ``help`` metadata the
documentation (``metalwire config-reference`` prints it). Values come, lowest priority first,
from the defaults here, an INI file whose section and option names follow Ironic's, the
environment (``METALWIRE_<OPTION>`` for ``[DEFAULT]``, ``METALWIRE_<SECTION>_<OPTION>``
otherwise) and command-line flags.
"""

from __future__ import annotations

import configparser
import dataclasses
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metalwire.errors import Invalid


def _opt(default: Any, help: str, minimum: float | None = None) -> Any:
    metadata = {"help": help, "minimum": minimum}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass
class DefaultOptions:
    enabled_network_interfaces: list[str] = _opt(
        ["noop", "flat", "neutron"],
        "Network interfaces that nodes may use; each is loaded from the "
        "'metalwire.network_interfaces' entry-point group.",
    )
    default_network_interface: str = _opt(
        "flat", "Network interface given to a node created without one."
    )
    enabled_hardware_types: list[str] = _opt(
        ["fake-hardware", "ipmi", "redfish", "manual-management"],
        "Driver names a node may be created with. metalwire does not manage power; the "
        "driver is recorded for the clients that expect it.",
    )
    host: str = _opt(
        socket.gethostname(),
        "Name of this service host, recorded as a node lock holder and in node history.",
    )
    data_dir: str = _opt("./metalwire-data", "Directory holding the embedded SQLite database.")


@dataclass
class ApiOptions:
    host_ip: str = _opt("127.0.0.1", "Address the API listens on.")
    port: int = _opt(6385, "TCP port the API listens on.")
    public_endpoint: str = _opt(
        "", "Base URL used in links; empty means the URL the request came in on."
    )
    max_limit: int = _opt(1000, "Largest page a list request may ask for.", minimum=1)
    max_request_body_size: int = _opt(
        114688,
        "Largest request body accepted, in bytes, on every endpoint; a larger one is refused "
        "with 413 before it is read when its Content-Length says so, or as soon as a streamed "
        "body grows past it.",
        minimum=1,
    )


@dataclass
class DatabaseOptions:
    connection: str = _opt(
        "", "SQLAlchemy database URL. Empty means the SQLite file metalwire.db in data_dir."
    )
    pool_size: int = _opt(
        10, "Connections kept open per process (server databases only).", minimum=1
    )


@dataclass
class ConductorOptions:
    node_lock_wait: float = _opt(
        30.0,
        "Seconds an operation waits its turn for a node lock before answering 409 NodeLocked.",
    )
    node_lock_lease: float = _opt(
        20.0,
        "Seconds a node lock stays valid without renewal; a lock whose holder died is free "
        "again after this.",
    )
    automated_clean: bool = _opt(True, "Run cleaning when a node is provided or undeployed.")
    db_workers: int = _opt(
        4,
        "Worker threads of one process that run VIF operations touching only the database "
        "(every such operation on PostgreSQL or MariaDB; on SQLite, those that cannot run on "
        "the event loop at once). A few keep the process busy while others wait for the "
        "database; more only contend for the interpreter. Operations on nodes whose "
        "interface calls an external service (Neutron) are not limited by this.",
        minimum=1,
    )


@dataclass
class NeutronOptions:
    url: str = _opt(
        "",
        "Neutron endpoint URL. Empty means no Neutron: 'flat' works "
        "standalone and 'neutron' refuses nodes.",
    )
    auth_strategy: str = _opt(
        "noauth", "How to authenticate to Neutron: noauth, token or keystone."
    )
    token: str = _opt("", "Static token sent as X-Auth-Token when auth_strategy is token.")
    auth_url: str = _opt("", "Keystone URL when auth_strategy is keystone.")
    username: str = _opt("", "Keystone user name.")
    password: str = _opt("", "Keystone password.")
    project_name: str = _opt("", "Keystone project name.")
    user_domain_name: str = _opt("Default", "Keystone user domain.")
    project_domain_name: str = _opt("Default", "Keystone project domain.")
    timeout: float = _opt(10.0, "Seconds one Neutron request may take.")
    retries: int = _opt(
        2, "Extra attempts of an idempotent Neutron request after a connection failure or 503."
    )
    port_setup_delay: float = _opt(0.0, "Seconds to wait after binding ports.")
    status_wait_timeout: float = _opt(
        30.0, "Seconds to wait for a bound Neutron port to become ACTIVE."
    )
    provisioning_network: str = _opt("", "Neutron network name or UUID used for deploying.")
    cleaning_network: str = _opt("", "Neutron network name or UUID used for cleaning.")
    noauth_roles: str = _opt("admin,service", "X-Roles header sent in noauth mode.")


SECTIONS: dict[str, type[Any]] = {
    "DEFAULT": DefaultOptions,
    "api": ApiOptions,
    "database": DatabaseOptions,
    "conductor": ConductorOptions,
    "neutron": NeutronOptions,
}


@dataclass
class Config:
    default: DefaultOptions = field(default_factory=DefaultOptions)
    api: ApiOptions = field(default_factory=ApiOptions)
    database: DatabaseOptions = field(default_factory=DatabaseOptions)
    conductor: ConductorOptions = field(default_factory=ConductorOptions)
    neutron: NeutronOptions = field(default_factory=NeutronOptions)

    def section(self, name: str) -> Any:
        return getattr(self, "default" if name == "DEFAULT" else name)

    def database_url(self) -> str:
        if self.database.connection:
            return self.database.connection
        path = Path(self.default.data_dir).resolve() / "metalwire.db"
        return f"sqlite:///{path}"


def _convert(section: str, name: str, kind: Any, raw: str) -> Any:
    text = raw.strip()
    try:
        if kind in (int, "int"):
            return int(text)
        if kind in (float, "float"):
            return float(text)
        if kind in (bool, "bool"):
            lowered = text.lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        if kind in (list[str], "list[str]"):
            return [item.strip() for item in text.split(",") if item.strip()]
    except ValueError:
        raise Invalid(f"configuration option [{section}] {name}: bad value {raw!r}") from None
    return text


def env_name(section: str, option: str) -> str:
    prefix = "METALWIRE_" if section == "DEFAULT" else f"METALWIRE_{section.upper()}_"
    return prefix + option.upper()


def load_config(
    path: str | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[tuple[str, str], Any] | None = None,
) -> Config:
    """Build the configuration from defaults, an INI file, the environment and overrides.

    Raises :class:`Invalid` for an unreadable file, an unknown option or a bad value.
    """
    conf = Config()
    env = os.environ if environ is None else environ
    parser = configparser.ConfigParser(interpolation=None)
    if path:
        if not Path(path).is_file():
            raise Invalid(f"configuration file {path} does not exist")
        parser.read(path)
    for section, cls in SECTIONS.items():
        target = conf.section(section)
        known = {f.name: f for f in dataclasses.fields(cls)}
        if path:
            items = (
                parser.defaults()
                if section == "DEFAULT"
                else (parser[section] if parser.has_section(section) else {})
            )
            for name, raw in items.items():
                if section != "DEFAULT" and name in parser.defaults():
                    continue
                if name not in known:
                    raise Invalid(f"configuration file {path}: unknown option [{section}] {name}")
                setattr(target, name, _convert(section, name, known[name].type, raw))
        for name, fld in known.items():
            from_env = env.get(env_name(section, name))
            if from_env is not None:
                setattr(target, name, _convert(section, name, fld.type, from_env))
    # Short aliases for the options people set most.
    alias = env.get("METALWIRE_DATABASE")
    if alias is not None:
        conf.database.connection = alias
    for (section, name), value in (overrides or {}).items():
        if value is not None:
            setattr(conf.section(section), name, value)
    _check_minimums(conf)
    return conf


def _check_minimums(conf: Config) -> None:
    for section, cls in SECTIONS.items():
        for fld in dataclasses.fields(cls):
            minimum = fld.metadata.get("minimum")
            value = getattr(conf.section(section), fld.name)
            if minimum is not None and value < minimum:
                raise Invalid(
                    f"configuration option [{section}] {fld.name}: {value!r} is below the "
                    f"minimum {minimum}"
                )


def reference() -> str:
    """Every option as an INI-style reference with its help text and default."""
    lines: list[str] = []
    for section, cls in SECTIONS.items():
        lines.append(f"[{section}]")
        for fld in dataclasses.fields(cls):
            default = fld.default_factory() if callable(fld.default_factory) else fld.default
            if isinstance(default, list):
                default = ",".join(default)
            lines.append(f"# {fld.metadata['help']}")
            lines.append(f"# env: {env_name(section, fld.name)}")
            lines.append(f"#{fld.name} = {default}")
        lines.append("")
    return "\n".join(lines)
