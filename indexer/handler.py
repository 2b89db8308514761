"""Lambda entry point of the indexer container: SQS batches of S3 events, partial batch failures."""

from __future__ import annotations

from typing import Any

_indexer: Any = None


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _indexer
    if _indexer is None:  # once per warm container: the model and the clients are reused
        from chalicelib.composition import Container

        _indexer = Container().s3_indexer()
    from chalicelib.telemetry import request_id

    request_id.set(str(getattr(context, "aws_request_id", "") or ""))
    return _indexer.handle_batch(event.get("Records", []), context)


def reconcile(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The scheduled reconciliation (EventBridge): each configured bucket's listing against the manifest,
    repaired (chalicelib/ingest/reconcile.py); what it fixed goes to the logs and metrics."""
    global _indexer
    if _indexer is None:
        from chalicelib.composition import Container

        _indexer = Container().s3_indexer()
    from chalicelib.ingest.reconcile import reconcile as run

    out = {}
    for bucket in sorted({pattern.partition("/")[0] for pattern in _indexer.source_map}):
        report = run(_indexer, bucket)
        drift = {
            "missing": report.missing,
            "stale": report.stale,
            "orphaned": report.orphaned,
            "held": report.held,
        }
        _indexer.telemetry.reconciled(bucket, drift)
        out[bucket] = {kind: len(keys) for kind, keys in drift.items()}
    return out


def sync(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The scheduled sync (EventBridge): each of SABIO_SYNC_SOURCES written into SABIO_SYNC_BUCKET, whose
    events index it (chalicelib/sync/scheduled.py); a source that fails is reported, the rest run."""
    import logging
    from pathlib import Path

    from chalicelib.composition import Container
    from chalicelib.sync.scheduled import run

    container = Container()
    settings, telemetry = container.settings, container.telemetry("indexer")
    s3, out = container.aws_client("s3"), {}
    for spec in settings.sync_sources:
        try:
            report = run(spec, s3, settings.sync_bucket or "", settings.ingest, Path("/tmp/sabio-sync"))
        except Exception as exc:  # one source's failure never stops the others
            logging.getLogger("sabio.sync").exception("sync of %s failed", spec.get("source_id"))
            out[spec.get("source_id", "?")] = {"error": str(exc)[:300]}
            continue
        counts = {"written": report.added + report.updated, "deleted": report.deleted,
                  "held": len(report.held), "failed": len(report.failed)}  # fmt: skip
        telemetry.synced(spec["source_id"], counts)
        out[spec["source_id"]] = counts
    return out
