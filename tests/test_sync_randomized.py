"""The S3 pipeline under a random week of edits: puts, overwrites, deletes and renames, their events
duplicated, reordered and lost, a worker killed halfway through a batch (its batch delivered again), the
mass-delete guard on (it holds most removals of such a week). After one confirmed reconciliation the index
equals the bucket: 0 lost, 0 orphaned, 0 duplicated. moto's S3 and DynamoDB
(the AWS chunk store), the embedded vector index, the indexer's own SQS batch handler."""

from __future__ import annotations

import json
import random
from pathlib import Path

import boto3
from moto import mock_aws

from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.indexer import Ingestor
from chalicelib.ingest.reconcile import reconcile
from chalicelib.ingest.s3_indexer import S3Indexer
from chalicelib.ingest.verify import verify
from chalicelib.models.records import SearchFilters
from chalicelib.stores.aws.dynamodb import DynamoDBChunkStore, table_definition
from chalicelib.stores.sqlite import SQLiteStore

OPERATIONS = 1000
KEYS = [f"team{n % 4}/doc{n}.md" for n in range(40)]


def message(n: int, kind: str, key: str, etag: str = "") -> dict[str, str]:
    record = {
        "eventName": "ObjectCreated:Put" if kind == "created" else "ObjectRemoved:Delete",
        "s3": {"bucket": {"name": "docs"}, "object": {"key": key, "sequencer": f"{n:016X}", "eTag": etag}},
    }
    return {"messageId": f"m{n}", "receiptHandle": f"r{n}", "body": json.dumps({"Records": [record]}),
            "attributes": {}, "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:1:q", "awsRegion": "us-east-1"}  # fmt: skip


def edits(rng: random.Random, s3: object) -> list[dict[str, str]]:
    """OPERATIONS random edits applied to the bucket; the events S3 would have sent, in order."""
    events, live, n = [], set(), 0
    for version in range(OPERATIONS):
        op = rng.choice(["put", "put", "put", "delete", "rename"]) if live else "put"
        if op == "put":
            key = rng.choice(KEYS)
            body = f"# {key}\n\nVersion v{version}x of {key}: the notes of this week.\n".encode()
            etag = s3.put_object(Bucket="docs", Key=key, Body=body)["ETag"].strip('"')  # type: ignore[attr-defined]
            live.add(key)
            events.append(message(n := n + 1, "created", key, etag))
        elif op == "delete":
            key = rng.choice(sorted(live))
            s3.delete_object(Bucket="docs", Key=key)  # type: ignore[attr-defined]
            live.discard(key)
            events.append(message(n := n + 1, "removed", key))
        else:  # a rename: copy, then delete the old key
            old, new = rng.choice(sorted(live)), rng.choice(KEYS)
            if old == new:
                continue
            copied = s3.copy_object(Bucket="docs", Key=new, CopySource={"Bucket": "docs", "Key": old})  # type: ignore[attr-defined]
            s3.delete_object(Bucket="docs", Key=old)  # type: ignore[attr-defined]
            live.discard(old)
            live.add(new)
            events.append(message(n := n + 1, "created", new, copied["CopyObjectResult"]["ETag"].strip('"')))
            events.append(message(n := n + 1, "removed", old))
    return events


def delivered(rng: random.Random, events: list[dict[str, str]]) -> list[list[dict[str, str]]]:
    """At-least-once and out of order, as SQS delivers: 5 % lost, 10 % twice, shuffled within windows of 8,
    in batches of up to 10."""
    kept = [e for e in events if rng.random() > 0.05]
    kept += [e for e in kept if rng.random() < 0.10]
    kept.sort(key=lambda e: int(e["messageId"][1:]) // 8 + rng.random())
    return [kept[i : i + 10] for i in range(0, len(kept), 10)]


def test_a_random_week_of_s3_edits_converges_to_the_bucket(tmp_path: Path, fake_embedder, capsys):  # type: ignore[no-untyped-def]
    rng = random.Random(20261204)
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="docs")
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(**table_definition("sabio"))
        chunks, index = DynamoDBChunkStore("sabio", client=dynamodb), SQLiteStore(tmp_path / "index.db")
        ingestor = Ingestor(chunks, index, fake_embedder, Vocabulary())
        indexer = S3Indexer(ingestor, chunks, s3, {}, ledger=chunks)  # as deployed: the guard on

        events = edits(rng, s3)
        batches = delivered(rng, events)
        for number, batch in enumerate(batches):
            if number % 25 == 7:  # the worker dies halfway through: SQS delivers the whole batch again
                for record in batch[: len(batch) // 2]:
                    indexer._message(_Record(record))
            indexer.handle_batch(batch)
        repaired = reconcile(indexer, "docs", confirmed=True)
        with capsys.disabled():
            print(f"\n{OPERATIONS} random operations, {len(events)} events, {sum(map(len, batches))} deliveries, "
                  f"{repaired.drift} drifts repaired by reconciliation (deletions the guard held included); {dict(indexer.outcomes)}")  # fmt: skip

        bucket = {
            o["Key"]
            for p in s3.get_paginator("list_objects_v2").paginate(Bucket="docs")
            for o in p.get("Contents", [])
        }
        indexed = {d.key: d for d in chunks.list_documents("docs") if d.status == "indexed"}
        assert set(indexed) == bucket  # 0 lost, 0 orphaned
        for key, record in indexed.items():  # each holds the bucket's current version, once
            body = s3.get_object(Bucket="docs", Key=key)["Body"].read().decode()
            held = [c.content for c in chunks.document_chunks(record.document_id)]
            assert len(held) == 1 and body.split("\n\n")[1].strip() in held[0], key
        check = verify(chunks, index, fake_embedder)
        assert check.ok, check
        assert len(index.chunk_ids(SearchFilters())) == len(bucket)  # no duplicated or left-over vector
        assert reconcile(indexer, "docs").drift == 0


class _Record:
    """What Powertools hands the record handler: the SQS message's id and body."""

    def __init__(self, raw: dict[str, str]) -> None:
        self.message_id, self.body = raw["messageId"], raw["body"]
