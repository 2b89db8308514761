"""Who may read a document whose bytes did not change, brought up to date in place: its chunks' readers in the
index (the gate every search goes through) and in the chunk store, then its manifest row. Nothing is read
again and nothing is embedded."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping

from chalicelib.access import principals
from chalicelib.ingest.config import IndexReport
from chalicelib.models.records import DocumentRecord
from chalicelib.protocols import ChunkStore, VectorIndex

log = logging.getLogger("sabio.ingest")


def refresh(
    chunks: ChunkStore,
    index: VectorIndex,
    record: DocumentRecord,
    beside: Mapping[str, str],
    source_default: tuple[str, ...],
    report: IndexReport,
) -> bool:
    """``record``'s readers from what is ``beside`` it now (S3 metadata, .sabio-read), what it declared
    itself when last read, and its source's default; True when they changed."""
    inside = None if record.declared_readers is None else tuple(record.declared_readers)
    readers = principals.resolve(beside, inside, source_default)
    if record.readers is not None and tuple(record.readers) == readers:
        return False
    stored = chunks.document_chunks(record.document_id)
    index.set_readers([c.chunk_id for c in stored], readers)
    chunks.put_chunks([c.model_copy(update={"readers": list(readers)}) for c in stored])
    chunks.put_document(record.model_copy(update={"readers": list(readers), "updated_at": time.time()}))
    report.readers_changed += 1
    log.info("%s/%s: readers now %s", record.source_id, record.key, ", ".join(readers) or "none")
    return True
