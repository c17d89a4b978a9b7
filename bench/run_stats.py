"""bench/run.py's figures: each kind of request's latencies, retries and failures, the
percentiles drawn from them, and the CPU time the client and the server used."""

from __future__ import annotations

import math
import os
import resource
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def percentile(sorted_values: Sequence[float], pct: float) -> float:
    if not sorted_values:
        return float("nan")
    rank = max(1, math.ceil(pct / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def ms(seconds: float) -> float | None:
    return None if math.isnan(seconds) else round(seconds * 1000.0, 2)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _stat_fields(pid: int | str) -> list[str]:
    """/proc/PID/stat after the command name: state is the first, ppid the second, utime and
    stime the twelfth and thirteenth."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def tree_cpu_seconds(pid: int) -> float:
    """CPU time a process and every process under it (a server's workers, PostgreSQL's
    backends) have used so far; a process that ends between two readings takes its time
    along, so compare readings across a window in which the tree keeps its members."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = _stat_fields(entry)
        except OSError:  # ended meanwhile
            continue
        parents[int(entry)] = int(fields[1])
        ticks[int(entry)] = int(fields[11]) + int(fields[12])
    total = 0
    for member, ticked in ticks.items():
        ancestor = member
        while ancestor not in (pid, 0, 1) and ancestor in parents:
            ancestor = parents[ancestor]
        if ancestor == pid:
            total += ticked
    return total / os.sysconf("SC_CLK_TCK")


def idle_cpu_seconds() -> float:
    """CPU time every core of the machine has spent idle (or waiting for I/O) so far."""
    with open("/proc/stat") as stat:
        fields = stat.readline().split()[1:]
    return (int(fields[3]) + int(fields[4])) / os.sysconf("SC_CLK_TCK")


@dataclass
class OpStats:
    """Outcome of one kind of request: latencies of successes, retries, failures."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    retries: int = 0
    reconnects: int = 0
    seen: Counter[int] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.errors += 1
        if len(self.samples) < 5:
            self.samples.append(message[:300])

    def merge(self, other: OpStats) -> None:
        self.latencies.extend(other.latencies)
        self.errors += other.errors
        self.retries += other.retries
        self.reconnects += other.reconnects
        self.seen.update(other.seen)
        room = 5 - len(self.samples)
        self.samples.extend(other.samples[: max(0, room)])

    def summary(self) -> dict[str, Any]:
        values = sorted(self.latencies)
        out: dict[str, Any] = {
            "ok": len(values),
            "errors": self.errors,
            "retries": self.retries,
            "reconnects": self.reconnects,
            "seen_409": self.seen.get(409, 0),
            "seen_503": self.seen.get(503, 0),
            "p50_ms": ms(percentile(values, 50)),
            "p95_ms": ms(percentile(values, 95)),
            "p99_ms": ms(percentile(values, 99)),
            "max_ms": ms(values[-1]) if values else None,
        }
        if self.samples:
            out["error_samples"] = self.samples
        return out


def merge_all(groups: Iterable[dict[str, OpStats]]) -> dict[str, OpStats]:
    total: dict[str, OpStats] = {}
    for group in groups:
        for name, stats in group.items():
            total.setdefault(name, OpStats()).merge(stats)
    return total
