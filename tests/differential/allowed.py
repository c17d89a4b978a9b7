"""Every difference between Ironic 39's answers and metalwire's that the tier accepts.

Each entry names its scenario, the ``<step>: <path>`` it covers (a glob) and the versions it
applies to, and says why the difference is there. ``explain`` splits what a run found into the
differences no entry covers and the entries that covered nothing: the test fails on both, so
this list stays true as either server changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from tests.differential.shapes import Difference

BOTH = ("1.78", "1.115")


@dataclass(frozen=True)
class Allowed:
    scenario: str
    where: str
    reason: str
    versions: tuple[str, ...] = BOTH

    def covers(self, difference: Difference) -> bool:
        return fnmatchcase(difference.where, self.where)


ALLOWED: tuple[Allowed, ...] = ()


def explain(
    scenario: str, version: str, found: list[Difference], allowed: tuple[Allowed, ...] = ALLOWED
) -> tuple[list[Difference], list[Allowed]]:
    """(differences no entry covers, entries for this scenario and version that cover none)."""
    entries = [a for a in allowed if a.scenario == scenario and version in a.versions]
    unexplained = [d for d in found if not any(a.covers(d) for a in entries)]
    stale = [a for a in entries if not any(a.covers(d) for d in found)]
    return unexplained, stale
