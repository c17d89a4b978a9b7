"""Configuration, declared once in code with help text.

Each section is a dataclass; its fields are the options, their ``help`` metadata the
documentation (``metalwire config-reference`` prints it). Values come, lowest priority first,
from the defaults here, an INI file whose section and option names follow Ironic's, the
environment (``METALWIRE_<OPTION>`` for ``[DEFAULT]``, ``METALWIRE_<SECTION>_<OPTION>``
otherwise) and command-line flags. Old option names and Ironic options metalwire does not use
are accepted with a warning (:mod:`metalwire.config_compat`).
"""

from __future__ import annotations

import configparser
import dataclasses
import difflib
import ipaddress
import logging
import os
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rfc3986
import rfc3986.exceptions
import rfc3986.validators

from metalwire import config_compat
from metalwire.config_option import option as _opt
from metalwire.config_switch import IronicNetworkingOptions
from metalwire.errors import Invalid

LOG = logging.getLogger(__name__)


def _interface_opt(kind: str, default: str = "") -> Any:
    return _opt(
        default,
        f"The {kind}_interface a node gets when it has none (on create, after a driver "
        "change, or when the field is reset); it must be in enabled_"
        f"{kind}_interfaces and supported by every enabled hardware type. Empty: as Ironic "
        "chooses, the first implementation the node's hardware type supports that "
        f"enabled_{kind}_interfaces enables (with that list empty, the one Ironic's own "
        "defaults give). metalwire records the value and attaches no behaviour to it.",
    )


def _enabled_opt(kind: str) -> Any:
    return _opt(
        [],
        f"The {kind} interfaces a node may name (Ironic 39's implementation names); a node "
        "create or change naming another is refused (400). Every enabled hardware type must "
        "support at least one of them, or the service refuses to start. Empty (metalwire's "
        f"default, where Ironic has a short list): every {kind} interface Ironic 39 has.",
    )


#: The SQLite database of a data directory, used unless ``[database] connection`` is set.
SQLITE_FILE = "metalwire.db"


@dataclass
class DefaultOptions:
    enabled_network_interfaces: list[str] = _opt(
        ["noop", "flat", "neutron"],
        "Network interfaces that nodes may use; each is loaded from the "
        "'metalwire.network_interfaces' entry-point group.",
    )
    default_network_interface: str = _opt(
        "flat",
        "Network interface given to a node created without one (or whose network interface "
        "is reset); it must be enabled. Empty: as Ironic, the first of flat, neutron, "
        "ironic-networking and noop that is enabled.",
    )
    enabled_hardware_types: list[str] = _opt(
        ["fake-hardware", "ipmi", "redfish", "manual-management"],
        "Hardware types (drivers) a node may be created with or changed to, the ones "
        "GET /v1/drivers lists. Ironic's default is ipmi and redfish; metalwire's also "
        "serves fake-hardware and manual-management nodes. metalwire does not manage power; "
        "the driver is recorded for the clients that expect it.",
    )
    host: str = _opt(
        socket.gethostname(),
        "Name of this service host, recorded as a node lock holder and in node history, "
        "and this server's name in the conductor registry (GET /v1/conductors), shown as "
        "the conductor of the nodes whose hardware type it enables. Each server needs its "
        "own.",
    )
    data_dir: str = _opt("./metalwire-data", "Directory holding the embedded SQLite database.")
    default_portgroup_mode: str = _opt(
        "active-backup",
        "Bonding mode given to a portgroup created without one (the Linux bonding driver's "
        "mode names); Neutron receives it in the binding profile.",
    )
    enabled_bios_interfaces: list[str] = _enabled_opt("bios")
    default_bios_interface: str = _interface_opt("bios")
    enabled_boot_interfaces: list[str] = _enabled_opt("boot")
    default_boot_interface: str = _interface_opt("boot")
    enabled_console_interfaces: list[str] = _enabled_opt("console")
    default_console_interface: str = _interface_opt("console")
    enabled_deploy_interfaces: list[str] = _enabled_opt("deploy")
    default_deploy_interface: str = _interface_opt("deploy")
    enabled_firmware_interfaces: list[str] = _enabled_opt("firmware")
    default_firmware_interface: str = _interface_opt("firmware")
    enabled_inspect_interfaces: list[str] = _enabled_opt("inspect")
    default_inspect_interface: str = _interface_opt("inspect")
    enabled_management_interfaces: list[str] = _enabled_opt("management")
    default_management_interface: str = _interface_opt("management")
    enabled_power_interfaces: list[str] = _enabled_opt("power")
    default_power_interface: str = _interface_opt("power")
    enabled_raid_interfaces: list[str] = _enabled_opt("raid")
    default_raid_interface: str = _interface_opt("raid")
    enabled_rescue_interfaces: list[str] = _enabled_opt("rescue")
    default_rescue_interface: str = _interface_opt("rescue")
    enabled_storage_interfaces: list[str] = _enabled_opt("storage")
    default_storage_interface: str = _interface_opt("storage", "noop")
    enabled_vendor_interfaces: list[str] = _enabled_opt("vendor")
    default_vendor_interface: str = _interface_opt("vendor")
    auth_strategy: str = _opt(
        "noauth",
        "How API requests are authenticated: noauth (every request is the admin persona; "
        "refused on a non-loopback address unless [api] allow_insecure_noauth), http_basic "
        "(users of http_basic_auth_user_file) or keystone (tokens validated against Keystone "
        "with the [keystone_authtoken] credentials).",
    )
    http_basic_auth_user_file: str = _opt(
        "/etc/metalwire/htpasswd",
        "Apache htpasswd file with bcrypt hashes, read when auth_strategy is http_basic.",
    )
    http_basic_auth_personas_file: str = _opt(
        "",
        "YAML file giving users of http_basic_auth_user_file a persona other than system "
        "admin: user name -> roles (a list, given the roles they imply in Keystone: admin "
        "> manager > member > reader) and either system_scope: all or project_id "
        "(and optionally project_name). When set, the policy rules decide every http_basic "
        "request as they do keystone identities; users it does not name stay system admins. "
        "Empty: every user is a system admin and no rule is evaluated.",
    )
    debug: bool = _opt(
        False,
        "Log at DEBUG instead of INFO (metalwire serve --log-level, when given, wins).",
    )
    use_json: bool = _opt(
        False,
        "Write each log record as one JSON object per line (oslo.log's field names), with "
        "the request_id, user and project of the request it was logged for as fields.",
    )
    log_config_append: str = _opt(
        "",
        "A Python logging configuration file (logging.config.fileConfig format) that sets "
        "up all logging itself; debug and use_json are then ignored. Formats may name "
        "%(request_id)s, %(user)s and %(project)s. Read again on SIGHUP and when it changes.",
    )
    file_reload_interval: float = _opt(
        2.0,
        "Seconds between two looks (a stat each) at whether the htpasswd, personas, policy, "
        "trait-based networking or log_config_append file changed; a changed file is read "
        "again without a restart, and if it is wrong the old contents stay in force, with a "
        "warning saying why. 0: only on SIGHUP, which always reloads them all.",
        minimum=0,
    )
    graceful_shutdown_timeout: float = _opt(
        60.0,
        "Seconds a stopping process waits for the provision operations it runs after their "
        "request was answered (a deploy's switch or Neutron steps). One still running then "
        "is cut short, and its node is failed by the provision check once its lease runs "
        "out. 0: wait until they end.",
        minimum=0,
    )
    rbac_service_role_elevated_access: bool = _opt(
        False,
        "Let a user with the 'service' role act on every node, not only the nodes its "
        "project owns (Nova's ironic driver needs this).",
    )
    rbac_service_project_name: str = _opt(
        "service",
        "The project whose users with the 'service' role get elevated access when "
        "rbac_service_role_elevated_access is true (the 'service_role' policy rule).",
    )


