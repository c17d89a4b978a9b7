"""The one strict JSON parser for request bodies, used by the router and the VIF endpoints.

Python's ``json`` accepts what no database can store or serve back: lone surrogates
(``"\\ud800"``), ``NaN`` and ``Infinity``, numbers that overflow to infinity (``1e999``), NUL
characters (PostgreSQL refuses them) and nesting deep enough to exhaust the stack. Each is
refused here with a 400 that names where it sits (``extra/a``), before anything is stored.
"""

from __future__ import annotations

import json
import math
from typing import Any

from metalwire.errors import InvalidParameterValue

# The deepest nesting of arrays and objects a body may have; the body itself is level 1.
MAX_DEPTH = 32


class _NonFinite:
    """Stands in for NaN, Infinity or an overflowing number until the walk can name its path."""

    def __init__(self, text: str) -> None:
        self.text = text


def _number(text: str) -> float | _NonFinite:
    value = float(text)
    return value if math.isfinite(value) else _NonFinite(text)


def is_json_type(content_type: str | None) -> bool:
    """No content type, ``application/json`` or ``application/*+json``."""
    if not content_type:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def parse(body: bytes, content_type: str | None = None) -> Any:
    """The JSON value of ``body`` (None when empty); raises InvalidParameterValue (400)."""
    if not body.strip():
        return None
    if not is_json_type(content_type):
        raise InvalidParameterValue(
            f"The request body must be JSON (Content-Type application/json), not {content_type}."
        )
    try:
        value = json.loads(body, parse_constant=_NonFinite, parse_float=_number)
    except RecursionError:
        raise InvalidParameterValue(
            f"The request body is nested more than {MAX_DEPTH} levels deep."
        ) from None
    except ValueError as exc:
        raise InvalidParameterValue(f"The request body is not valid JSON: {exc}.") from None
    check_value(value)
    return value


def check_value(value: Any) -> None:
    """Refuse what cannot be stored anywhere in ``value``, naming its path."""
    # Iterative, so a deep value cannot exhaust the stack before the depth is checked.
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            _check_string(item, path)
        elif isinstance(item, _NonFinite):
            raise InvalidParameterValue(
                f"Invalid number {item.text} at {_where(path)}: JSON numbers must be finite."
            )
        elif isinstance(item, dict | list):
            if len(path) >= MAX_DEPTH:
                raise InvalidParameterValue(
                    f"The value at {_where(path)} is nested more than {MAX_DEPTH} levels deep."
                )
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                if isinstance(key, str):
                    _check_string(key, path, is_key=True)
                stack.append((child, (*path, str(key))))


def _check_string(text: str, path: tuple[str, ...], is_key: bool = False) -> None:
    if "\x00" in text:
        problem = "a NUL character, which cannot be stored"
    elif not _is_unicode(text):
        problem = "a lone surrogate, which is not a Unicode character"
    else:
        return
    what = f"key {text!a} in {_where(path)}" if is_key else f"string at {_where(path)}"
    raise InvalidParameterValue(f"Invalid {what}: it contains {problem}.")


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _where(path: tuple[str, ...]) -> str:
    """A path such as ``extra/a`` (the first levels only when it is long)."""
    if not path:
        return "the top of the request body"
    shown = [_printable(p) for p in path[:8]]
    return "/".join(shown) + ("/…" if len(path) > 8 else "")


def _printable(part: str) -> str:
    return part if part.isprintable() else ascii(part)[1:-1]
