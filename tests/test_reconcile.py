"""Reconciliation: moto's S3 and a real SQLite manifest with drift injected (an object never indexed, a row
whose object is gone, an edit whose event was lost); one run repairs all three, a second finds nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.index_status import index_status
from chalicelib.ingest.indexer import Ingestor
from chalicelib.ingest.reconcile import reconcile
from chalicelib.ingest.s3_events import ObjectEvent
from chalicelib.ingest.s3_indexer import S3Indexer
from chalicelib.models.records import SearchFilters
from chalicelib.stores.sqlite import SQLiteStore

FILES = {f"faq/q{n}.md": f"# Pregunta {n}\n\nLa respuesta número {n} es la correcta.\n" for n in range(8)}


@pytest.fixture
def bucket(tmp_path: Path, fake_embedder) -> Iterator[tuple[object, S3Indexer, SQLiteStore]]:  # type: ignore[no-untyped-def]
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="docs")
        store = SQLiteStore(tmp_path / "s.db")
        indexer = S3Indexer(Ingestor(store, store, fake_embedder, Vocabulary()), store, s3, {})
        files = {
            **FILES,
            "edit.md": "# Horario\n\nAbrimos a las ocho.\n",
            "gone.md": "# Viejo\n\nPágina antigua.\n",
        }
        for n, (key, text) in enumerate(files.items()):  # each put and its event, as the pipeline sees them
            etag = s3.put_object(Bucket="docs", Key=key, Body=text.encode())["ETag"].strip('"')
            assert (
                indexer.apply(ObjectEvent("docs", key, "created", f"time:2026-12-01T00:00:{n:02d}", etag))
                == "indexed"
            )
        yield s3, indexer, store


def found(store: SQLiteStore, text: str) -> bool:
    return bool(store.keyword_search(text, SearchFilters(), 5))


def test_one_run_repairs_every_kind_of_drift_and_a_second_finds_none(bucket):  # type: ignore[no-untyped-def]
    s3, indexer, store = bucket
    s3.put_object(
        Bucket="docs", Key="new.md", Body=b"# Nuevo\n\nEl servicio de mensajeria llega el martes.\n"
    )
    s3.delete_object(Bucket="docs", Key="gone.md")
    s3.put_object(Bucket="docs", Key="edit.md", Body=b"# Horario\n\nAbrimos a las diez.\n")  # events lost

    looked = reconcile(indexer, "docs", repair=False)
    assert (looked.missing, looked.stale, looked.orphaned) == (["new.md"], ["edit.md"], ["gone.md"])
    assert found(store, "antigua") and not found(store, "martes")  # looking repairs nothing

    fixed = reconcile(indexer, "docs")
    assert fixed.drift == 3 and not fixed.failed and not fixed.held
    assert found(store, "martes") and found(store, "diez") and not found(store, "ocho")
    assert not found(store, "antigua") and store.get_document("docs", "gone.md").status == "deleted"  # type: ignore[union-attr]

    again = reconcile(indexer, "docs")
    assert again.drift == 0 and again.listed == len(FILES) + 2


def test_a_bucket_emptied_behind_the_pipelines_back_is_held(bucket):  # type: ignore[no-untyped-def]
    s3, indexer, store = bucket
    for key in FILES:
        s3.delete_object(Bucket="docs", Key=key)
    held = reconcile(indexer, "docs")
    assert sorted(held.held) == sorted(FILES) and found(store, "respuesta")
    assert len(index_status(store).held_deletions) == len(FILES)
    confirmed = reconcile(indexer, "docs", confirmed=True)
    assert (
        sorted(confirmed.orphaned) == sorted(FILES) and not confirmed.held and not found(store, "respuesta")
    )
    assert reconcile(indexer, "docs").drift == 0


def test_the_scheduled_handler_reconciles_each_bucket_and_reports_metrics(bucket, monkeypatch, capsys):  # type: ignore[no-untyped-def]
    from chalicelib.telemetry import Telemetry
    from indexer import handler

    s3, indexer, store = bucket
    indexer.source_map = {"docs": "docs"}
    indexer.telemetry = Telemetry("indexer", on=True)
    monkeypatch.setattr(handler, "_indexer", indexer)
    s3.put_object(Bucket="docs", Key="new.md", Body=b"# Nuevo\n\nEl martes llega el pedido.\n")
    capsys.readouterr()
    assert handler.reconcile({}, None) == {"docs": {"missing": 1, "stale": 0, "orphaned": 0, "held": 0}}
    out = capsys.readouterr().out
    assert '"ReconcileMissing"' in out and found(store, "martes")


def test_a_burst_of_removal_events_is_held_across_indexers(bucket, fake_embedder):  # type: ignore[no-untyped-def]
    """Someone empties a folder of the bucket: past the floor (5) and the share (20 %), each removal event is
    held, whichever indexer container gets it (the count is the store's); the reconciliation confirms."""
    s3, first, store = bucket
    first.ledger = store
    second = S3Indexer(first.ingestor, store, s3, {}, ledger=store)  # another warm container
    for n, key in enumerate(sorted(FILES)):
        s3.delete_object(Bucket="docs", Key=key)
        indexer = (first, second)[n % 2]
        indexer.apply(ObjectEvent("docs", key, "removed", f"time:2026-12-02T00:00:{n:02d}"))
    held = sorted(d.key for d in store.list_documents("docs") if d.delete_held_at and d.status != "deleted")
    deleted = sorted(d.key for d in store.list_documents("docs") if d.status == "deleted")
    assert len(deleted) == 5 and len(held) == len(FILES) - 5 and found(store, "respuesta")
    assert [h.key for h in index_status(store).held_deletions] == held

    s3.put_object(Bucket="docs", Key=held[0], Body=FILES[held[0]].encode())  # one was put back
    first.apply(ObjectEvent("docs", held[0], "created", "time:2026-12-02T01:00:00", "x"))
    assert [h.key for h in index_status(store).held_deletions] == held[1:]
    confirmed = reconcile(first, "docs", confirmed=True)
    assert sorted(confirmed.orphaned) == held[1:] and index_status(store).held_deletions == []
