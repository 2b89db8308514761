"""Changing who may read a document changes it in place: no chunk embedded again (counted), applied by the
next indexing run or the next S3 event, and ``sabio verify`` finds chunks whose readers disagree."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import boto3
import numpy as np
import pytest
from chalice.test import Client

import app as sabio_app
from chalicelib.composition import Container
from chalicelib.ingest.verify import verify
from chalicelib.settings import Settings
from chalicelib.stores.aws.dynamodb import table_definition
from sabio.worker import poll_once
from tests.moto_http import moto_server

pytestmark = pytest.mark.slow
REGION = "eu-west-1"
DOC = "# Cierre contable\n\nEl cierre contable del trimestre se firma el día cinco. Código FIN-7731.\n"
SECRET = "FIN-7731"
KEYS = {"k-app": {"name": "app"}, "k-finance": {"name": "finance-bot", "groups": ["finance"]}}


class Counting:
    """The real embedder, counting the texts it embeds for documents."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.texts = inner, 0

    @property
    def space(self) -> Any:
        return self.inner.space

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def reads(container: Container, key: str) -> bool:
    """Whether the caller with API key ``key`` finds the secret."""
    sabio_app._container = container
    with Client(sabio_app.app) as client:
        r = client.http.post(
            "/retrieve",
            headers={"Content-Type": "application/json", "x-api-key": key},
            body=json.dumps({"query": "¿Cuándo se firma el cierre contable?", "lang": "all"}),
        )
    sabio_app._container = None
    assert r.status_code == 200, r.body
    return SECRET in r.body.decode()


@pytest.fixture
def local(tmp_path, examples_container) -> tuple[Container, Counting, Path]:  # type: ignore[no-untyped-def]
    folder = tmp_path / "docs"
    (folder / "finance").mkdir(parents=True)
    (folder / "finance" / "cierre.md").write_text(DOC, encoding="utf-8")
    (folder / ".sabio-read").write_text("public\n", encoding="utf-8")
    container = Container(Settings(store_path=str(tmp_path / "s.db"), auth="keys", api_keys=KEYS))
    counting = Counting(examples_container.embedder)
    container.__dict__["embedder"] = counting
    assert container.ingestor().index_folder(folder, "docs").added == 1
    return container, counting, folder


def test_a_folder_file_moving_a_document_to_finance_re_embeds_nothing(local):
    container, counting, folder = local
    assert reads(container, "k-app") and reads(container, "k-finance")
    embedded = counting.texts
    (folder / "finance" / ".sabio-read").write_text("group:finance\n", encoding="utf-8")
    report = container.ingestor().index_folder(folder, "docs")
    assert report.readers_changed == 1 and report.unchanged == 1 and counting.texts == embedded
    assert not report.skipped  # a .sabio-read is read for its readers, not listed as a hidden file left out
    assert not reads(container, "k-app") and reads(container, "k-finance")
    assert verify(container.chunk_store, container.vector_index, container.embedder).ok
    (folder / "finance" / ".sabio-read").unlink()  # back to the folder above's default
    assert container.ingestor().index_folder(folder, "docs").readers_changed == 1
    assert reads(container, "k-app") and counting.texts == embedded


def test_a_front_matter_edit_changes_the_readers_without_embedding(local):
    container, counting, folder = local
    embedded = counting.texts
    (folder / "finance" / "cierre.md").write_text(
        "---\nsabio-read: group:finance\n---\n" + DOC, encoding="utf-8"
    )
    report = container.ingestor().index_folder(folder, "docs")
    assert report.updated == 1 and counting.texts == embedded  # read and cut again; every vector reused
    assert not reads(container, "k-app") and reads(container, "k-finance")


def test_verify_finds_and_repairs_chunks_whose_readers_disagree(local):
    container, counting, _ = local
    store = container.chunk_store
    chunk = store.get_chunks(list(store.all_chunk_ids()))[0]
    container.vector_index.set_readers([chunk.chunk_id], ["group:finance"])  # the index behind the manifest
    report = verify(store, container.vector_index, container.embedder)
    assert report.wrong_readers == [chunk.chunk_id] and not report.ok
    store.put_chunks([chunk.model_copy(update={"readers": ["user:mallory@acme.com"]})])
    embedded = counting.texts
    repaired = verify(store, container.vector_index, container.embedder, repair=True)
    assert repaired.wrong_readers == [chunk.chunk_id] and repaired.repaired and counting.texts == embedded
    assert verify(store, container.vector_index, container.embedder).ok
    assert store.get_chunks([chunk.chunk_id])[0].readers == ["public"] and reads(container, "k-app")


# ---------------------------------------------------------------- S3: a metadata update is one event


@pytest.fixture
def bucket(tmp_path, examples_container) -> Iterator[dict[str, Any]]:  # type: ignore[no-untyped-def]
    with moto_server(REGION) as url:
        yield from _bucket(url, tmp_path, examples_container)


