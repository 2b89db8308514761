"""The DynamoDB chunk store passes the shared chunk-store contract under moto, and keeps its own promises."""

from __future__ import annotations

import boto3
import pytest
from moto import mock_aws

from chalicelib.models.records import DocumentRecord
from chalicelib.stores.aws.dynamodb import DynamoDBChunkStore, table_definition
from tests.store_contract import ChunkStoreContract


@pytest.fixture
def dynamodb(monkeypatch):  # type: ignore[no-untyped-def]
    for var, value in (
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_DEFAULT_REGION", "eu-west-1"),
    ):
        monkeypatch.setenv(var, value)
    with mock_aws():
        yield boto3.client("dynamodb", region_name="eu-west-1")


class TestDynamoDBChunkStore(ChunkStoreContract):
    @pytest.fixture
    def make(self, dynamodb):  # type: ignore[no-untyped-def]
        count = [0]

        def factory() -> DynamoDBChunkStore:
            count[0] += 1
            name = f"sabio-{count[0]}"
            dynamodb.create_table(**table_definition(name))
            return DynamoDBChunkStore(name, client=dynamodb, sleep=lambda s: None)

        return factory


def test_an_older_manifest_write_never_replaces_a_newer_one(dynamodb):
    dynamodb.create_table(**table_definition("t"))
    store = DynamoDBChunkStore("t", client=dynamodb)
    newer = DocumentRecord(document_id="x", source_id="s", key="a.md", content_hash="new", updated_at=200.0)
    store.put_document(newer)
    store.put_document(newer.model_copy(update={"content_hash": "old", "updated_at": 100.0}))
    assert store.list_documents("s")[0].content_hash == "new"


def test_unprocessed_items_are_retried_until_written(dynamodb):
    dynamodb.create_table(**table_definition("t"))
    real = dynamodb.batch_write_item
    calls = []

    def flaky(RequestItems):  # type: ignore[no-untyped-def]  # noqa: N803
        calls.append(len(RequestItems["t"]))
        if len(calls) == 1:  # the first call writes only the first item
            first, rest = RequestItems["t"][:1], RequestItems["t"][1:]
            real(RequestItems={"t": first})
            return {"UnprocessedItems": {"t": rest}}
        return real(RequestItems=RequestItems)

    dynamodb.batch_write_item = flaky
    from tests.store_contract import CORPUS

    store = DynamoDBChunkStore("t", client=dynamodb, sleep=lambda s: None)
    store.put_chunks(CORPUS)
    assert calls == [4, 3] and len(store.get_chunks([c.chunk_id for c in CORPUS])) == 4
