"""Logging in as the OpenStack clients do: ``--os-*`` options, ``OS_*`` variables, clouds.yaml.

Without any of the login settings below, a command talks to ``--url`` (else $METALWIRE_URL,
$OS_ENDPOINT or the default) directly, with the credentials of ``http://user:pass@host`` as
HTTP Basic. With one of them (``--os-cloud``, ``--os-auth-type``, ``--os-auth-url``,
``--os-token``, ``--os-username``, ``--os-application-credential-id``, or their ``OS_*``
variables), openstacksdk's config loader merges clouds.yaml (the same search path as the
``openstack`` command: ./, ~/.config/openstack, /etc/openstack, or $OS_CLIENT_CONFIG_FILE),
the ``OS_*`` variables and the options, keystoneauth1 loads the auth plugin (``password``,
``token``, ``v3applicationcredential``, ``http_basic``, ``none``...), and the endpoint is
``--os-endpoint`` or the ``baremetal`` one of the catalog.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import Any

from metalwire import __version__
from metalwire.client import Client

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
    """The login settings cannot make a session (unknown cloud or plugin, missing option)."""


def add_login_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "login", "as the openstack command: options, OS_* variables or clouds.yaml"
    )
    for option, help_text in _LOGIN_OPTIONS:
        group.add_argument(
            option, dest=option[2:].replace("-", "_"), metavar="VALUE", help=help_text
        )
    group.add_argument(
        "--insecure",
        action="store_true",
        default=None,
        help="do not verify the servers' TLS certificates",
    )


def wants_login(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> bool:
    """Whether a login setting was given as an option or an ``OS_*`` variable."""
    env = os.environ if environ is None else environ
    return any(
        getattr(args, f"os_{name}", None) or env.get(f"OS_{name.upper()}")
        for name in _LOGIN_TRIGGERS
    )


def login_client(args: argparse.Namespace, endpoint: str | None, **options: Any) -> Client:
    """A client sending through the keystoneauth1 session of the login settings, at
    ``endpoint``, at the fixed endpoint of the ``none`` and ``http_basic`` plugins, or at the
    catalog's ``baremetal`` endpoint (``--os-interface``, ``--os-region-name``).
    ``options`` go to :class:`~metalwire.client.Client`.

    Raises LoginError for settings that name no cloud or plugin, or lack a required option;
    the client's AuthenticationError / EndpointNotFound when logging in or the lookup fails.
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
        region = config.get_one(argparse=argparse.Namespace(**given), api_timeout=args.timeout)
        session = region.get_session()
    except (sdk_exc.ConfigException, ks_exc.ClientException) as error:
        raise LoginError(f"cannot log in: {error}") from error
    interface = region.get_interface("baremetal")
    return Client.from_session(
        session,
        endpoint=endpoint,
        interface=interface if isinstance(interface, str) else "public",
        region_name=region.region_name or None,
        **options,
    )
