"""What an indexing run is configured with, and what it reports."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from chalicelib.chunking import ChunkingConfig
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES

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
    chunks_written: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_deleted: int = 0
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


@dataclass
class IngestConfig:
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    max_file_bytes: int = 5_000_000
    max_document_bytes: int = 30_000_000  # PDF and Office files
    max_pdf_pages: int = 1000
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    # what the dense vector sees (enrichment.embedding_text.for_embedding); the enrichment always feeds BM25
    embed_text: str = "raw"
    # what a code chunk's vector sees (enrichment.embedding_text.for_code): measured on the code-question set
    code_embed_text: str = "path"
    # embed each chunk's quotable sentences too (chalicelib.quotes): answers then embed only the question
    quote_vectors: bool = True
    # documents read, enriched and written together: what a run holds in memory at once
    batch_documents: int = 32
