"""One configuration option: a dataclass field whose metadata is its documentation."""

from __future__ import annotations

from dataclasses import field
from typing import Any


def option(
    default: Any,
    help: str,
    minimum: float | None = None,
    maximum: float | None = None,
    url_schemes: tuple[str, ...] | None = None,
) -> Any:
    """A field of a section's dataclass with its ``help`` text and, for numbers, the least
    and the greatest value ``load_config`` accepts; for a URL (empty: unset), the schemes
    it accepts."""
    metadata = {"help": help, "minimum": minimum, "maximum": maximum, "url_schemes": url_schemes}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=metadata)
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default), metadata=metadata)
    return field(default=default, metadata=metadata)
