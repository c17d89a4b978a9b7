"""Which network interfaces are installed: found once, found again after an install."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from metalwire.networking import loader


def _install(site: Path, name: str, interface: str) -> None:
    """What an install writes: a distribution's metadata naming an entry point."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{loader.GROUP}]\n{interface} = metalwire.networking.noop:NoopNetwork\n"
    )


def test_an_interface_installed_after_a_lookup_is_found_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    found = loader.installed(loader.GROUP)
    assert {"noop", "flat", "neutron"} <= set(found)
    assert "first-plugin" not in found

    _install(site, "first_plugin", "first-plugin")
    assert "first-plugin" in loader.installed(loader.GROUP)

    time.sleep(0.01)  # a directory's modification time, on a coarse clock, moves
    _install(site, "second_plugin", "second-plugin")
    again = loader.installed(loader.GROUP)
    assert {"first-plugin", "second-plugin"} <= set(again)
    assert loader.installed(loader.GROUP) == again  # unchanged: the same, from what was found


def test_a_caller_changing_what_it_was_given_changes_nothing_kept() -> None:
    found = loader.installed(loader.GROUP)
    found.clear()
    assert "noop" in loader.installed(loader.GROUP)
