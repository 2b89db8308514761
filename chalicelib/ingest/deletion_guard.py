"""The mass-delete guard: a run that would delete too much of a source at once (a folder that came up empty,
an unmounted share, a sync gone wrong) deletes nothing; the documents stay searchable, marked as held, until
a confirmed run (``sabio index --confirm-deletions``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from chalicelib.config.ingest import IngestConfig
from chalicelib.ingest.config import IndexReport
from chalicelib.models.records import DocumentRecord
from chalicelib.protocols import ChunkStore

log = logging.getLogger("chalicelib.ingest")


def too_many(deleting: int, documents: int, config: IngestConfig) -> bool:
    """Whether a run deleting ``deleting`` of a source's ``documents`` is held."""
    return deleting > config.delete_guard_min and deleting > config.delete_guard_share * documents


def to_delete(
    chunks: ChunkStore,
    source_id: str,
    seen: set[str],
    keep_under: list[str] | None,
    config: IngestConfig,
    confirmed: bool,
    report: IndexReport,
) -> list[DocumentRecord]:
    """The source's documents this run deletes: those not ``seen`` (but under a folder that could not be
    read), or none when that is too many (each then marked held and named in ``report.held``). A held
    document seen again is no longer held."""
    live = [r for r in chunks.list_documents(source_id) if r.status != "deleted"]
    for record in live:
        if record.key in seen and record.delete_held_at is not None:
            chunks.put_document(record.model_copy(update={"delete_held_at": None}))
    gone = [r for r in live if r.key not in seen and not _under(r.key, keep_under)]
    return held_or_gone(chunks, source_id, gone, len(live), config, confirmed, report)


def held_or_gone(
    chunks: ChunkStore,
    source_id: str,
    gone: list[DocumentRecord],
    documents: int,
    config: IngestConfig,
    confirmed: bool,
    report: IndexReport,
) -> list[DocumentRecord]:
    """``gone`` (of a source holding ``documents``), to delete; or none when that is too many: each is then
    marked held and named in ``report.held``."""
    if confirmed or not too_many(len(gone), documents, config):
        return gone
    now = time.time()
    for record in gone:
        if record.delete_held_at is None:
            chunks.put_document(record.model_copy(update={"delete_held_at": now, "updated_at": now}))
        report.held.append(record.key)
    log.warning("%s: %d of %d documents gone, deletions held", source_id, len(gone), documents)
    return []


def apply(records: list[DocumentRecord], delete: Callable[[str], object], report: IndexReport) -> None:
    """Delete the documents the guard let go (``delete`` takes a key), counting them in ``report``."""
    for record in records:
        report.chunks_deleted += record.chunk_count
        delete(record.key)
        report.deleted += 1


def _under(key: str, folders: list[str] | None) -> bool:
    return any(folder == "" or key.startswith(folder + "/") for folder in folders or ())
