"""The indexer job: SQS batches of S3 events -> ingest or delete, idempotent and ordered per key."""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any

from chalicelib.models.records import DocumentRecord
from chalicelib.pipelines.ingest import Ingestor
from chalicelib.pipelines.s3_events import ObjectEvent, PoisonMessage, newer, parse_body, source_for
from chalicelib.protocols import ChunkStore

log = logging.getLogger("sabio.indexer")


class S3Indexer:
    def __init__(self, ingestor: Ingestor, chunks: ChunkStore, s3: Any, source_map: dict[str, str]) -> None:
        self.ingestor = ingestor
        self.chunks = chunks
        self.s3 = s3
        self.source_map = source_map
        self.outcomes: Counter[str] = Counter()

    def handle_batch(self, records: list[dict[str, Any]]) -> dict[str, list[dict[str, str]]]:
        """Lambda's SQS contract: failed message ids go back in ``batchItemFailures``, the rest is done."""
        failures: list[dict[str, str]] = []
        for record in records:
            message_id = str(record.get("messageId", ""))
            try:
                for event in parse_body(str(record.get("body", ""))):
                    self.outcomes[self.apply(event)] += 1
            except PoisonMessage as exc:
                log.error("poison message %s: %s", message_id, exc)
                self.outcomes["poison"] += 1
                failures.append({"itemIdentifier": message_id})
            except Exception:  # transient (throttling, network): let SQS redeliver this one only
                log.exception("message %s failed", message_id)
                self.outcomes["error"] += 1
                failures.append({"itemIdentifier": message_id})
        return {"batchItemFailures": failures}

    def apply(self, event: ObjectEvent) -> str:
        source_id = source_for(event.bucket, event.key, self.source_map)
        if source_id is None:
            return "unmapped"
        record = self.chunks.get_document(source_id, event.key)
        if record is not None and record.sequencer and not newer(event.sequencer, record.sequencer):
            return "stale"  # a duplicate delivery, or older than what is indexed
        if event.kind == "removed":
            self.ingestor.delete(source_id, event.key)
            self._mark(source_id, event, record, status="deleted")
            return "deleted"
        if record is not None and record.status == "indexed" and event.etag and record.etag == event.etag:
            self._mark(source_id, event, record)
            return "unchanged"
        try:
            kwargs = {"VersionId": event.version_id} if event.version_id else {}
            response = self.s3.get_object(Bucket=event.bucket, Key=event.key, **kwargs)
            data = response["Body"].read()
        except self.s3.exceptions.NoSuchKey:
            return "gone"  # deleted since: its ObjectRemoved event follows
        # x-amz-meta-critical / -product / -tags / -category ... fill in what the file does not say
        meta = {k.lower(): v for k, v in (response.get("Metadata") or {}).items()}
        report = self.ingestor.index_objects(
            source_id, [(event.key, lambda: data)], metadata={event.key: meta}
        )
        self._mark(source_id, event, self.chunks.get_document(source_id, event.key))
        if report.failed:
            return "failed"
        return "unchanged" if report.unchanged else "indexed"

    def _mark(
        self, source_id: str, event: ObjectEvent, record: DocumentRecord | None, status: str | None = None
    ) -> None:
        """Remember the event's sequencer (and etag) so older or repeated deliveries become no-ops."""
        from chalicelib.ids import document_id

        base = record or DocumentRecord(
            document_id=document_id(source_id, event.key), source_id=source_id, key=event.key
        )
        update: dict[str, Any] = {
            "sequencer": event.sequencer,
            "version_id": event.version_id,
            "updated_at": time.time(),
        }
        if event.kind == "created" and base.status == "indexed":
            update["etag"] = event.etag
        if status == "deleted":
            update.update(status="deleted", chunk_count=0, etag=None, error=None)
        self.chunks.put_document(base.model_copy(update=update))
