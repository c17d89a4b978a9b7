"""What a log record gathers depends on the lines it is written to (metalwire.logs)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from metalwire import logs


@pytest.fixture
def records() -> Iterator[list[logging.LogRecord]]:
    """The records logged by ``test.records`` once logging is configured, then logging as
    it was."""
    root = logging.getLogger()
    kept = (root.handlers[:], root.level, logging.getLogRecordFactory())
    kept_flags = (
        logging._srcfile,
        logging.logThreads,
        logging.logProcesses,
        logging.logMultiprocessing,
    )
    seen: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = seen.append  # type: ignore[method-assign]
    logger = logging.getLogger("test.records")
    logger.addHandler(handler)
    yield seen
    logger.removeHandler(handler)
    root.handlers[:], root.level = kept[0], kept[1]
    logging.setLogRecordFactory(kept[2])
    (
        logging._srcfile,
        logging.logThreads,
        logging.logProcesses,
        logging.logMultiprocessing,
    ) = kept_flags


def _log_one() -> None:
    logging.getLogger("test.records").warning("written")


def test_text_lines_skip_looking_up_the_caller_thread_and_process(
    records: list[logging.LogRecord],
) -> None:
    logs.configure(use_json=False, debug=False, log_config_append="", level=None)
    _log_one()
    (record,) = records
    assert (record.funcName, record.lineno) == ("(unknown function)", 0)
    assert record.threadName is None and record.process is None
    assert record.request_id == "-"  # type: ignore[attr-defined]  # still the request's


def test_json_lines_name_the_caller_thread_and_process(
    records: list[logging.LogRecord],
) -> None:
    logs.configure(use_json=False, debug=False, log_config_append="", level=None)
    logs.configure(use_json=True, debug=False, log_config_append="", level=None)
    _log_one()
    (record,) = records
    assert record.funcName == "_log_one" and record.lineno > 0
    assert record.threadName and record.process
    line = logs.JsonFormatter().format(record)
    assert '"funcname": "_log_one"' in line
