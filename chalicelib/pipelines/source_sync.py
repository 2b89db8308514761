"""What every synced source shares: the keys it reports gone, deleted through the mass-delete guard."""

from __future__ import annotations

from chalicelib.pipelines import deletion_guard
from chalicelib.pipelines.ingest import IndexReport, Ingestor


def delete_keys(
    ingestor: Ingestor, source_id: str, keys: list[str], report: IndexReport, confirmed: bool
) -> None:
    """The documents of ``keys`` go, unless they are too much of the source at once (then held)."""
    records = [ingestor.chunks.get_document(source_id, k) for k in keys]
    gone = [r for r in records if r is not None and r.status != "deleted"]
    live = sum(1 for r in ingestor.chunks.list_documents(source_id) if r.status != "deleted")
    config = ingestor.config
    for record in deletion_guard.held_or_gone(
        ingestor.chunks, source_id, gone, live, config, confirmed, report
    ):
        report.chunks_deleted += record.chunk_count
        ingestor.delete(source_id, record.key)
        report.deleted += 1
