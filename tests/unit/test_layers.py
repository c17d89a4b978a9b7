"""The layering docs/architecture.md states, read off the source: dependencies point one way
(``api`` -> ``conductor`` -> ``networking`` -> ``db``), and ``conductor/`` names no concrete
network interface, only what ``NetworkInterface`` declares."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import metalwire

PACKAGE = Path(metalwire.__file__).parent

# The in-tree network interfaces, as pyproject.toml's entry points load them.
CONCRETE_INTERFACES = {
    "metalwire.networking.noop",
    "metalwire.networking.flat",
    "metalwire.networking.neutron",
    "metalwire.networking.ironic_networking",
}

# Each layer, and the layers above it that it must not import.
ABOVE = {
    "conductor": {"metalwire.api", "metalwire.services"},
    "networking": {"metalwire.api", "metalwire.conductor", "metalwire.services"},
    "db": {
        "metalwire.api",
        "metalwire.conductor",
        "metalwire.networking",
        "metalwire.services",
    },
}


def imported_modules(layer: str) -> dict[str, set[str]]:
    """Every module a layer's files import, by file."""
    found: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
        found[str(path.relative_to(PACKAGE))] = names
    return found


def test_the_entry_points_name_the_interfaces_checked_here() -> None:
    pyproject = (PACKAGE.parents[1] / "pyproject.toml").read_text()
    section = pyproject.split('[project.entry-points."metalwire.network_interfaces"]')[1]
    entries = section.split("\n[")[0].strip().splitlines()
    modules = {line.split('"')[1].partition(":")[0] for line in entries}
    assert modules == CONCRETE_INTERFACES


def test_the_conductor_names_no_concrete_network_interface() -> None:
    offending = {
        file: sorted(names & CONCRETE_INTERFACES)
        for file, names in imported_modules("conductor").items()
        if names & CONCRETE_INTERFACES
    }
    assert offending == {}


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_no_layer_imports_from_above(layer: str) -> None:
    def above(name: str) -> bool:
        return any(name == top or name.startswith(top + ".") for top in ABOVE[layer])

    offending = {
        file: sorted(filter(above, names))
        for file, names in imported_modules(layer).items()
        if any(map(above, names))
    }
    assert offending == {}
