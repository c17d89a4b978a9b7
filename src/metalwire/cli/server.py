"""``metalwire serve``, ``config-reference`` and ``policy-reference`` (``db``: database.py).

Each command imports the server side (configuration, SQLAlchemy, the API, the conductor) when
it runs, not when the parser is built: the client commands share the program and must start
without it.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from metalwire import config as config_module

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


def add_config_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="INI configuration file")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="directory of the embedded SQLite database (default ./metalwire-data)",
    )
    parser.add_argument(
        "--database", metavar="URL", help="SQLAlchemy database URL; overrides the SQLite file"
    )


def register(commands: Any) -> None:
    serve = commands.add_parser("serve", help="run the API service")
    add_config_args(serve)
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="TCP port to listen on (default 6385)")
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.set_defaults(handler=run_serve)

    reference = commands.add_parser(
        "config-reference", help="print every configuration option with its help"
    )
    reference.set_defaults(handler=run_config_reference)

    policy = commands.add_parser(
        "policy-reference", help="print the default policy rules as a policy file"
    )
    policy.set_defaults(handler=run_policy_reference)


def run_config_reference(_args: argparse.Namespace) -> int:
    from metalwire import config as config_module

    print(config_module.reference())
    return 0


def run_policy_reference(_args: argparse.Namespace) -> int:
    from metalwire.api.auth import policy

    print(policy.reference())
    return 0


def load(args: argparse.Namespace) -> config_module.Config:
    from metalwire import config as config_module

    return config_module.load_config(
        args.config,
        overrides={
            ("DEFAULT", "data_dir"): args.data_dir,
            ("database", "connection"): args.database,
            ("api", "host_ip"): getattr(args, "host", None),
            ("api", "port"): getattr(args, "port", None),
        },
    )


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn
    from sqlalchemy.exc import OperationalError

    from metalwire.api.app import create_app
    from metalwire.api.auth.startup import check_listen_address
    from metalwire.api.connections import H11_HEAD_SLACK, protocol_with
    from metalwire.cli.listening import check_port_free, notify_when_listening
    from metalwire.errors import MetalwireError

    logging.basicConfig(level=args.log_level.upper(), format=LOG_FORMAT)
    try:
        conf = load(args)
        check_listen_address(conf)
        check_port_free(conf.api.host_ip, conf.api.port)
        tls = tls_files(conf)
        app = create_app(conf)
    except MetalwireError as exc:
        print(f"metalwire: {exc}", file=sys.stderr)
        return 2
    except OperationalError as exc:
        print(f"metalwire: cannot use the database: {exc.orig}", file=sys.stderr)
        return 2
    url = app.state.services.db.engine.url.render_as_string(hide_password=True)
    fit_open_files(conf.api.max_connections)
    logging.getLogger("metalwire").info(
        "metalwire serving on %s://%s:%d with database %s, auth_strategy %s",
        "https" if tls else "http",
        conf.api.host_ip,
        conf.api.port,
        url,
        conf.default.auth_strategy,
    )
    notify_when_listening(conf.api.host_ip, conf.api.port)
    uvicorn.run(
        app,
        host=conf.api.host_ip,
        port=conf.api.port,
        log_level=args.log_level,
        access_log=False,
        log_config=None,
        http=protocol_with(conf.api.header_timeout, max_head_bytes=conf.api.max_header_total_size),
        h11_max_incomplete_event_size=conf.api.max_header_total_size + H11_HEAD_SLACK,
        timeout_keep_alive=conf.api.keep_alive_timeout,  # type: ignore[arg-type]
        limit_concurrency=conf.api.max_connections,
        ssl_certfile=tls[0] if tls else None,
        ssl_keyfile=(tls[1] or None) if tls else None,
    )
    return 0


def tls_files(conf: config_module.Config) -> tuple[str, str] | None:
    """The certificate and key files with [api] enable_ssl_api, checked readable."""
    from pathlib import Path

    from metalwire.errors import Invalid

    if not conf.api.enable_ssl_api:
        return None
    if not conf.ssl.cert_file:
        raise Invalid("[api] enable_ssl_api is true but [ssl] cert_file is not set")
    for option, path in (("cert_file", conf.ssl.cert_file), ("key_file", conf.ssl.key_file)):
        if path and not Path(path).is_file():
            raise Invalid(f"[ssl] {option} {path!r} cannot be read")
    return conf.ssl.cert_file, conf.ssl.key_file


def fit_open_files(max_connections: int) -> None:
    """Raise the soft open-file limit so that the connection cap, not the limit, decides
    (a process at its limit cannot even accept the connection it would answer 503)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max_connections + 256  # the database, logs and the listening socket
    if soft != resource.RLIM_INFINITY and soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        if new < wanted:
            logging.getLogger("metalwire").warning(
                "open-file limit %d is below [api] max_connections %d plus 256",
                new,
                max_connections,
            )
