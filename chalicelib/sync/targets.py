"""Where a synced source's documents land: the store, through the indexer (``IndexTarget``: ``sabio sync``
on a machine), or the bucket, whose events the indexer follows (``BucketTarget``: the stack's scheduled
sync). Either way the mass-delete guard weighs the deletions."""

from __future__ import annotations

import functools
import hashlib
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from chalicelib.config.ingest import IngestConfig
from chalicelib.ingest import deletion_guard
from chalicelib.ingest.indexer import IndexReport, Ingestor

Objects = Sequence[tuple[str, Callable[[], bytes]]]


@dataclass(frozen=True)
class Batch:
    """What one sync hands its target: the ``objects`` to write (key, loader), each one's metadata (its
    citation link), and whether the caller confirmed deletions the mass-delete guard would hold."""

    source_id: str
    objects: Objects
    metadata: dict[str, dict[str, str]]
    confirmed: bool


class Target(Protocol):
    def replace(self, batch: Batch) -> IndexReport:
        """The source is ``batch.objects`` now: write them, delete the rest (a first sync)."""
        ...

    def update(self, batch: Batch, deleted: list[str]) -> IndexReport:
        """Write ``batch.objects``, delete ``deleted`` (a later sync)."""
        ...


class IndexTarget:
    def __init__(self, ingestor: Ingestor) -> None:
        self.ingestor = ingestor

    def replace(self, batch: Batch) -> IndexReport:
        return self.ingestor.index_objects(
            batch.source_id,
            batch.objects,
            delete_missing=True,
            metadata=batch.metadata,
            confirm_deletions=batch.confirmed,
        )

    def update(self, batch: Batch, deleted: list[str]) -> IndexReport:
        report = self.ingestor.index_objects(batch.source_id, batch.objects, metadata=batch.metadata)
        delete_keys(self.ingestor, batch.source_id, deleted, report, batch.confirmed)
        return report


class BucketTarget:
    """Objects under ``prefix`` of ``bucket``, each with its citation link as ``x-amz-meta-url``; an object
    whose bytes did not change is not written again (its MD5 is its ETag)."""

    def __init__(self, s3: Any, bucket: str, prefix: str, config: IngestConfig) -> None:
        self.s3, self.bucket, self.prefix, self.config = s3, bucket, prefix, config

    def replace(self, batch: Batch) -> IndexReport:
        listed = self._listing()
        keys = {key for key, _ in batch.objects}
        return self._apply(batch, [k for k in listed if k not in keys], listed)

    def update(self, batch: Batch, deleted: list[str]) -> IndexReport:
        return self._apply(batch, deleted, self._listing())

    def _apply(self, batch: Batch, deleted: list[str], listed: dict[str, str]) -> IndexReport:
        report = IndexReport(batch.source_id)
        for key, load in batch.objects:
            body = load()
            if listed.get(key) == hashlib.md5(body, usedforsecurity=False).hexdigest():
                report.unchanged += 1
                continue
            meta = {
                k: urllib.parse.quote(v, safe=":/?#[]@!$&'()*+,;=%")
                for k, v in batch.metadata.get(key, {}).items()
            }
            self.s3.put_object(Bucket=self.bucket, Key=self.prefix + key, Body=body, Metadata=meta)
            report.updated += key in listed
            report.added += key not in listed
        gone = [k for k in deleted if k in listed]
        if not batch.confirmed and deletion_guard.too_many(len(gone), len(listed), self.config):
            report.held += gone
            return report
        for key in gone:
            self.s3.delete_object(Bucket=self.bucket, Key=self.prefix + key)
            report.deleted += 1
        return report

    def _listing(self) -> dict[str, str]:
        """key (under the prefix) -> ETag, of the objects there now."""
        found: dict[str, str] = {}
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix):
            for obj in page.get("Contents", []):
                found[obj["Key"][len(self.prefix) :]] = obj.get("ETag", "").strip('"')
        return found


def delete_keys(
    ingestor: Ingestor, source_id: str, keys: list[str], report: IndexReport, confirmed: bool
) -> None:
    """The documents of ``keys`` go, unless they are too much of the source at once (then held)."""
    records = [ingestor.chunks.get_document(source_id, k) for k in keys]
    gone = [r for r in records if r is not None and r.status != "deleted"]
    live = sum(1 for r in ingestor.chunks.list_documents(source_id) if r.status != "deleted")
    kept = deletion_guard.held_or_gone(
        ingestor.chunks, source_id, gone, live, ingestor.config, confirmed, report
    )
    deletion_guard.apply(kept, functools.partial(ingestor.delete, source_id), report)
