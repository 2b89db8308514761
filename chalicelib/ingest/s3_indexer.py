"""The indexer job: SQS batches of S3 events -> ingest or delete, idempotent and ordered per key."""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any

from chalicelib.ingest.config import IndexReport
from chalicelib.ingest.deletion_guard import too_many
from chalicelib.ingest.indexer import Ingestor
from chalicelib.ingest.s3_events import ObjectEvent, PoisonMessage, newer, parse_body, source_for
from chalicelib.models.records import DocumentRecord
from chalicelib.protocols import ChunkStore, DeletionLedger
from chalicelib.telemetry import Telemetry

log = logging.getLogger("sabio.indexer")


class S3Indexer:
    def __init__(
        self,
        ingestor: Ingestor,
        chunks: ChunkStore,
        s3: Any,
        source_map: dict[str, str],
        *,
        telemetry: Telemetry | None = None,
        ledger: DeletionLedger | None = None,
    ) -> None:
        self.ingestor = ingestor
        # the mass-delete guard of events: deletions counted per source and hour, in the store every
        # indexer container shares; None: every removal is applied
        self.ledger = ledger
        self._live: dict[tuple[str, str], int] = {}  # (source, hour) -> its live documents when first asked
        self.chunks = chunks
        self.s3 = s3
        self.source_map = source_map
        self.telemetry = telemetry or Telemetry("indexer")
        self.outcomes: Counter[str] = Counter()

    def handle_batch(self, records: list[dict[str, Any]], context: Any = None) -> dict[str, Any]:
        """Lambda's SQS contract on Powertools' batch processor: each message is handled on its own, and the
        ids of the failed ones go back in ``batchItemFailures`` for SQS to redeliver (the rest is done).

        A message's S3 records are read by ``s3_events.parse_body`` rather than Powertools' ``S3Model``: that
        model requires fields Sabio never reads (``userIdentity``, ``requestParameters``, ...) that a replayed
        or forwarded event may lack, and leaves the key URL-encoded as S3 sends it."""
        from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

        processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
        return dict(
            process_partial_response(
                event={"Records": records}, record_handler=self._message, processor=processor, context=context
            )
        )

    def _message(self, record: Any) -> None:
        """One SQS message: raise to have it redelivered (after maxReceiveCount, the DLQ keeps it)."""
        message_id = str(record.message_id or "")
        try:
            for event in parse_body(str(record.body or "")):
                self.outcomes[self.apply(event)] += 1
        except PoisonMessage as exc:
            log.error("poison message %s: %s", message_id, exc)
            self.outcomes["poison"] += 1
            self.telemetry.failed_message(message_id, str(exc), poison=True)
            raise
        except Exception as exc:  # transient (throttling, network): let SQS redeliver this one only
            log.exception("message %s failed", message_id)
            self.outcomes["error"] += 1
            self.telemetry.failed_message(message_id, repr(exc), poison=False)
            raise

    def apply(self, event: ObjectEvent, *, guarded: bool = True) -> str:
        """One object event, in order; ``guarded=False``: a removal already weighed by the mass-delete guard
        (the reconciliation's, confirmed or within the share)."""
        source_id = source_for(event.bucket, event.key, self.source_map)
        if source_id is None:
            return "unmapped"
        record = self.chunks.get_document(source_id, event.key)
        if record is not None and record.sequencer and not newer(event.sequencer, record.sequencer):
            return "stale"  # a duplicate delivery, or older than what is indexed
        if event.kind == "removed":
            if guarded and record is not None and record.status != "deleted" and self._burst(source_id):
                held = {"delete_held_at": record.delete_held_at or time.time(), "sequencer": event.sequencer}
                self.chunks.put_document(record.model_copy(update={**held, "updated_at": time.time()}))
                log.warning("%s/%s: deletion held (too much of the source this hour)", source_id, event.key)
                return "held"
            self.ingestor.delete(source_id, event.key)
            self._mark(source_id, event, record, status="deleted")
            return "deleted"
        if record is not None and record.status == "indexed" and event.etag and record.etag == event.etag:
            # the same bytes: perhaps new metadata (a copy onto itself changes who may read it)
            changed = self._refresh_readers(event, record)
            self._mark(source_id, event, self.chunks.get_document(source_id, event.key) or record)
            return "readers" if changed else "unchanged"
        try:
            kwargs = {"VersionId": event.version_id} if event.version_id else {}
            response = self.s3.get_object(Bucket=event.bucket, Key=event.key, **kwargs)
            data = response["Body"].read()
        except self.s3.exceptions.NoSuchKey:
            return "gone"  # deleted since: its ObjectRemoved event follows
        # x-amz-meta-critical / -product / -tags / -category ... fill in what the file does not say
        meta = {k.lower(): v for k, v in (response.get("Metadata") or {}).items()}
        # one event reads its own record: no look for a renamed twin (the source's whole manifest), no products
        # learned from the store (every chunk)
        report = self.ingestor.index_objects(
            source_id, [(event.key, lambda: data)], metadata={event.key: meta}, one_event=True
        )
        self.telemetry.indexed(source_id, event.key, report)
        self._mark(source_id, event, self.chunks.get_document(source_id, event.key))
        if report.failed:
            return "failed"
        return "unchanged" if report.unchanged else "indexed"

    def _refresh_readers(self, event: ObjectEvent, record: DocumentRecord) -> bool:
        """Who may read an object whose bytes did not change, from its metadata now (a HEAD, no download)."""
        try:
            head = self.s3.head_object(Bucket=event.bucket, Key=event.key)
        except self.s3.exceptions.ClientError:
            return False  # gone since: its ObjectRemoved event follows
        meta = {k.lower(): v for k, v in (head.get("Metadata") or {}).items()}
        return self.ingestor.refresh_readers(record, meta, IndexReport(record.source_id))

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
            update.update(etag=event.etag, delete_held_at=None)  # an object put back is no longer held
        if status == "deleted":
            update.update(status="deleted", chunk_count=0, etag=None, error=None)
        self.chunks.put_document(base.model_copy(update=update))

    def _burst(self, source_id: str) -> bool:
        """Whether this removal makes the source's deletions this hour too many (``deletion_guard``): the
        count is shared by every indexer; the source's size is read once per hour and container."""
        if self.ledger is None:
            return False
        hour = time.strftime("%Y-%m-%dT%H", time.gmtime())
        live = self._live.get((source_id, hour))
        if live is None:
            live = sum(1 for r in self.chunks.list_documents(source_id) if r.status != "deleted")
            self._live[(source_id, hour)] = live
        return too_many(self.ledger.count_deletion(source_id, hour), live, self.ingestor.config)
