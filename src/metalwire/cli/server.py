"""``metalwire serve``, ``config-reference`` and ``policy-reference`` (``db``: database.py).

Each command imports the server side (configuration, SQLAlchemy, the API, the conductor) when
it runs, not when the parser is built: the client commands share the program and must start
without it.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import signal
import socket
import sys
from typing import TYPE_CHECKING, Any

#: The exit status of a server that could not start serving (uvicorn's).
STARTUP_FAILED = 3

if TYPE_CHECKING:
    from collections.abc import Callable

    from metalwire import config as config_module
    from metalwire.services import WorkerPlace


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
    serve.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="server processes answering on the port (default 1; [api] api_workers)",
    )
    serve.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        help="log level (default: info, or debug with [DEFAULT] debug)",
    )
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
            ("api", "api_workers"): getattr(args, "workers", None),
        },
    )


def run_serve(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import OperationalError

    from metalwire import logs

    # Imported before logging is set up: alembic logs its plugins at INFO when imported.
    from metalwire.api import app as _app  # noqa: F401
    from metalwire.api.auth.startup import check_listen_address
    from metalwire.cli.listening import check_port_free, notify_when_listening
    from metalwire.errors import MetalwireError

    early = logs.EarlyRecords()  # the configuration's warnings, written in its format
    try:
        conf = load(args)
        logging_setup = configure_logging(conf, args.log_level)
    except MetalwireError as exc:
        early.replay_as_text()
        print(f"metalwire: {exc}", file=sys.stderr)
        return 2
    early.replay()
    try:
        check_listen_address(conf)
        check_port_free(conf.api.host_ip, conf.api.port)
        tls = tls_files(conf)
        # With several workers this app only checks the setup and upgrades the schema, once,
        # before the workers build their own.
        app = serving_app(conf, args)
    except MetalwireError as exc:
        print(f"metalwire: {exc}", file=sys.stderr)
        return 2
    except OperationalError as exc:
        print(f"metalwire: cannot use the database: {exc.orig}", file=sys.stderr)
        return 2
    url = app.state.services.db.engine.url.render_as_string(hide_password=True)
    workers = conf.api.api_workers
    logging.getLogger("metalwire").info(
        "metalwire serving on %s://%s:%d with database %s, auth_strategy %s%s; %s",
        "https" if tls else "http",
        conf.api.host_ip,
        conf.api.port,
        url,
        conf.default.auth_strategy,
        f", {workers} worker processes" if workers > 1 else "",
        logging_setup,
    )
    notify_when_listening(conf.api.host_ip, conf.api.port)
    if workers > 1:
        from metalwire.cli import workers as worker_processes

        if app.state.services.db.is_sqlite:
            worker_processes.warn_on_sqlite(workers)
        app.state.services.db.dispose()
        return worker_processes.supervise(args, conf)
    return serve_app(conf, app, tls)


def serve_app(
    conf: config_module.Config,
    app: Any,
    tls: tuple[str, str] | None,
    sockets: list[socket.socket] | None = None,
    on_started: Callable[[], None] | None = None,
) -> int:
    """Serve ``app`` until stopped (on ``sockets``, a worker's, or on the [api] address);
    the exit status. ``on_started`` is called once the application has started and the
    server accepts connections."""
    fit_open_files(conf.api.max_connections)
    # SIGHUP reloads the files that can change under a running server (uvicorn handles
    # SIGINT and SIGTERM only; SIGHUP's default would end the process without a word).
    signal.signal(signal.SIGHUP, lambda _signum, _frame: app.state.reloader.request())
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP})  # one held back: now
    server = uvicorn_server(conf, app, tls)
    if on_started is not None:
        startup = server.startup

        async def startup_then_tell(sockets: list[socket.socket] | None = None) -> None:
            await startup(sockets=sockets)
            if server.started:
                on_started()

        server.startup = startup_then_tell
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn raises the Ctrl-C it handled
        server.run(sockets=sockets)
    return 0 if server.started else STARTUP_FAILED


def serving_app(
    conf: config_module.Config, args: argparse.Namespace, worker: WorkerPlace | None = None
) -> Any:
    """The application ``metalwire serve`` runs (in each worker, with several), its logging
    configuration file reloaded with the other files."""
    from metalwire.api.app import create_app
    from metalwire.reloading import Reloadable

    app = create_app(conf, worker=worker)
    if conf.default.log_config_append:
        name = f"[DEFAULT] log_config_append {conf.default.log_config_append}"
        reload = functools.partial(configure_logging, conf, args.log_level)
        app.state.reloader.register(Reloadable(name, [conf.default.log_config_append], reload))
    return app


def uvicorn_server(conf: config_module.Config, app: Any, tls: tuple[str, str] | None) -> Any:
    """The HTTP server of one process, with the [api] limits."""
    import uvicorn

    from metalwire.api.connections import H11_HEAD_SLACK, protocol_with
    from metalwire.cli.listening import LISTEN_BACKLOG

    config = uvicorn.Config(
        app,
        host=conf.api.host_ip,
        port=conf.api.port,
        backlog=LISTEN_BACKLOG,
        log_level=uvicorn_level(),
        access_log=False,
        log_config=None,
        http=protocol_with(conf.api.header_timeout, max_head_bytes=conf.api.max_header_total_size),
        h11_max_incomplete_event_size=conf.api.max_header_total_size + H11_HEAD_SLACK,
        timeout_keep_alive=conf.api.keep_alive_timeout,  # type: ignore[arg-type]
        limit_concurrency=conf.api.max_connections,
        ssl_certfile=tls[0] if tls else None,
        ssl_keyfile=(tls[1] or None) if tls else None,
    )
    return uvicorn.Server(config)


def configure_logging(conf: config_module.Config, level: str | None) -> str:
    """Logging as [DEFAULT] debug, use_json and log_config_append say; what was set up."""
    from metalwire import logs

    options = conf.default
    return logs.configure(options.use_json, options.debug, options.log_config_append, level)


def uvicorn_level() -> str | None:
    """The root logger's level for uvicorn's loggers; None (uvicorn leaves them) if it has
    no such name (a level set by a log_config_append file)."""
    name = logging.getLevelName(logging.getLogger().level).lower()
    return name if name in ("critical", "error", "warning", "info", "debug") else None


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
