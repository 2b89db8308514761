"""The AWS pipeline end to end against moto's real HTTP server: S3 -> SQS -> worker -> DynamoDB + index -> API."""

from __future__ import annotations

import json

import boto3
import pytest
from chalice.test import Client

import app as sabio_app
from chalicelib.composition import Container
from chalicelib.models.records import SearchFilters
from chalicelib.settings import Settings
from chalicelib.stores.aws.dynamodb import table_definition
from sabio.worker import poll_once
from tests.moto_http import moto_server

pytestmark = pytest.mark.slow
REGION = "eu-west-1"


@pytest.fixture(scope="module")
def moto_url(tmp_path_factory):  # type: ignore[no-untyped-def]
    with moto_server(REGION) as url:
        yield url


@pytest.fixture(scope="module")
def aws(moto_url, tmp_path_factory):  # type: ignore[no-untyped-def]
    s3 = boto3.client("s3", endpoint_url=moto_url, region_name=REGION)
    sqs = boto3.client("sqs", endpoint_url=moto_url, region_name=REGION)
    s3.create_bucket(Bucket="docs", CreateBucketConfiguration={"LocationConstraint": REGION})
    queue_url = sqs.create_queue(QueueName="sabio-events")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    s3.put_bucket_notification_configuration(
        Bucket="docs",
        NotificationConfiguration={
            "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"]}]
        },
    )
    settings = Settings(
        store_path=str(tmp_path_factory.mktemp("aws") / "index.db"),
        chunk_store="dynamodb",
        dynamodb_table="sabio",
        aws_endpoint_url=moto_url,
        aws_region=REGION,
        source_map={"docs/public/": "public", "docs": "docs"},
    )
    container = Container(settings)
    container.aws_client("dynamodb").create_table(**table_definition("sabio"))
    indexer = container.s3_indexer()
    bodies: list[str] = []
    original = indexer.handle_batch

    def recording(records):  # type: ignore[no-untyped-def]
        bodies.extend(r["body"] for r in records)
        return original(records)

    indexer.handle_batch = recording  # type: ignore[method-assign]
    poll_once(sqs, queue_url, indexer, wait_s=1)  # the s3:TestEvent moto sends on configuration
    return {
        "s3": s3,
        "sqs": sqs,
        "queue": queue_url,
        "container": container,
        "indexer": indexer,
        "bodies": bodies,
    }


def drain(aws) -> None:  # type: ignore[no-untyped-def]
    while poll_once(aws["sqs"], aws["queue"], aws["indexer"], wait_s=1):
        pass


def retrieve(container, query: str) -> list[dict]:  # type: ignore[no-untyped-def]
    sabio_app._container = container
    with Client(sabio_app.app) as client:
        r = client.http.post(
            "/retrieve",
            headers={"Content-Type": "application/json"},
            body=json.dumps({"query": query, "lang": "all", "top_k": 5}),
        )
    sabio_app._container = None
    assert r.status_code == 200, r.body
    return r.json_body["items"]


def index_ids(container, key: str, source: str = "public") -> set[str]:  # type: ignore[no-untyped-def]
    probe = [0.0] * container.vector_index.space().dim
    hits = container.vector_index.dense_search(
        probe, container.vector_index.space(), SearchFilters(source_ids=(source,), source_ref=key), 100
    )
    return {h.chunk_id for h in hits}


DOC_V1 = "# Tarifas de Boya\n\nEl plan Velero de Boya cuesta 12 euros al mes por usuario.\n"
DOC_V2 = "# Tarifas de Boya\n\nEl plan Velero de Boya cuesta 15 euros al mes por usuario desde enero.\n"
KEY = "public/tarifas boya.md"  # a space: S3 sends it URL-encoded ("tarifas+boya.md")


def test_upload_index_retrieve_then_delete(aws):
    aws["s3"].put_object(Bucket="docs", Key=KEY, Body=DOC_V1.encode())
    drain(aws)
    c = aws["container"]
    items = retrieve(c, "¿Cuánto cuesta el plan Velero de Boya?")
    assert items and items[0]["title"] == "Tarifas de Boya" and items[0]["source_id"] == "public"
    record = c.chunk_store.get_document("public", KEY)
    assert record.status == "indexed" and record.sequencer and record.etag

    aws["s3"].delete_object(Bucket="docs", Key=KEY)
    drain(aws)
    assert c.chunk_store.get_document("public", KEY).status == "deleted"
    assert c.chunk_store.document_chunks(record.document_id) == []
    assert index_ids(c, KEY) == set()
    assert all(i["title"] != "Tarifas de Boya" for i in retrieve(c, "plan Velero de Boya"))


def test_duplicate_and_out_of_order_deliveries_change_nothing(aws):
    c, indexer = aws["container"], aws["indexer"]
    key = "public/orden.md"
    aws["bodies"].clear()
    aws["s3"].put_object(Bucket="docs", Key=key, Body=DOC_V1.replace("Boya", "Orden").encode())
    drain(aws)
    first = aws["bodies"][-1]
    aws["s3"].put_object(Bucket="docs", Key=key, Body=DOC_V2.replace("Boya", "Orden").encode())
    drain(aws)
    second = aws["bodies"][-1]
    record = c.chunk_store.get_document("public", key)
    chunks = c.chunk_store.document_chunks(record.document_id)
    assert "15 euros" in chunks[0].content

    before = dict(indexer.outcomes)
    assert indexer.handle_batch([{"messageId": "dup", "body": second}]) == {"batchItemFailures": []}
    assert indexer.handle_batch([{"messageId": "old", "body": first}]) == {"batchItemFailures": []}
    assert indexer.outcomes["stale"] == before.get("stale", 0) + 2
    after = c.chunk_store.document_chunks(record.document_id)
    assert [ch.chunk_id for ch in after] == [ch.chunk_id for ch in chunks] and "15 euros" in after[0].content


def test_a_poison_message_is_reported_and_the_rest_of_the_batch_is_indexed(aws):
    c, indexer = aws["container"], aws["indexer"]
    aws["s3"].put_object(
        Bucket="docs",
        Key="manual.md",
        Body=b"# Manual de Ancla\n\nRestaurar una copia lleva veinte minutos.\n",
    )
    message = aws["sqs"].receive_message(QueueUrl=aws["queue"], WaitTimeSeconds=2)["Messages"][0]
    result = indexer.handle_batch(
        [
            {"messageId": "m-bad", "body": "{this is not json"},
            {"messageId": "m-bad-2", "body": json.dumps({"Records": [{"eventName": "ObjectCreated:Put"}]})},
            {"messageId": message["MessageId"], "body": message["Body"]},
        ]
    )
    assert result == {"batchItemFailures": [{"itemIdentifier": "m-bad"}, {"itemIdentifier": "m-bad-2"}]}
    assert (
        c.chunk_store.get_document("docs", "manual.md").status == "indexed"
    )  # "docs" bucket -> source "docs"


def test_object_metadata_marks_critical_documents(aws):
    c = aws["container"]
    aws["s3"].put_object(
        Bucket="docs",
        Key="public/guardia.md",
        Metadata={"critical": "true", "product": "ancla"},
        Body=b"# Guardia\n\nLa guardia responde a una alerta de Ancla en menos de 15 minutos.\n",
    )
    drain(aws)
    record = c.chunk_store.get_document("public", "public/guardia.md")
    (stored,) = c.chunk_store.document_chunks(record.document_id)
    assert stored.critical and stored.product == "ancla"
