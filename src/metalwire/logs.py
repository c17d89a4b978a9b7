"""The server's logging, configured from oslo.log's options in ``[DEFAULT]``.

* ``debug``: DEBUG instead of INFO (``metalwire serve --log-level`` wins when given);
* ``use_json``: one JSON object per line, with oslo.log's field names (``message``,
  ``levelname``, ``name``, ``asctime``, ``hostname``, ``process``, ``traceback``, ...) and the
  request's ``request_id``, ``user`` and ``project`` both as fields and in ``context``, as
  oslo.log's JSONFormatter writes a request context;
* ``log_config_append``: a :func:`logging.config.fileConfig` file that configures everything
  itself (the other options are then ignored, as oslo.log does); read again on SIGHUP.

Every record carries ``request_id``, ``user`` and ``project`` attributes (``-`` outside a
request), so a format in that file can name them: ``%(request_id)s``. They come from the
request being served (:data:`REQUEST_STATE`, set by :mod:`metalwire.api.log_context`), in
the event loop and in the worker threads it hands work to.
"""

from __future__ import annotations

import contextvars
import json
import logging
import logging.config
import logging.handlers
import socket
import sys
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from metalwire.errors import Invalid

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
#: The request state dict of the request being served (its ``context`` once known).
REQUEST_STATE: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "metalwire_request_state", default=None
)
_FIELDS = ("request_id", "user", "project")


def _request_fields() -> tuple[str, str, str]:
    state = REQUEST_STATE.get()
    if state is None:
        return ("-", "-", "-")
    context = state.get("context")
    request_id = getattr(context, "request_id", None) or state.get("request_id") or "-"
    return (
        str(request_id),
        getattr(context, "user", None) or "-",
        getattr(context, "project", None) or "-",
    )


_base_factory = logging.getLogRecordFactory()
_CALLER_LOOKUP = logging._srcfile  # the file logging leaves out when it looks for the caller


def _gather(everything: bool) -> None:
    """Whether each record looks up the code that logged it (a walk up the stack), its
    thread and its process. The text lines name none of them, so they are left out there, as
    logging's documentation suggests for speed; JSON lines name them, and the formats of a
    log_config_append file may."""
    logging._srcfile = _CALLER_LOOKUP if everything else None
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = everything


def _record_with_request(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _base_factory(*args, **kwargs)
    record.request_id, record.user, record.project = _request_fields()
    return record


class TextFormatter(logging.Formatter):
    """``time level logger message``; a line logged while a request is served ends with its
    id in brackets, as its access line has it, unless the message names it already."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:
        text = super().formatMessage(record)
        request_id = getattr(record, "request_id", "-")
        if request_id == "-" or request_id in text:
            return text
        return f"{text} [{request_id}]"


class JsonFormatter(logging.Formatter):
    """One JSON object per line, named as oslo.log's JSONFormatter names its fields."""

    hostname = socket.gethostname()

    def format(self, record: logging.LogRecord) -> str:
        request = {name: getattr(record, name, "-") for name in _FIELDS}
        known = {k: (None if v == "-" else v) for k, v in request.items()}
        document: dict[str, Any] = {
            "message": record.getMessage(),
            "asctime": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "created": record.created,
            "name": record.name,
            "levelname": record.levelname,
            "levelno": record.levelno,
            "module": record.module,
            "funcname": record.funcName,
            "lineno": record.lineno,
            "hostname": self.hostname,
            "process": record.process,
            "thread_name": record.threadName,
            **known,
            "context": known,
            "traceback": None,
            "error_summary": "",
        }
        if record.exc_info and record.exc_info[0] is not None:
            document["traceback"] = traceback.format_exception(*record.exc_info)
            document["error_summary"] = traceback.format_exception_only(
                record.exc_info[0], record.exc_info[1]
            )[-1].strip()
        return json.dumps(document, default=str)


def configure(use_json: bool, debug: bool, log_config_append: str, level: str | None) -> str:
    """Set up the root logger (replacing its handlers); what was set up, for the log.

    Raises :class:`Invalid` naming the file when ``log_config_append`` cannot be used."""
    logging.setLogRecordFactory(_record_with_request)
    _gather(use_json or bool(log_config_append))
    if log_config_append:
        path = log_config_append
        if not Path(path).is_file():
            raise Invalid(f"[DEFAULT] log_config_append {path!r} does not exist")
        try:
            logging.config.fileConfig(path, disable_existing_loggers=False)
        except Exception as exc:  # configparser's and logging's errors, whichever it was
            raise Invalid(f"[DEFAULT] log_config_append {path!r} cannot be used: {exc}") from None
        return f"logging configured by {path}"
    root = logging.getLogger()
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if use_json else TextFormatter())
    root.addHandler(handler)
    root.setLevel((level or ("debug" if debug else "info")).upper())
    return f"logging {'JSON' if use_json else 'text'} lines at {logging.getLevelName(root.level)}"


class EarlyRecords:
    """Keeps the records logged before logging is configured (the configuration's own
    warnings), to be written once it is, in its format."""

    def __init__(self) -> None:
        self.handler = logging.handlers.BufferingHandler(10_000)
        root = logging.getLogger()
        root.addHandler(self.handler)
        root.setLevel(logging.DEBUG)

    def replay(self) -> None:
        logging.getLogger().removeHandler(self.handler)
        for record in self.handler.buffer:
            logger = logging.getLogger(record.name)
            if logger.isEnabledFor(record.levelno):
                logger.handle(record)
        self.handler.buffer.clear()

    def replay_as_text(self) -> None:
        """When the configuration could not be read: as the plain text lines of before."""
        configure(False, False, "", None)
        self.replay()
