"""Client-supplied text made safe for a log line.

A path, a query string or a user name comes from the client; a line feed, a carriage return
or a terminal escape code in it would forge or hide log lines. :func:`printable` writes every
character that is not printable as its Python escape (``\\n``, ``\\x1b``, ``\\u2028``), and a
backslash as ``\\\\`` so that an escape written by the client cannot pass for one written
here. Depends on nothing else in metalwire.
"""

from __future__ import annotations


def _escaped(char: str) -> str:
    return "\\\\" if char == "\\" else ascii(char)[1:-1]


def printable(text: str) -> str:
    """``text`` with each non-printable character (and the backslash) escaped."""
    if text.isprintable() and "\\" not in text:  # the common case, at C speed
        return text
    return "".join(c if c.isprintable() and c != "\\" else _escaped(c) for c in text)
