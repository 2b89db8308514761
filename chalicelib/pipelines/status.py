"""What the index holds: the store's counts plus the documents that failed, with their reasons."""

from __future__ import annotations

from chalicelib.models.records import FailedDocument, Stats
from chalicelib.protocols import ChunkStore

MAX_FAILURES = 50


def index_status(store: ChunkStore, limit: int = MAX_FAILURES) -> Stats:
    """``store.stats()`` with the ``limit`` most recent failures (a failed document is kept in the manifest
    with its error, so it is listed here until it is fixed or removed)."""
    stats = store.stats()
    failed = [d for d in store.list_documents() if d.status == "failed"]
    failed.sort(key=lambda d: d.updated_at, reverse=True)
    failures = [
        FailedDocument(source_id=d.source_id, key=d.key, error=d.error or "unknown", updated_at=d.updated_at)
        for d in failed[:limit]
    ]
    return stats.model_copy(update={"failures": failures})
