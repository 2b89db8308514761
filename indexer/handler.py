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
    repaired (chalicelib/pipelines/reconcile.py); what it fixed goes to the logs and metrics."""
    global _indexer
    if _indexer is None:
        from chalicelib.composition import Container

        _indexer = Container().s3_indexer()
    from chalicelib.pipelines.reconcile import reconcile as run

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
