"""What the index holds: the store's counts, the documents that failed with their reasons, and the deletions
the mass-delete guard holds."""

from __future__ import annotations

from collections.abc import Callable

from chalicelib.models.records import FailedDocument, HeldDeletion, Stats
from chalicelib.protocols import ChunkStore

MAX_FAILURES = 50


def index_status(
    store: ChunkStore,
    limit: int = MAX_FAILURES,
    *,
    translator: str = "none",
    confirm: Callable[[str], str] = lambda source_id: "sabio index PATH --confirm-deletions",
) -> Stats:
    """``store.stats()`` with the ``limit`` most recent failures (a failed document is kept in the manifest
    with its error, so it is listed here until it is fixed or removed), the held deletions with the command
    that applies each source's (``confirm``), and the ``translator`` in use."""
    stats = store.stats()
    documents = store.list_documents()
    failed = [d for d in documents if d.status == "failed"]
    failed.sort(key=lambda d: d.updated_at, reverse=True)
    failures = [
        FailedDocument(source_id=d.source_id, key=d.key, error=d.error or "unknown", updated_at=d.updated_at)
        for d in failed[:limit]
    ]
    commands: dict[str, str] = {}
    held = [
        HeldDeletion(
            source_id=d.source_id,
            key=d.key,
            held_at=d.delete_held_at,
            confirm=commands.get(d.source_id) or commands.setdefault(d.source_id, confirm(d.source_id)),
        )
        for d in documents
        if d.delete_held_at is not None and d.status != "deleted"
    ]
    update = {"failures": failures, "held_deletions": held, "translator": translator}
    return stats.model_copy(update=update)
