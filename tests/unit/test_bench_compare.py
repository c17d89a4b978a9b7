"""bench/compare.py: the order servers take turns in."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import compare


def test_every_second_round_reverses_the_order() -> None:
    targets = ["baseline", "ironic", "metalwire"]
    orders = [compare.turn_order(targets, rnd) for rnd in range(1, 5)]
    assert orders == [targets, targets[::-1], targets, targets[::-1]]
    assert targets == ["baseline", "ironic", "metalwire"]  # the caller's list is left alone
    # over two rounds each server runs first once, with two servers
    firsts = [compare.turn_order(["baseline", "metalwire"], rnd)[0] for rnd in (1, 2)]
    assert firsts == ["baseline", "metalwire"]