@dataclass
class ApiOptions:
    host_ip: str = _opt("127.0.0.1", "Address the API listens on.")
    port: int = _opt(6385, "TCP port the API listens on (1 to 65535).", minimum=1, maximum=65535)
    public_endpoint: str = _opt(
        "", "Base URL used in links; empty means the URL the request came in on."
    )
    max_limit: int = _opt(1000, "Largest page a list request may ask for.", minimum=1)
    enable_ramdisk_endpoints: bool = _opt(
        True,
        "Take the inspection ramdisk's report, POST /v1/continue_inspection (Ironic's "
        "option); false answers it 403, for an API the ramdisks should not reach.",
    )
    allow_insecure_noauth: bool = _opt(
        False,
        "Serve with auth_strategy noauth on a non-loopback address (anyone who reaches the "
        "port is an administrator); a warning is logged at start.",
    )
    project_admin_can_manage_own_nodes: bool = _opt(
        True,
        "Let a project-scoped admin create nodes its project then owns, and delete them "
        "(the baremetal:node:create:self_owned_node and delete:self_owned_node rules).",
    )
    max_request_body_size: int = _opt(
        114688,
        "Largest request body accepted, in bytes, on every endpoint; a larger one is refused "
        "with 413 before it is read when its Content-Length says so, or as soon as a streamed "
        "body grows past it.",
        minimum=1,
    )
    header_timeout: float = _opt(
        10.0,
        "Seconds a connection has to send the headers of its next request, from when it opens "
        "or its last response completes; then it is closed (silent or slow clients cannot "
        "hold connections).",
        minimum=0.1,
    )
    max_header_size: int = _opt(
        16384,
        "Longest request line or header line accepted, in bytes; a longer one is refused with "
        "431 before authentication.",
        minimum=256,
    )
    max_header_total_size: int = _opt(
        65536,
        "Largest request head (request line and every header) accepted, in bytes; a larger "
        "one is refused with 431 and the connection closed as soon as it passes the limit, "
        "before authentication.",
        minimum=1024,
    )
    max_header_count: int = _opt(
        100,
        "Most header lines a request may have; more are refused with 431 before authentication.",
        minimum=10,
    )
    body_timeout: float = _opt(
        30.0,
        "Seconds a request has, from when its headers arrive, to send its whole body; then it "
        "is answered 408 and the connection closed (slow senders cannot hold connections).",
        minimum=0.1,
    )
    keep_alive_timeout: float = _opt(
        5.0,
        "Seconds an idle keep-alive connection stays open after a response.",
        minimum=0.1,
    )
    max_connections: int = _opt(
        800,
        "Open connections the server accepts requests on; a request arriving over it is "
        "answered 503. metalwire serve raises its open-file limit to fit, when the hard limit "
        "allows.",
        minimum=1,
    )
    enable_ssl_api: bool = _opt(
        False, "Serve HTTPS directly, with the certificate and key of the [ssl] section."
    )
    api_workers: int = _opt(
        1,
        "Server processes answering on the port (Ironic's option). Each is complete (API, "
        "conductor, network interfaces) and they share the database; more than one lets a "
        "database server's requests use several CPUs. max_connections and "
        "[database] pool_size apply to each. Ironic's default is the number of CPUs, up to "
        "4; metalwire's is 1.",
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
    prepared_statements: bool = _opt(
        True,
        "On PostgreSQL, prepare the statements a connection runs again (parsed and planned "
        "once). Set false behind a connection pooler in transaction mode that does not carry "
        "prepared statements from one server connection to another (PgBouncer before 1.21, "
        "or with max_prepared_statements = 0).",
    )
    multi_statement_queries: bool = _opt(
        True,
        "On MariaDB and MySQL, send the statements of an operation that go together (a VIF "
        "operation's reads; its writes with the COMMIT) as one multi-statement query, one "
        "round trip. Set false for a proxy in front of the database that does not pass "
        "multi-statement queries: each statement then goes on its own.",
    )
    sqlite_write_wait: float = _opt(
        30.0,
        "On SQLite, seconds a write waits for its turn, behind the other writes of this "
        "process and then another process holding the file's write lock (another server or "
        "worker, metalwire db upgrade, a backup tool), before answering 503 with "
        "Retry-After; a read that finds the file locked waits as long.",
        minimum=0,
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
    automated_clean: bool = _opt(
        True,
        "Run cleaning when a node is provided or undeployed, unless the node's own "
        "automated_clean (true or false) says otherwise.",
    )
    heartbeat_interval: float = _opt(
        10.0,
        "Seconds between two heartbeats of this server in the conductor registry "
        "(GET /v1/conductors), written by the first worker for all (Ironic's option).",
        minimum=0.1,
    )
    heartbeat_timeout: float = _opt(
        60.0,
        "Seconds since its last heartbeat after which a conductor is no longer alive: shown "
        "with alive false, its host no longer among a driver's hosts (Ironic's option). Keep "
        "it several heartbeat_interval long, and the servers' clocks in step.",
        minimum=0.1,
    )
    deploy_callback_timeout: float = _opt(
        1800.0,
        "Seconds a node with the direct deploy interface waits in 'wait call-back' for its "
        "agent before the deploy fails (Ironic's option); 0 waits for ever.",
        minimum=0,
    )
    clean_callback_timeout: float = _opt(
        1800.0,
        "Seconds a node waits in 'clean wait' for its agent before cleaning fails (Ironic's "
        "option); 0 waits for ever.",
        minimum=0,
    )
    service_callback_timeout: float = _opt(
        1800.0,
        "Seconds a node waits in 'service wait' (a servicing's wait step without seconds) "
        "before the servicing fails in maintenance (Ironic's option); 0 waits for ever.",
        minimum=0,
    )
    inspect_wait_timeout: float = _opt(
        1800.0,
        "Seconds a node inspected by the agent inspect interface waits in 'inspect wait' for "
        "its ramdisk before the inspection fails (Ironic's option); 0 waits for ever.",
        minimum=0,
    )
    max_conductor_wait_step_seconds: int = _opt(
        30,
        "The longest pause, in seconds, a 'wait' step of a manual cleaning or a servicing "
        "may ask for with its 'seconds' argument; a longer one waits this long, noted in the "
        "node's history (Ironic's option). For longer pauses use a 'hold' step and unhold.",
        minimum=0,
        maximum=1800,
    )
    check_provision_state_interval: float = _opt(
        60.0,
        "Seconds between two checks of the provision states: nodes waiting for an agent's "
        "call-back against deploy_callback_timeout, clean_callback_timeout, "
        "service_callback_timeout and inspect_wait_timeout, and nodes an "
        "interrupted operation left in a transient state (deploying, cleaning, ...) or with "
        "a power change under way, which are failed or cleared once their lock is free.",
        minimum=0.1,
    )
    event_loop_vif_calls: bool = _opt(
        True,
        "On SQLite and PostgreSQL, run a VIF operation on a node whose interface calls no "
        "external service on the event loop when nothing would make it wait (on PostgreSQL: "
        "the node's row is not locked by another transaction), instead of handing it to a "
        "worker thread. bench/fast_path.py and bench/compare.py measure both ways.",
    )
    db_workers: int = _opt(
        4,
        "Worker threads of one process that run VIF operations touching only the database "
        "(every such operation on MariaDB; on SQLite and PostgreSQL, those that cannot run "
        "on the event loop at once). A few keep the process busy while others wait for the "
        "database; more only contend for the interpreter. Operations on nodes whose "
        "interface calls an external service (Neutron) are not limited by this.",
        minimum=1,
    )
    workers_pool_size: int = _opt(
        300,
        "Provision operations one process runs at a time after their request was answered "
        "(a deploy's or a cleaning's switch and Neutron steps, each a thread). A verb asked "
        "while this many are under way is refused with 503 NoFreeConductorWorker and a "
        "Retry-After, before anything of it is done (Ironic's option and answer).",
        minimum=1,
    )
    audit_interval: float = _opt(
        0.0,
        "Seconds between two drift audits (VIF attachments compared with Neutron, switch ports "
        "with what ironic-networking set) run by "
        "the server process; the latest findings are served at GET /v1/metalwire/audit/latest. "
        "0 turns the periodic audit off.",
        minimum=0,
    )
    enable_trait_based_networking: bool = _opt(
        False,
        "Choose the ports a VIF attaches to by the node's traits (instance_info['traits']) "
        "and the rules of trait_based_networking_config_file. The file is read and checked "
        "at start; an invalid file stops the service, naming the line.",
    )
    trait_based_networking_config_file: str = _opt(
        "/etc/metalwire/trait_based_networking.yaml",
        "YAML file of trait-based networking rules: trait names, each with actions and an "
        "optional order (docs/operators.md; 'metalwire tbn check FILE' validates one).",
    )
    trait_based_networking_raise_when_no_match: bool = _opt(
        True,
        "When no trait-based networking rule places a VIF, refuse the attach with a 400 that "
        "names the node's traits, each trait tried and why each port was refused. When "
        "false, the VIF goes where it would without trait-based networking, with a warning "
        "in the log (Ironic 39 answers 204 and attaches nothing).",
    )
    deploy_kernel: str = _opt(
        "",
        "The deploy ramdisk's kernel (a URL, a file or a Glance image) for a node whose "
        "driver_info names no deploy_kernel and deploy_ramdisk (Ironic's option). The pxe, "
        "ipxe, http, http-ipxe and redfish virtual media boot interfaces refuse a deploy "
        "without one.",
    )
    deploy_ramdisk: str = _opt(
        "", "The deploy ramdisk for a node whose driver_info names none (Ironic's option)."
    )
    rescue_kernel: str = _opt(
        "",
        "The rescue ramdisk's kernel for a node whose driver_info names no rescue_kernel and "
        "rescue_ramdisk (Ironic's option); the agent rescue interface refuses a rescue "
        "without one.",
    )
    rescue_ramdisk: str = _opt(
        "", "The rescue ramdisk for a node whose driver_info names none (Ironic's option)."
    )
    deploy_kernel_by_arch: dict[str, str] = _opt(
        {},
        "The deploy ramdisk's kernel for each CPU architecture (ARCH:URL pairs, e.g. "
        "x86_64:http://images/ipa.kernel,aarch64:http://images/ipa-arm.kernel), for a node "
        "whose driver_info names none: the node's properties/cpu_arch picks the pair, taken "
        "before deploy_kernel and deploy_ramdisk when deploy_ramdisk_by_arch has the "
        "architecture too (Ironic's option).",
    )
    deploy_ramdisk_by_arch: dict[str, str] = _opt(
        {}, "The deploy ramdisk for each CPU architecture, as deploy_kernel_by_arch."
    )
    rescue_kernel_by_arch: dict[str, str] = _opt(
        {},
        "The rescue ramdisk's kernel for each CPU architecture, as deploy_kernel_by_arch "
        "for the rescue ramdisk.",
    )
    rescue_ramdisk_by_arch: dict[str, str] = _opt(
        {}, "The rescue ramdisk for each CPU architecture, as deploy_kernel_by_arch."
    )
    error_on_ramdisk_config_inconsistency: bool = _opt(
        False,
        "A node whose driver_info names only one of a ramdisk's kernel and ramdisk (or whose "
        "architecture has only one of the two in the *_by_arch options) fails its validation "
        "naming what is missing; when false it is logged, and the pair is looked for in the "
        "next place (Ironic's option).",
    )
    trait_based_networking_enable_default_trait: bool = _opt(
        True,
        "When none of the node's traits has rules, apply CUSTOM_DEFAULT_TBN_TRAIT: the file's, "
        "or the built-in one (the first free portgroup, else the first free port).",
    )


@dataclass
class NeutronOptions:
    """Ironic's ``[neutron]`` options (keystoneauth's names for auth, session and adapter)."""

    auth_type: str = _opt(
        "none",
        "How to authenticate to Neutron, by keystoneauth plugin name: none (no token; sends "
        "X-Roles from noauth_roles, for Neutron's noauth mode), password or v3password "
        "(a Keystone user), v3applicationcredential, token or v3token (the token option: "
        "exchanged at auth_url for a project-scoped token when auth_url is set, else sent "
        "as it is).",
    )
    endpoint_override: str = _opt(
        "",
        "Neutron endpoint URL ('/v2.0' is appended unless present). Empty means the Keystone "
        "catalog's when auth_type authenticates to Keystone; otherwise there is no Neutron: "
        "'flat' works standalone and 'neutron' refuses nodes.",
    )
    auth_url: str = _opt("", "Keystone URL ('/v3' is appended unless present).")
    username: str = _opt("", "Keystone user name (password).")
    password: str = _opt("", "Keystone password (password).")
    project_name: str = _opt("", "Keystone project to scope the token to (password, token).")
    user_domain_name: str = _opt("Default", "Keystone domain of the user (password).")
    project_domain_name: str = _opt("Default", "Keystone domain of the project.")
    application_credential_id: str = _opt(
        "", "Keystone application credential id (v3applicationcredential)."
    )
    application_credential_secret: str = _opt(
        "", "Keystone application credential secret (v3applicationcredential)."
    )
    token: str = _opt("", "Token for auth_type token or v3token.")
    service_type: str = _opt("network", "Service type of Neutron in the Keystone catalog.")
    service_name: str = _opt(
        "", "Service name of Neutron in the Keystone catalog; empty means any."
    )
    valid_interfaces: list[str] = _opt(
        ["internal", "public"],
        "Catalog endpoint interfaces to use, in order of preference (public, internal, admin).",
    )
    region_name: str = _opt("", "Region of the catalog endpoint; empty means any.")
    cafile: str = _opt(
        "", "PEM file of the CA certificates that verify Neutron's and Keystone's TLS servers."
    )
    certfile: str = _opt("", "PEM client certificate presented to Neutron and Keystone.")
    keyfile: str = _opt("", "PEM private key of certfile (empty: it is in certfile).")
    insecure: bool = _opt(False, "Do not verify the TLS server certificates (testing only).")
    request_timeout: float = _opt(45.0, "Seconds one Neutron or Keystone request may take.")
    status_code_retries: int = _opt(
        2,
        "Extra attempts of an idempotent request answered with a retriable_status_codes "
        "status (and, unless connect_retries is set, after a connection failure).",
        minimum=0,
    )
    status_code_retry_delay: float | None = _opt(
        None,
        "Seconds between two status code retries; empty means 0.2 s doubling to at most 2 s.",
        minimum=0,
    )
    connect_retries: int | None = _opt(
        None,
        "Extra attempts after a connection failure or timeout (a POST only when nothing was "
        "sent); empty means status_code_retries.",
        minimum=0,
    )
    connect_retry_delay: float | None = _opt(
        None,
        "Seconds between two connection retries; empty means status_code_retry_delay.",
        minimum=0,
    )
    retriable_status_codes: list[int] = _opt(
        [503], "HTTP statuses after which an idempotent request is tried again."
    )
    port_setup_delay: float = _opt(0.0, "Seconds to wait after binding ports.", minimum=0)
    fail_on_port_binding_failure: bool = _opt(
        True,
        "Whether a binding of the neutron interface (a VIF at deploy or at an attach to an "
        "active node, a provisioning or cleaning port) fails when Neutron cannot bind the "
        "port or it does not become ACTIVE; when false it is not waited for. A node's "
        "driver_info fail_on_binding_failure overrides it (flat nodes too, which neither "
        "wait nor fail unless it says so); a binding through a Smart NIC port waits and "
        "fails on every interface unless that driver_info key is false.",
    )
    status_wait_timeout: float = _opt(
        30.0, "Seconds to wait for a bound Neutron port to become ACTIVE."
    )
    provisioning_network: str = _opt(
        "",
        "Neutron network name or UUID the deploy ramdisk boots on (a node's "
        "driver_info/provisioning_network overrides it); empty: the neutron network "
        "interface puts the node on no provisioning network.",
    )
    provisioning_network_security_groups: list[str] = _opt(
        [],
        "UUIDs of the Neutron security groups the neutron network interface puts on the "
        "ports it creates on the provisioning network; each must exist, else the deploy "
        "fails. Empty: Neutron's default group.",
    )
    cleaning_network: str = _opt(
        "",
        "Neutron network name or UUID the cleaning ramdisk boots on (a node's "
        "driver_info/cleaning_network overrides it), for the neutron network interface and "
        "for flat when Neutron is configured; empty: no cleaning network.",
    )
    cleaning_network_security_groups: list[str] = _opt(
        [],
        "UUIDs of the Neutron security groups the neutron network interface puts on the "
        "ports it creates on the cleaning network (flat puts none, as Ironic's); each must "
        "exist, else the cleaning fails. Empty: Neutron's default group.",
    )
    rescuing_network: str = _opt(
        "",
        "Neutron network name or UUID for rescuing (a node's driver_info/rescuing_network "
        "overrides it); as Ironic, the neutron network interface refuses an agent rescue "
        "while neither is set. An agent rescue unbinds the node's VIFs and creates a bound "
        "port on it for each PXE-enabled port; as Ironic's once the rescue ramdisk is up (at "
        "once, metalwire boots none), those ports are deleted and the VIFs bound again. A "
        "rescue that fails (`rescue failed`) leaves no port on it and the VIFs unbound, as "
        "Ironic's; an unrescue binds them again.",
    )
    rescuing_network_security_groups: list[str] = _opt(
        [],
        "UUIDs of the Neutron security groups the neutron network interface puts on the "
        "ports it creates on the rescuing network; each must exist, else the rescue fails. "
        "Empty: Neutron's default group.",
    )
    inspection_network: str = _opt(
        "",
        "Neutron network name or UUID the agent inspection ramdisk boots on (a node's "
        "driver_info/inspection_network overrides it). An agent inspection of a neutron node, "
        "or of a flat one when Neutron is configured, is refused while neither names a "
        "network Neutron knows; it creates a bound port on it for each PXE-enabled port, "
        "deleted again when the inspection leaves 'inspect wait' (the ramdisk's report, "
        "abort, [conductor] inspect_wait_timeout).",
    )
    inspection_network_security_groups: list[str] = _opt(
        [],
        "UUIDs of the Neutron security groups the neutron network interface puts on the "
        "ports it creates on the inspection network (flat puts none, as Ironic's); each must "
        "exist, else the inspection fails to start. Empty: Neutron's default group.",
    )
    noauth_roles: str = _opt("admin,service", "X-Roles header sent when auth_type is none.")

    @property
    def keystone_auth(self) -> bool:
        """Whether the client gets its token from Keystone (and may read its catalog)."""
        return self.auth_type in KEYSTONE_AUTH_TYPES or (
            self.auth_type in TOKEN_AUTH_TYPES and bool(self.auth_url)
        )

    @property
    def configured(self) -> bool:
        """Whether there is a Neutron to call: an endpoint, or a catalog to find it in."""
        return bool(self.endpoint_override) or (self.keystone_auth and bool(self.auth_url))


#: ``auth_type`` values: keystoneauth plugin names metalwire implements.
KEYSTONE_AUTH_TYPES = ("password", "v3password", "v3applicationcredential")
TOKEN_AUTH_TYPES = ("token", "v3token")
AUTH_TYPES = ("none", *KEYSTONE_AUTH_TYPES, *TOKEN_AUTH_TYPES)


@dataclass
class KeystoneAuthtokenOptions:
    www_authenticate_uri: str = _opt(
        "", "Keystone URL named in the WWW-Authenticate header of a 401; empty means auth_url."
    )
    auth_url: str = _opt("", "Keystone URL used to validate tokens.")
    auth_type: str = _opt("password", "How metalwire authenticates to Keystone: password.")
    username: str = _opt("", "metalwire's own Keystone user.")
    password: str = _opt("", "Password of that user.")
    project_name: str = _opt("service", "Project of metalwire's own Keystone user.")
    user_domain_name: str = _opt("Default", "Domain of metalwire's own Keystone user.")
    project_domain_name: str = _opt("Default", "Domain of that project.")
    cafile: str = _opt("", "CA bundle that verifies Keystone's certificate; empty: the system's.")
    insecure: bool = _opt(False, "Do not verify Keystone's certificate.")
    token_cache_time: float = _opt(
        300.0,
        "Seconds a validated token is trusted without asking Keystone again; a revoked token "
        "is refused at the latest this long after its revocation.",
        minimum=0,
    )
    token_cache_size: int = _opt(
        10000, "Validated tokens kept in the cache (least recently used dropped).", minimum=1
    )
    max_concurrent_validations: int = _opt(
        4,
        "Token validations asked of Keystone at the same time, in threads of their own; "
        "more wait their turn. A flood of invented tokens then delays only other uncached "
        "tokens, never a request whose token is cached.",
        minimum=1,
    )
    negative_cache_time: float = _opt(
        10.0,
        "Seconds a token Keystone refused is refused again without asking it (0: always "
        "ask). The same bounded cache size as token_cache_size.",
        minimum=0,
    )
    http_request_max_retries: int = _opt(
        3, "Extra attempts of a token validation after a connection failure.", minimum=0
    )
    http_connect_timeout: float = _opt(10.0, "Seconds one request to Keystone may take.")


@dataclass
class SslOptions:
    cert_file: str = _opt("", "PEM certificate (chain) served when [api] enable_ssl_api is true.")
    key_file: str = _opt("", "PEM private key of cert_file (empty: it is in cert_file).")


@dataclass
class OsloPolicyOptions:
    policy_file: str = _opt(
        "",
        "YAML or JSON file overriding policy rules by Ironic's rule names "
        "(metalwire policy-reference prints the defaults); empty means the defaults.",
    )
    enforce_new_defaults: bool = _opt(
        True,
        "Evaluate only the secure-RBAC defaults. False also accepts what each rule's "
        "deprecated pre-RBAC default (rule:is_admin, rule:is_observer) accepts.",
    )


@dataclass
class DeployOptions:
    """The options of Ironic's ``[deploy]`` that metalwire uses: the conductor's HTTP server,
    which the ipxe and http-ipxe boot interfaces (and the anaconda deploy) cannot work
    without."""

    http_url: str = _opt(
        "",
        "URL of the conductor's HTTP server from which iPXE loads its scripts and images, "
        "such as http://192.0.2.3:8080 (Ironic's option). Unset, the ipxe and http-ipxe boot "
        "interfaces fail validation, and a deploy of a node using them is refused.",
        url_schemes=("http", "https"),
    )
    http_root: str = _opt(
        "/httpboot",
        "The HTTP server's root directory (Ironic's option). Empty, the ipxe and http-ipxe "
        "boot interfaces fail validation.",
    )


@dataclass
class AgentOptions:
    """The options of Ironic's ``[agent]`` that metalwire uses: the wait for the Neutron agent
    of a Smart NIC's host before a port is bound through the Smart NIC, the time that agent
    is given before the node powered on for it is powered off again, and whether the agent
    ramdisk's boot is managed."""

    manage_agent_boot: bool = _opt(
        True,
        "Whether the agent ramdisk's boot is managed (Ironic's option, deprecated there). "
        "When false, the direct, custom-agent and bootc deploys and the agent rescue do not "
        "check the boot interface (its deploy_kernel, deploy_ramdisk, ...).",
    )

    neutron_agent_max_attempts: int = _opt(
        100,
        "Times the Neutron agent of a Smart NIC port's host is checked for being alive before "
        "a binding through that port fails.",
        minimum=1,
    )
    neutron_agent_status_retry_interval: float = _opt(
        10.0, "Seconds between two checks of that agent.", minimum=0
    )
    neutron_agent_poll_interval: float = _opt(
        2.0,
        "Seconds the Neutron agent waits between two polls for device changes (Neutron's "
        "[AGENT] polling_interval). A node powered on for its Smart NIC ports to be bound or "
        "unbound is powered off again twice this long after the last change, so that the "
        "agent on the NIC has applied it.",
        minimum=0,
    )


#: ``[inspector] add_ports``: which interfaces of an inventory become ports.
ADD_PORTS = ("all", "active", "pxe", "disabled")
#: ``[inspector] keep_ports``: which ports of an inspected node stay.
KEEP_PORTS = ("all", "present", "added")
DEFAULT_INSPECTION_HOOKS = "ramdisk-error,validate-interfaces,ports,architecture"


@dataclass
class InspectorOptions:
    """The options of Ironic's ``[inspector]`` that metalwire uses: what an ``agent``
    inspection does with the ramdisk's report (``POST /v1/continue_inspection``)."""

    default_hooks: str = _opt(
        DEFAULT_INSPECTION_HOOKS,
        "The inspection hooks run by default, in order (Ironic's option): ramdisk-error "
        "fails the inspection with the error the ramdisk reported, validate-interfaces "
        "picks the inventory's interfaces add_ports names, ports creates their ports, "
        "architecture sets the node's properties/cpu_arch.",
    )
    hooks: str = _opt(
        "$default_hooks",
        "The inspection hooks run, in order (Ironic's option); $default_hooks stands for "
        "default_hooks, so that others are added before or after them "
        '("$default_hooks,parse-lldp,local-link-connection"). metalwire has those of '
        "default_hooks and parse-lldp (the LLDP TLVs of each interface read into the "
        "plugin data), local-link-connection (each port's local_link_connection from them) "
        "and physical-network (each port's physical_network from "
        "physical_network_cidr_map); an unknown hook, or one listed before a hook it "
        "needs, stops the start.",
    )
    add_ports: str = _opt(
        "pxe",
        "Which interfaces of the inventory the ports hook creates ports for (Ironic's "
        "option): all; active, those with an IP address; pxe, the one the ramdisk booted "
        "from (every one if the inventory does not say which); disabled, none.",
    )
    keep_ports: str = _opt(
        "all",
        "Which ports of the node the ports hook keeps (Ironic's option): all; present, "
        "those whose MAC address is an interface of the inventory; added, those of the "
        "interfaces add_ports picks. A port another rule keeps (a VIF on it) fails the "
        "inspection.",
    )
    update_pxe_enabled: bool = _opt(
        True,
        "Whether the ports hook sets each port's pxe_enabled to whether the ramdisk booted "
        "from it (Ironic's option).",
    )
    power_off: bool = _opt(
        True,
        "Whether the node is powered off when its inspection ends (Ironic's option; "
        "rebooted instead if its disable_power_off is set).",
    )
    physical_network_cidr_map: list[str] = _opt(
        [],
        "CIDR:PHYSNET pairs (Ironic's option, such as 10.10.10.0/24:physnet_a): the "
        "physical-network hook sets a port's physical_network to the physical network of "
        "the subnet holding its interface's IP address.",
    )


@dataclass
class MetricsOptions:
    enabled: bool = _opt(
        True,
        "Record Prometheus metrics and serve them at GET /metrics (each server its own; the "
        "worker processes of one server together).",
    )
    public: bool = _opt(
        False,
        "Serve /metrics without authentication, like / and /v1/. By default a scrape "
        "authenticates as any other request does (the configured auth_strategy).",
    )


@dataclass
class HealthcheckOptions:
    """Ironic's ``[healthcheck]`` (served by oslo.middleware there)."""

    enabled: bool = _opt(
        True,
        "Answer GET and HEAD at path, without authentication: 200 OK (HEAD: 204) when the "
        "database answers, 503 naming the reason otherwise. Ironic's default is false; "
        "metalwire's answer tells nothing but whether it can serve.",
    )
    path: str = _opt("/healthcheck", "Path of the health check.")
    detailed: bool = _opt(
        False,
        "Add details to a JSON answer (Accept: application/json): the database error, the "
        "Python version and the platform. They may help an attacker: keep it off unless "
        "the path is only reachable by operators.",
    )
    database_timeout: float = _opt(
        2.0,
        "Seconds the health check waits for the database's answer before reporting it "
        "unavailable. The result is reused for a second, so probes cannot load the database.",
        minimum=0.1,
    )


SECTIONS: dict[str, type[Any]] = {
    "DEFAULT": DefaultOptions,
    "api": ApiOptions,
    "database": DatabaseOptions,
    "conductor": ConductorOptions,
    "neutron": NeutronOptions,
    "deploy": DeployOptions,
    "agent": AgentOptions,
    "inspector": InspectorOptions,
    "keystone_authtoken": KeystoneAuthtokenOptions,
    "oslo_policy": OsloPolicyOptions,
    "metrics": MetricsOptions,
    "healthcheck": HealthcheckOptions,
    "ssl": SslOptions,
    "ironic_networking": IronicNetworkingOptions,
}


@dataclass
class Config:
    default: DefaultOptions = field(default_factory=DefaultOptions)
    api: ApiOptions = field(default_factory=ApiOptions)
    database: DatabaseOptions = field(default_factory=DatabaseOptions)
    conductor: ConductorOptions = field(default_factory=ConductorOptions)
    neutron: NeutronOptions = field(default_factory=NeutronOptions)
    deploy: DeployOptions = field(default_factory=DeployOptions)
    agent: AgentOptions = field(default_factory=AgentOptions)
    inspector: InspectorOptions = field(default_factory=InspectorOptions)
    keystone_authtoken: KeystoneAuthtokenOptions = field(default_factory=KeystoneAuthtokenOptions)
    oslo_policy: OsloPolicyOptions = field(default_factory=OsloPolicyOptions)
    metrics: MetricsOptions = field(default_factory=MetricsOptions)
    healthcheck: HealthcheckOptions = field(default_factory=HealthcheckOptions)
    ssl: SslOptions = field(default_factory=SslOptions)
    ironic_networking: IronicNetworkingOptions = field(default_factory=IronicNetworkingOptions)

    def section(self, name: str) -> Any:
        return getattr(self, "default" if name == "DEFAULT" else name)

    def database_url(self) -> str:
        if self.database.connection:
            return self.database.connection
        path = Path(self.default.data_dir).resolve() / SQLITE_FILE
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
        if kind == "list[int]":
            return [int(item) for item in text.split(",") if item.strip()]
        if kind in (dict[str, str], "dict[str, str]"):
            return _key_value_pairs(section, name, text)
        if kind in ("int | None", "float | None"):
            return None if not text else _convert(section, name, kind.split(" ")[0], raw)
    except ValueError:
        raise Invalid(f"configuration option [{section}] {name}: bad value {raw!r}") from None
    return text


def _key_value_pairs(section: str, name: str, text: str) -> dict[str, str]:
    """``KEY:VALUE,KEY:VALUE`` as oslo.config's dictionaries read it: each pair split at its
    first colon, so that a value may be a URL."""
    pairs: dict[str, str] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        key, colon, value = item.partition(":")
        # "http://..." alone is a URL split at its scheme, not a pair: its key was forgotten
        if not colon or not key.strip() or value.startswith("//"):
            raise Invalid(
                f"configuration option [{section}] {name}: bad value {text!r}: expected "
                f"KEY:VALUE pairs separated by commas, and {item.strip()!r} is not one"
            )
        pairs[key.strip()] = value.strip()
    return pairs


# The name ConfigParser would give the section every other one inherits from: one no file
# can have (a section header is one line), so that none is inherited.
_NO_INHERITED_SECTION = "\n"


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
    # Not strict: as oslo.config, an option given twice in a section (or a section given
    # twice) is taken, the last value winning; _read_ini warns about it. [DEFAULT] is a
    # section like the others, as in oslo.config: its options are not every section's.
    parser = configparser.ConfigParser(
        interpolation=None, strict=False, default_section=_NO_INHERITED_SECTION
    )
    if path:
        if not Path(path).exists():
            raise Invalid(f"configuration file {path} does not exist")
        _read_ini(parser, path)
        _check_sections(parser.sections(), path)
    for section, cls in SECTIONS.items():
        target = conf.section(section)
        known = {f.name: f for f in dataclasses.fields(cls)}
        if path:
            given = dict(parser[section]) if parser.has_section(section) else {}
            for name, raw in _with_ironic_names(section, given, known, path).items():
                if name not in known:
                    raise Invalid(f"configuration file {path}: unknown option [{section}] {name}")
                setattr(target, name, _convert(section, name, known[name].type, raw))
        from_env = {
            name: env[env_name(section, name)]
            for name in [*known, *config_compat.aliases(section)]
            if env_name(section, name) in env
        }
        for name, raw in _with_ironic_names(section, from_env, known, "environment").items():
            setattr(target, name, _convert(section, name, known[name].type, raw))
    # Short aliases for the options people set most.
    alias = env.get("METALWIRE_DATABASE")
    if alias is not None:
        conf.database.connection = alias
    for (section, name), value in (overrides or {}).items():
        if value is not None:
            setattr(conf.section(section), name, value)
    _check_bounds(conf)
    _check_urls(conf)
    _check_inspector(conf.inspector)
    return conf


def _read_ini(parser: configparser.ConfigParser, path: str) -> None:
    """Read the INI file into ``parser``; Invalid naming the file when it cannot be read (not
    skipped, as ConfigParser.read skips a file it cannot open) or is not a valid INI file."""
    where = f"configuration file {path}"
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.readlines()
        parser.read_file(lines, source=path)
    except OSError as exc:
        raise Invalid(f"{where} cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise Invalid(
            f"{where} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
        ) from None
    except configparser.Error as exc:
        said = " ".join(str(exc).split())  # its own lines, on one
        raise Invalid(f"{where} is not a valid INI file: {said}") from None
    for section, name, numbers in _repeated_options(lines, parser.optionxform):
        LOG.warning(
            "%s: [%s] %s is set more than once (lines %s); the last value is used, as "
            "oslo.config does",
            path,
            section,
            name,
            ", ".join(map(str, numbers)),
        )


def _repeated_options(
    lines: Sequence[str], optionxform: Callable[[str], str]
) -> list[tuple[str, str, list[int]]]:
    """Each option a section sets on more than one line: section, option, line numbers.

    Reads the lines as ConfigParser does where it matters here: a section header, or an
    option at the start of its line (an indented line may continue the value before it)."""
    lines_of: dict[tuple[str, str], list[int]] = {}
    section: str | None = None
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text[0] in "#;" or line[0].isspace():
            continue
        header = configparser.ConfigParser.SECTCRE.match(text)
        if header is not None:
            section = header["header"]
            continue
        given = configparser.ConfigParser.OPTCRE.match(text)
        if given is not None and section is not None:
            name = optionxform(given["option"].rstrip())
            lines_of.setdefault((section, name), []).append(number)
    return [(s, n, numbers) for (s, n), numbers in lines_of.items() if len(numbers) > 1]


def _check_sections(sections: Sequence[str], path: str) -> None:
    """Refuse a section that is neither metalwire's nor Ironic's, with the closest name; warn
    about Ironic's sections, which metalwire ignores."""
    for section in sections:
        if section in SECTIONS:
            continue
        if section in config_compat.IRONIC_SECTIONS:
            LOG.warning(
                "%s: [%s] is an Ironic section metalwire does not use; ignored", path, section
            )
            continue
        known = [*SECTIONS, *sorted(config_compat.IRONIC_SECTIONS)]
        by_lower = {name.lower(): name for name in known}
        close = difflib.get_close_matches(section.lower(), list(by_lower), n=1, cutoff=0.6)
        hint = (
            f"did you mean [{by_lower[close[0]]}]?"
            if close
            else "metalwire reads " + ", ".join(f"[{name}]" for name in SECTIONS)
        )
        raise Invalid(
            f"configuration file {path}: unknown section [{section}], neither metalwire's "
            f"nor Ironic's; {hint}"
        )


def _with_ironic_names(
    section: str, given: Mapping[str, str], known: Mapping[str, Any], where: str
) -> dict[str, str]:
    """``given`` with deprecated names read as their new options and Ironic's unused ones
    dropped, each with a warning naming it (never its value, which may be a secret).

    ``where`` is the file name, or "environment" (then options are named by variable).
    """

    def named(option: str) -> str:
        if where == "environment":
            return env_name(section, option)
        return f"[{section}] {option}"

    result: dict[str, str] = {}
    for name, raw in given.items():
        old = config_compat.alias(section, name) if name not in known else None
        if old is not None:
            new, old_name = named(old.new), named(name)
            if old.new in given:
                LOG.warning("%s: %s is deprecated and ignored: %s is set", where, old_name, new)
                continue
            LOG.warning("%s: %s is deprecated: use %s (Ironic's name)", where, old_name, new)
            result[old.new] = old.translate(raw)
        elif name not in known and config_compat.is_ironic_unused(section, name):
            LOG.warning(
                "%s: %s is an Ironic option metalwire does not use; ignored", where, named(name)
            )
        else:
            result[name] = raw
    return result


def _check_bounds(conf: Config) -> None:
    """Raise Invalid for a number below its option's minimum or above its maximum."""
    for section, cls in SECTIONS.items():
        for fld in dataclasses.fields(cls):
            minimum = fld.metadata.get("minimum")
            maximum = fld.metadata.get("maximum")
            value = getattr(conf.section(section), fld.name)
            if value is None:
                continue
            if minimum is not None and value < minimum:
                raise Invalid(
                    f"configuration option [{section}] {fld.name}: {value!r} is below the "
                    f"minimum {minimum}"
                )
            if maximum is not None and value > maximum:
                raise Invalid(
                    f"configuration option [{section}] {fld.name}: {value!r} is above the "
                    f"maximum {maximum}"
                )


def _check_inspector(options: InspectorOptions) -> None:
    """Raise Invalid for an [inspector] choice that is not one of its values, or a
    physical_network_cidr_map entry that is not CIDR:PHYSNET."""
    for name, allowed in (("add_ports", ADD_PORTS), ("keep_ports", KEEP_PORTS)):
        value = getattr(options, name)
        if value not in allowed:
            raise Invalid(
                f"configuration option [inspector] {name}: {value!r} is not one of "
                f"{', '.join(allowed)}"
            )
    for item in options.physical_network_cidr_map:
        cidr, _, physnet = item.rpartition(":")
        try:
            ipaddress.ip_network(cidr)
        except ValueError:
            physnet = ""
        if not physnet:
            raise Invalid(
                f"configuration option [inspector] physical_network_cidr_map: {item!r} is not "
                "CIDR:PHYSNET (such as 10.10.10.0/24:physnet_a)"
            )


def _check_urls(conf: Config) -> None:
    """Raise Invalid for a URL option set to something that is not a URL with a host and one
    of its schemes (as oslo.config's URI options are checked)."""
    for section, cls in SECTIONS.items():
        for fld in dataclasses.fields(cls):
            schemes = fld.metadata.get("url_schemes")
            value = getattr(conf.section(section), fld.name)
            if schemes and value and not _is_url(value, schemes):
                raise Invalid(
                    f"configuration option [{section}] {fld.name}: {value!r} is not a URL "
                    f"with a host and the scheme {' or '.join(schemes)}"
                )


def _is_url(value: str, schemes: tuple[str, ...]) -> bool:
    validator = (
        rfc3986.validators.Validator()
        .allow_schemes(*schemes)
        .require_presence_of("scheme", "host")
        .check_validity_of("scheme", "userinfo", "host", "path", "query", "fragment")
    )
    try:
        validator.validate(rfc3986.uri_reference(value))
    except rfc3986.exceptions.RFC3986Exception:
        return False
    return True


def default_text(fld: dataclasses.Field[Any]) -> str:
    """An option's default as an INI file or the environment would give it (empty: none)."""
    value = fld.default_factory() if callable(fld.default_factory) else fld.default
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    if isinstance(value, dict):
        return ",".join(f"{key}:{item}" for key, item in value.items())
    return "" if value is None else str(value)


def reference() -> str:
    """Every option as an INI-style reference with its help text and default."""
    lines: list[str] = []
    for section, cls in SECTIONS.items():
        lines.append(f"[{section}]")
        for fld in dataclasses.fields(cls):
            lines.append(f"# {fld.metadata['help']}")
            lines.append(f"# env: {env_name(section, fld.name)}")
            lines.append(f"#{fld.name} = {default_text(fld)}")
        lines.append("")
    return "\n".join(lines)
