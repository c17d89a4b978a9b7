"""Logging in as the OpenStack clients do: ``--os-*`` options, ``OS_*`` variables, clouds.yaml.

Without any of the login settings below, a command talks to ``--url`` (else $METALWIRE_URL,
$OS_ENDPOINT or the default) directly, with the credentials of ``http://user:pass@host`` as
HTTP Basic. With one of them (``--os-cloud``, ``--os-auth-type``, ``--os-auth-url``,
``--os-token``, ``--os-username``, ``--os-user-id``, ``--os-application-credential-id``, or
their ``OS_*`` variables), openstacksdk's config loader merges clouds.yaml (the same search
path as the ``openstack`` command: ./, ~/.config/openstack, /etc/openstack, or
$OS_CLIENT_CONFIG_FILE), the ``OS_*`` variables and the options, keystoneauth1 loads the auth
plugin (``password``, ``token``, ``v3applicationcredential``, ``http_basic``, ``none``...),
and the endpoint is ``--os-endpoint`` or the ``baremetal`` one of the catalog.

The TLS settings (``--os-cacert``, ``--os-cert``, ``--os-key``, ``--insecure``, or
$OS_CACERT, $OS_CERT, $OS_KEY, $OS_INSECURE) apply either way: :func:`tls_settings` reads
them for a command that talks to the URL directly, openstacksdk's loader (with clouds.yaml's
``cacert``, ``cert``, ``key``, ``verify``) for one that logs in.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import Any

from metalwire import __version__
from metalwire.client import Client
from metalwire.client.network import ClientCert, tls_context
from metalwire.client.session import SERVICE_TYPE

# (option, help): each option is stored as os_<name>, as openstacksdk's loader reads it.
_LOGIN_OPTIONS: tuple[tuple[str, str], ...] = (
    ("--os-cloud", "cloud of clouds.yaml to use ($OS_CLOUD)"),
    ("--os-auth-type", "keystoneauth plugin: password, token, v3applicationcredential, ..."),
    ("--os-auth-url", "identity endpoint, e.g. https://keystone:5000/v3"),
    ("--os-username", "user name (password, http_basic)"),
    ("--os-user-id", "user id"),
    ("--os-password", "password (never printed)"),
    ("--os-project-name", "project to scope the token to"),
    ("--os-project-id", "project id to scope the token to"),
    ("--os-user-domain-name", "domain of the user"),
    ("--os-user-domain-id", "domain id of the user"),
    ("--os-project-domain-name", "domain of the project"),
    ("--os-project-domain-id", "domain id of the project"),
    ("--os-domain-name", "domain to scope the token to"),
    ("--os-domain-id", "domain id to scope the token to"),
    ("--os-system-scope", "system scope of the token (all)"),
    ("--os-token", "an existing token (auth type token)"),
    ("--os-application-credential-id", "application credential id"),
    ("--os-application-credential-name", "application credential name"),
    ("--os-application-credential-secret", "application credential secret (never printed)"),
    ("--os-region-name", "region of the catalog's endpoint"),
    ("--os-interface", "catalog interface: public (default), internal or admin"),
    ("--os-cacert", "CA bundle to verify the servers' certificates"),
    ("--os-cert", "client certificate (PEM)"),
    ("--os-key", "client certificate's key (PEM)"),
)
# Any of these, as an option or an OS_ variable, means: log in through keystoneauth.
_LOGIN_TRIGGERS = (
    "cloud",
    "auth_type",
    "auth_url",
    "token",
    "username",
    "user_id",
    "application_credential_id",
)


class LoginError(ValueError):
    """The login settings cannot make a session (unknown cloud or plugin, missing option), or
    name a client key without its certificate."""


def add_login_arguments(group: Any, *, default: Any = None) -> None:
    """Add the login and TLS options to ``group`` (an argument group or parser), each with
    ``default`` (``argparse.SUPPRESS``: set only when given)."""
    for option, help_text in _LOGIN_OPTIONS:
        group.add_argument(
            option,
            dest=option[2:].replace("-", "_"),
            metavar="VALUE",
            default=default,
            help=help_text,
        )
    group.add_argument(
        "--insecure",
        action="store_true",
        default=default,
        help="do not verify the servers' TLS certificates",
    )


def login_options() -> list[tuple[str, str]]:
    """(option, attribute) of each login and TLS option."""
    options = [(option, option[2:].replace("-", "_")) for option, _help in _LOGIN_OPTIONS]
    return [*options, ("--insecure", "insecure")]


def wants_login(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> bool:
    """Whether a login setting was given as an option or an ``OS_*`` variable."""
    env = os.environ if environ is None else environ
    return any(
        getattr(args, f"os_{name}", None) or env.get(f"OS_{name.upper()}")
        for name in _LOGIN_TRIGGERS
    )


def tls_settings(
    args: argparse.Namespace, environ: Mapping[str, str] | None = None
) -> tuple[bool | str, ClientCert | None]:
    """The ``verify`` and ``cert`` of :class:`~metalwire.client.Client` for a command that
    does not log in, as openstacksdk makes them from the same settings: ``--insecure``
    ($OS_INSECURE=true) verifies nothing and wins over ``--os-cacert`` ($OS_CACERT), the CA
    bundle to verify against; ``--os-cert`` ($OS_CERT) is the client certificate, with
    ``--os-key`` ($OS_KEY) its key when not in the same file. An option wins over its
    variable.

    Raises LoginError for a key without a certificate.
    """
    env = os.environ if environ is None else environ

    def setting(name: str) -> str | None:
        value: str | None = getattr(args, f"os_{name}", None) or env.get(f"OS_{name.upper()}")
        return os.path.expanduser(value) if value else None

    insecure = bool(getattr(args, "insecure", None)) or (
        env.get("OS_INSECURE", "").lower() == "true"
    )
    cacert = setting("cacert")
    verify: bool | str = False if insecure else cacert or True
    return verify, _client_cert(setting("cert"), setting("key"))


def _client_cert(cert: str | None, key: str | None) -> ClientCert | None:
    if key and not cert:
        raise LoginError(f"the client key {key} (--os-key) needs its certificate (--os-cert)")
    if cert and key:
        return cert, key
    return cert


def _require_secret(config: Mapping[str, Any]) -> None:
    """Raise LoginError naming the password, passcode or token that the auth plugin of the
    merged login settings ``config`` needs and they lack (options and variables are at its
    top level before validation, clouds.yaml's under ``auth``). keystoneauth1 leaves them
    optional, as the openstack command prompts for them on a terminal, and without one fails
    only when it first sends, with an error that names nothing."""
    from keystoneauth1 import exceptions as ks_exc
    from keystoneauth1 import loading

    auth_type = str(config.get("auth_type") or "")
    try:
        options = loading.get_plugin_loader(auth_type).get_options()
    except ks_exc.NoMatchingPlugin:
        return  # an unknown plugin: the loader says so when the session is made
    given = {**config, **(config.get("auth") or {})}
    for option in options:
        needed = option.prompt is not None or (option.secret and option.dest == "token")
        if needed and not given.get(option.dest):
            raise LoginError(
                f"cannot log in: auth type {auth_type} needs --os-{option.name} "
                f"(or OS_{option.dest.upper()})"
            )


def login_client(args: argparse.Namespace, endpoint: str | None, **options: Any) -> Client:
    """A client sending through the keystoneauth1 session of the login settings, at
    ``endpoint``, at clouds.yaml's ``baremetal_endpoint_override``, at the fixed endpoint of
    the ``none`` and ``http_basic`` plugins, or at the catalog's ``baremetal`` endpoint
    (``--os-interface``, ``--os-region-name``).
    ``options`` go to :class:`~metalwire.client.Client`.

    Raises LoginError for settings that name no cloud or plugin, or lack a required option,
    ValueError for TLS files that cannot be used (as :func:`tls_settings`'s do when the client
    is made); the client's AuthenticationError / EndpointNotFound when logging in or the
    lookup fails.
    """
    # Imported here: a command without login settings starts without openstacksdk.
    from keystoneauth1 import exceptions as ks_exc
    from openstack import exceptions as sdk_exc
    from openstack.config import loader

    given: dict[str, Any] = {}
    for option, _help in _LOGIN_OPTIONS:
        dest = option[2:].replace("-", "_")
        if getattr(args, dest, None):
            given[dest] = getattr(args, dest)
    if args.insecure:
        given["insecure"] = True
    if endpoint:
        given["endpoint"] = endpoint  # the none and http_basic plugins' option
    try:
        config = loader.OpenStackConfig(app_name="metalwire", app_version=__version__)
        merged = config.get_one(argparse=argparse.Namespace(**given), validate=False)
        _require_secret(merged.config)
        region = config.get_one(argparse=argparse.Namespace(**given), api_timeout=args.timeout)
        session = region.get_session()
    except (sdk_exc.ConfigException, ks_exc.ClientException) as error:
        raise LoginError(f"cannot log in: {error}") from error
    # requests reads the TLS files only when it sends, and a file it cannot use ends the
    # command there with a traceback: read them now, as a client without login does.
    _client_cert(region.config.get("cert"), region.config.get("key"))
    verify, cert = region.get_requests_verify_args()
    if verify not in (True, None) or cert:
        tls_context(True if verify is None else verify, cert)  # raises ValueError
    interface = region.get_interface("baremetal")
    # clouds.yaml's baremetal_endpoint_override (as bifrost writes it) before the catalog.
    override = region.get_endpoint(SERVICE_TYPE)
    return Client.from_session(
        session,
        endpoint=endpoint or override or None,
        interface=interface if isinstance(interface, str) else "public",
        region_name=region.region_name or None,
        **options,
    )