def _bucket(url: str, tmp_path: Path, examples_container: Container) -> Iterator[dict[str, Any]]:
    s3 = boto3.client("s3", endpoint_url=url, region_name=REGION)
    sqs = boto3.client("sqs", endpoint_url=url, region_name=REGION)
    name = f"docs-{uuid.uuid4().hex[:8]}"  # moto keeps one state per process, whatever the server
    s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": REGION})
    queue = sqs.create_queue(QueueName=name)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events = ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"]
    s3.put_bucket_notification_configuration(
        Bucket=name,
        NotificationConfiguration={"QueueConfigurations": [{"QueueArn": arn, "Events": events}]},
    )
    settings = Settings(
        store_path=str(tmp_path / "index.db"),
        chunk_store="dynamodb",
        dynamodb_table=name,
        source_map={name: "docs"},
        aws_endpoint_url=url,
        aws_region=REGION,
        auth="keys",
        api_keys=KEYS,
    )
    container = Container(settings)
    counting = Counting(examples_container.embedder)
    container.__dict__["embedder"] = counting
    container.aws_client("dynamodb").create_table(**table_definition(name))
    indexer = container.s3_indexer()
    poll_once(sqs, queue, indexer, wait_s=1)  # moto's s3:TestEvent
    yield {
        "s3": s3,
        "sqs": sqs,
        "queue": queue,
        "container": container,
        "indexer": indexer,
        "counting": counting,
        "bucket": name,
    }


def drain(b: dict[str, Any]) -> None:
    while poll_once(b["sqs"], b["queue"], b["indexer"], wait_s=1):
        pass


def test_an_s3_metadata_update_moves_a_document_to_finance_in_one_event_with_no_embedding(bucket):
    s3, container, counting = bucket["s3"], bucket["container"], bucket["counting"]
    s3.put_object(
        Bucket=bucket["bucket"],
        Key="finance/cierre.md",
        Body=DOC.encode(),
        Metadata={"sabio-read": "group:all"},
    )
    drain(bucket)
    assert reads(container, "k-app") and reads(container, "k-finance")
    embedded, outcomes = counting.texts, dict(bucket["indexer"].outcomes)
    s3.copy_object(  # the same bytes, new metadata: what the console's "Edit metadata" does
        Bucket=bucket["bucket"],
        Key="finance/cierre.md",
        CopySource={"Bucket": bucket["bucket"], "Key": "finance/cierre.md"},
        Metadata={"sabio-read": "group:finance"},
        MetadataDirective="REPLACE",
    )
    drain(bucket)
    assert bucket["indexer"].outcomes["readers"] == outcomes.get("readers", 0) + 1
    assert counting.texts == embedded
    assert not reads(container, "k-app") and reads(container, "k-finance")
    record = container.chunk_store.get_document("docs", "finance/cierre.md")
    assert record is not None and record.readers == ["group:finance"]


def test_a_reconciliation_gives_readers_to_objects_indexed_before_they_existed(bucket):
    from chalicelib.ingest.reconcile import reconcile

    s3, container, counting = bucket["s3"], bucket["container"], bucket["counting"]
    s3.put_object(
        Bucket=bucket["bucket"],
        Key="finance/q3.md",
        Body=DOC.encode(),
        Metadata={"sabio-read": "group:finance"},
    )
    drain(bucket)
    store, record = container.chunk_store, container.chunk_store.get_document("docs", "finance/q3.md")
    chunks = store.document_chunks(record.document_id)
    container.vector_index.set_readers([c.chunk_id for c in chunks], [])  # as an older Sabio left it
    store.put_chunks([c.model_copy(update={"readers": []}) for c in chunks])
    store.put_document(record.model_copy(update={"readers": None, "updated_at": record.updated_at + 1}))
    assert not reads(container, "k-finance")
    embedded = counting.texts
    report = reconcile(bucket["indexer"], bucket["bucket"])
    assert report.stale == ["finance/q3.md"] and counting.texts == embedded
    assert reads(container, "k-finance") and not reads(container, "k-app")
    assert reconcile(bucket["indexer"], bucket["bucket"]).drift == 0


def test_sabio_index_says_when_documents_are_for_no_one(tmp_path, capsys, monkeypatch):
    """Where a server on these settings reads as someone (here, API keys): without any, every request reads
    every document and the notice would say nothing true (tests/test_newcomer.py)."""
    from sabio import cli

    monkeypatch.setenv("SABIO_AUTH", "keys")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "cierre.md").write_text(DOC, encoding="utf-8")
    (folder / "horario.md").write_text(
        "---\nsabio-read: public\n---\n# Horario\n\nAbre a las ocho.\n", encoding="utf-8"
    )
    assert cli.main(["--store", str(tmp_path / "s.db"), "index", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "readers: 1 document(s) name no readers and get the default, none" in out
