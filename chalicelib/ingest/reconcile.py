"""Reconciliation on AWS: the bucket's listing against the manifest, repairing what the events missed.

An S3 event can be lost (a notification never sent, a message left in the DLQ): an object then stays
unindexed, a deleted object stays searchable, or an edit is never read. A periodic run (the stack's
schedule, or ``sabio reconcile``) lists the bucket and repairs each kind of drift through the indexer's own
path (``S3Indexer.apply``, as if the event had come): an object the manifest lacks is indexed, an object whose
ETag differs is read again, a manifest row whose object is gone is deleted (through the mass-delete guard).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from chalicelib.ingest import deletion_guard
from chalicelib.ingest.config import IndexReport
from chalicelib.ingest.s3_events import ObjectEvent, order_key, source_for
from chalicelib.ingest.s3_indexer import S3Indexer
from chalicelib.models.records import DocumentRecord


@dataclass
class ReconcileReport:
    bucket: str
    listed: int = 0  # objects in the bucket that map to a source
    missing: list[str] = field(default_factory=list)  # objects the manifest does not hold
    # objects whose ETag differs from the one indexed, or indexed before documents had readers
    stale: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)  # manifest rows whose object is gone
    held: list[str] = field(default_factory=list)  # orphans the mass-delete guard holds
    failed: list[tuple[str, str]] = field(default_factory=list)  # repairs that did not take

    @property
    def drift(self) -> int:
        return len(self.missing) + len(self.stale) + len(self.orphaned)


def reconcile(
    indexer: S3Indexer, bucket: str, *, repair: bool = True, confirmed: bool = False
) -> ReconcileReport:
    report = ReconcileReport(bucket)
    objects = _listing(indexer, bucket)  # key -> etag, of the objects that map to a source
    report.listed = len(objects)
    rows = _manifest(indexer, bucket)  # key -> live manifest row
    for key, etag in objects.items():
        row = rows.get(key)
        if row is None:
            report.missing.append(key)
        elif row.status == "indexed" and row.etag and _bare(row.etag) != _bare(etag):
            report.stale.append(key)
        elif row.status == "indexed" and row.readers is None:  # indexed before readers existed: they are
            report.stale.append(key)  # read from its metadata now (nothing downloaded or embedded)
    report.orphaned = sorted(set(rows) - set(objects))
    if repair:
        _repair(indexer, bucket, objects, rows, report, confirmed)
    return report


def _repair(
    indexer: S3Indexer,
    bucket: str,
    objects: dict[str, str],
    rows: dict[str, DocumentRecord],
    report: ReconcileReport,
    confirmed: bool,
) -> None:
    now = order_key(None, datetime.datetime.now(datetime.UTC).isoformat())  # after any event already seen
    for key in [*report.missing, *report.stale]:
        outcome = indexer.apply(ObjectEvent(bucket, key, "created", now, etag=_bare(objects[key])))
        if outcome == "failed":
            report.failed.append((key, "indexing failed (the manifest row says why)"))
    by_source: dict[str, list[DocumentRecord]] = {}
    for key in report.orphaned:
        by_source.setdefault(rows[key].source_id, []).append(rows[key])
    for source_id, gone in by_source.items():
        live = sum(1 for r in indexer.chunks.list_documents(source_id) if r.status != "deleted")
        held = IndexReport(source_id)
        config = indexer.ingestor.config
        for record in deletion_guard.held_or_gone(
            indexer.chunks, source_id, gone, live, config, confirmed, held
        ):
            indexer.apply(ObjectEvent(bucket, record.key, "removed", now), guarded=False)
        report.held += held.held


def _listing(indexer: S3Indexer, bucket: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for page in indexer.s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for obj in page.get("Contents", []):
            if not obj["Key"].endswith("/") and source_for(bucket, obj["Key"], indexer.source_map):
                found[obj["Key"]] = obj.get("ETag", "")
    return found


def _manifest(indexer: S3Indexer, bucket: str) -> dict[str, DocumentRecord]:
    """The live manifest rows that this bucket's objects map to (their source and key agree)."""
    sources = {
        source for pattern, source in indexer.source_map.items() if pattern.partition("/")[0] == bucket
    }
    rows: dict[str, DocumentRecord] = {}
    for source_id in sources or {bucket}:
        for row in indexer.chunks.list_documents(source_id):
            if row.status != "deleted" and source_for(bucket, row.key, indexer.source_map) == source_id:
                rows[row.key] = row
    return rows


def _bare(etag: str) -> str:
    return etag.strip('"')
