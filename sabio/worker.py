"""`sabio worker`: the indexer's SQS handler as a long-polling loop, for local runs (moto, LocalStack, AWS)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from chalicelib.ingest.s3_indexer import S3Indexer

log = logging.getLogger("sabio.worker")


def poll_once(sqs: Any, queue_url: str, indexer: S3Indexer, wait_s: int = 20) -> int:
    """Receive up to 10 messages, index them, delete the ones that succeeded; returns how many arrived."""
    response = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=wait_s)
    messages = response.get("Messages", [])
    if not messages:
        return 0
    records = [{"messageId": m["MessageId"], "body": m["Body"]} for m in messages]
    failed = {f["itemIdentifier"] for f in indexer.handle_batch(records)["batchItemFailures"]}
    done = [
        {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
        for i, m in enumerate(messages)
        if m["MessageId"] not in failed
    ]
    if done:
        sqs.delete_message_batch(QueueUrl=queue_url, Entries=done)
    if failed:
        log.warning("%d message(s) left for redelivery / the DLQ", len(failed))
    return len(messages)


def run(
    sqs: Any,
    queue_url: str,
    indexer: S3Indexer,
    *,
    once: bool = False,
    wait_s: int = 20,
    should_stop: Callable[[], bool] = lambda: False,
) -> None:
    while not should_stop():
        received = poll_once(sqs, queue_url, indexer, wait_s)
        if once and received == 0:
            return
