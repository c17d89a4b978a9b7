"""What a transaction asked not to wait raises when it would have to."""

from __future__ import annotations


class WriterBusy(Exception):
    """A write transaction asked not to wait found another writer, or the node's row taken
    by another transaction; nothing was done."""
