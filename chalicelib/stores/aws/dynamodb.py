"""DynamoDB chunk store: document manifest, chunks with their enrichment JSON, and the enrichment cache.

One table, string keys ``pk`` / ``sk``, one GSI ``by_source`` (``gsi1pk`` / ``gsi1sk``):

| item | pk | sk | gsi1pk / gsi1sk | attributes |
|---|---|---|---|---|
| manifest | ``DOC#<document_id>`` | ``MANIFEST`` | ``SOURCE#<source_id>`` / ``KEY#<key>`` | the DocumentRecord fields |
| chunk | ``DOC#<document_id>`` | ``CHUNK#<chunk_id>`` | — | ``data`` (StoredChunk JSON), lang, product, ... |
| enrichment cache | ``ENRICH#<cache key>`` | ``ENRICH`` | — | ``data`` (Enrichment JSON) |

A document's manifest and chunks share a partition, so ``document_chunks`` is one Query and deleting a
document is a Query plus batched deletes. Chunk ids start with their document id (``<document_id>:...``),
so ``get_chunks`` is a BatchGetItem. Writes go in ``BatchWriteItem`` groups of 25 with ``UnprocessedItems``
retried; the manifest is written with a condition on ``updated_at`` so an older writer never wins.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from chalicelib.models.records import DocumentRecord, Stats, StoredChunk
from chalicelib.stores.aws.dynamodb_table import DynamoDBTable

BATCH = 25
GSI = "by_source"


def table_definition(name: str) -> dict[str, Any]:
    """CreateTable arguments (tests, `sabio` tooling and the CDK stack describe the same table)."""
    return {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "gsi1pk", "gsi1sk")
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": GSI,
                "KeySchema": [
                    {"AttributeName": "gsi1pk", "KeyType": "HASH"},
                    {"AttributeName": "gsi1sk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    }


def document_of(chunk_id: str) -> str:
    return chunk_id.split(":", 1)[0]


class DynamoDBChunkStore(DynamoDBTable):
    def __init__(
        self, table_name: str, *, client: Any = None, region: str | None = None, sleep: Any = time.sleep
    ) -> None:
        super().__init__(table_name, client=client, region=region)
        self._sleep = sleep

    # ------------------------------------------------------------ manifest
    def get_document(self, source_id: str, key: str) -> DocumentRecord | None:
        from chalicelib.ids import document_id

        item = self.client.get_item(
            TableName=self.table_name,
            ConsistentRead=True,
            Key=_key(f"DOC#{document_id(source_id, key)}", "MANIFEST"),
        ).get("Item")
        return _record(item) if item else None

    def list_documents(self, source_id: str | None = None) -> list[DocumentRecord]:
        if source_id is None:
            items = self._scan({"sk": "MANIFEST"})
        else:
            items = list(
                self._paginate(
                    "query",
                    IndexName=GSI,
                    KeyConditionExpression="gsi1pk = :s",
                    ExpressionAttributeValues={":s": {"S": f"SOURCE#{source_id}"}},
                )
            )
        return sorted((_record(i) for i in items), key=lambda r: (r.source_id, r.key))

    def put_document(self, record: DocumentRecord) -> None:
        item = {
            **_key(f"DOC#{record.document_id}", "MANIFEST"),
            "gsi1pk": {"S": f"SOURCE#{record.source_id}"},
            "gsi1sk": {"S": f"KEY#{record.key}"},
            "document_id": {"S": record.document_id},
            "source_id": {"S": record.source_id},
            "key": {"S": record.key},
            "content_hash": {"S": record.content_hash},
            "status": {"S": record.status},
            "title": {"S": record.title},
            "lang": {"S": record.lang},
            "chunk_count": {"N": str(record.chunk_count)},
            "updated_at": {"N": repr(record.updated_at)},
        }
        for name in ("error", "etag", "version_id", "sequencer"):
            value = getattr(record, name)
            if value:
                item[name] = {"S": value}
        if record.delete_held_at is not None:
            item["delete_held_at"] = {"N": repr(record.delete_held_at)}
        for name in ("readers", "declared_readers"):  # JSON: DynamoDB has no empty string sets
            value = getattr(record, name)
            if value is not None:
                item[name] = {"S": json.dumps(value)}
        # a newer version of this manifest row may already be there: then it is kept
        with contextlib.suppress(self.client.exceptions.ConditionalCheckFailedException):
            self.client.put_item(
                TableName=self.table_name,
                Item=item,
                ConditionExpression="attribute_not_exists(pk) OR updated_at <= :t",
                ExpressionAttributeValues={":t": {"N": repr(record.updated_at)}},
            )

    def delete_document(self, document_id: str) -> None:
        items = self._paginate(
            "query",
            KeyConditionExpression="pk = :p",
            ProjectionExpression="pk, sk",
            ExpressionAttributeValues={":p": {"S": f"DOC#{document_id}"}},
        )
        self._batch_write([{"DeleteRequest": {"Key": {"pk": i["pk"], "sk": i["sk"]}}} for i in items])

    # ------------------------------------------------------------ chunks
    def put_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        self._batch_write(
            [
                {
                    "PutRequest": {
                        "Item": {
                            **_key(f"DOC#{c.document_id}", f"CHUNK#{c.chunk_id}"),
                            "data": {"S": c.model_dump_json()},
                            "source_id": {"S": c.source_id},
                            "lang": {"S": c.lang},
                            "product": {"S": c.product},
                            "content_type": {"S": c.content_type},
                            "category": {"S": c.category},
                        }
                    }
                }
                for c in chunks
            ]
        )

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        self._batch_write(
            [
                {"DeleteRequest": {"Key": _key(f"DOC#{document_of(cid)}", f"CHUNK#{cid}")}}
                for cid in dict.fromkeys(chunk_ids)
            ]
        )

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[StoredChunk]:
        ids = list(dict.fromkeys(chunk_ids))
        found: dict[str, StoredChunk] = {}
        for start in range(0, len(ids), 100):
            keys = [_key(f"DOC#{document_of(cid)}", f"CHUNK#{cid}") for cid in ids[start : start + 100]]
            request = {self.table_name: {"Keys": keys, "ConsistentRead": True}}
            for attempt in range(8):
                response = self.client.batch_get_item(RequestItems=request)
                for item in response.get("Responses", {}).get(self.table_name, []):
                    chunk = StoredChunk.model_validate_json(item["data"]["S"])
                    found[chunk.chunk_id] = chunk
                request = response.get("UnprocessedKeys") or {}
                if not request:
                    break
                self._sleep(min(2.0, 0.05 * 2**attempt))
        return [found[i] for i in ids if i in found]

    def document_chunks(self, document_id: str) -> list[StoredChunk]:
        items = self._paginate(
            "query",
            KeyConditionExpression="pk = :p AND begins_with(sk, :c)",
            ExpressionAttributeValues={":p": {"S": f"DOC#{document_id}"}, ":c": {"S": "CHUNK#"}},
            ConsistentRead=True,
        )
        return sorted((StoredChunk.model_validate_json(i["data"]["S"]) for i in items), key=lambda c: c.ord)

    def all_chunk_ids(self, source_id: str | None = None) -> dict[str, str]:
        out: dict[str, str] = {}
        for item in self._scan({}, prefix="CHUNK#"):
            if source_id is None or item.get("source_id", {}).get("S") == source_id:
                out[item["sk"]["S"].removeprefix("CHUNK#")] = item["pk"]["S"].removeprefix("DOC#")
        return out

    # ------------------------------------------------------------ enrichment cache
    def cached_enrichment(self, cache_key: str) -> str | None:
        item = self.client.get_item(TableName=self.table_name, Key=_key(f"ENRICH#{cache_key}", "ENRICH")).get(
            "Item"
        )
        return item["data"]["S"] if item else None

    def cache_enrichment(self, cache_key: str, data: str) -> None:
        self.client.put_item(
            TableName=self.table_name, Item={**_key(f"ENRICH#{cache_key}", "ENRICH"), "data": {"S": data}}
        )

    def count_deletion(self, source_id: str, window: str) -> int:
        """An atomic counter item per source and window (every indexer container adds to the same one);
        it expires a day later (the stack's TTL attribute)."""
        response = self.client.update_item(
            TableName=self.table_name,
            Key=_key(f"GUARD#{source_id}", f"WINDOW#{window}"),
            UpdateExpression="ADD n :one SET expires_at = if_not_exists(expires_at, :ttl)",
            ExpressionAttributeValues={":one": {"N": "1"}, ":ttl": {"N": str(int(time.time()) + 86_400)}},
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"]["n"]["N"])

    # ------------------------------------------------------------ stats
    def stats(self) -> Stats:
        docs = Counter(r.status for r in self.list_documents())
        chunks = self._scan({}, prefix="CHUNK#")

        def by(attr: str) -> dict[str, int]:
            return dict(Counter(i.get(attr, {}).get("S", "") for i in chunks).most_common())

        return Stats(
            documents={"total": sum(docs.values()), **docs},
            chunks=len(chunks),
            by_source=by("source_id"),
            by_lang=by("lang"),
            by_product=by("product"),
            by_content_type=by("content_type"),
            by_category=by("category"),
            embedding=None,
        )

    # ------------------------------------------------------------ plumbing
    def _batch_write(self, requests: list[dict[str, Any]]) -> None:
        """BatchWriteItem in groups of 25, retrying UnprocessedItems with backoff until they are written."""
        for start in range(0, len(requests), BATCH):
            pending: dict[str, Any] = {self.table_name: requests[start : start + BATCH]}
            for attempt in range(10):
                response = self.client.batch_write_item(RequestItems=pending)
                pending = response.get("UnprocessedItems") or {}
                if not pending:
                    break
                self._sleep(min(2.0, 0.05 * 2**attempt))
            else:
                raise RuntimeError(f"DynamoDB left {len(pending[self.table_name])} writes unprocessed")

    def _scan(self, equals: dict[str, str], prefix: str | None = None) -> list[dict[str, Any]]:
        items = list(self._paginate("scan"))
        out = [i for i in items if all(i.get(k, {}).get("S") == v for k, v in equals.items())]
        if prefix:
            out = [i for i in out if i["sk"]["S"].startswith(prefix)]
        return out


def _key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def _record(item: dict[str, Any]) -> DocumentRecord:
    return DocumentRecord(
        document_id=item["document_id"]["S"],
        source_id=item["source_id"]["S"],
        key=item["key"]["S"],
        content_hash=item["content_hash"]["S"],
        status=item["status"]["S"],
        error=item.get("error", {}).get("S"),
        title=item["title"]["S"],
        lang=item["lang"]["S"],
        chunk_count=int(item["chunk_count"]["N"]),
        etag=item.get("etag", {}).get("S"),
        version_id=item.get("version_id", {}).get("S"),
        sequencer=item.get("sequencer", {}).get("S"),
        updated_at=float(item["updated_at"]["N"]),
        delete_held_at=float(item["delete_held_at"]["N"]) if "delete_held_at" in item else None,
        readers=json.loads(item["readers"]["S"]) if "readers" in item else None,
        declared_readers=json.loads(item["declared_readers"]["S"]) if "declared_readers" in item else None,
    )
