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
