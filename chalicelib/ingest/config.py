"""What an indexing run reports, and how it tells its progress (its settings: chalicelib/config/ingest.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

Progress = Callable[[str, int, int, str], None]


def quiet(stage: str, done: int, total: int, detail: str) -> None:
    return None


@dataclass
class IndexReport:
    source_id: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)  # indexed, with something the user should know
    held: list[str] = field(default_factory=list)  # gone from the source, deletion held by the guard
    chunks_written: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_deleted: int = 0
    readers_changed: int = 0  # documents whose readers changed in place (nothing read again or embedded)
    readers_for_no_one: int = 0  # documents read and given no readers (none named, the default none)
    enriched: dict[str, int] = field(default_factory=dict)  # heuristic / llm / fallback
    llm_requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failed


@dataclass
class Counts:
    done: int = 0
    total: int = 0


def add_time(report: IndexReport, stage: str, since: float) -> None:
    report.timings[stage] = report.timings.get(stage, 0.0) + time.perf_counter() - since
