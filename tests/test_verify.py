"""`sabio verify` finds and repairs what a lost write leaves behind; a failed write rolls itself back."""

from __future__ import annotations

import subprocess
import sys

from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.indexer import Ingestor
from chalicelib.ingest.verify import verify
from chalicelib.models.records import SearchFilters
from tests.conftest import ROOT
from tests.store_contract import chunk


def test_verify_finds_and_repairs_a_deleted_vector_and_an_orphaned_chunk(
    ingestor: Ingestor, corpus, store, fake_embedder
):
    ingestor.index_folder(corpus, "ex")
    assert verify(store, store, fake_embedder).ok
    lost = store.document_chunks(store.get_document("ex", "faq/faq.md").document_id)[0]
    store.delete_vectors([lost.chunk_id])  # a vector write that never landed
    orphan = chunk("orphan", "un fragmento sin documento", doc="nadie", source="ex")
    store.put_chunks([orphan])  # a chunk whose document is gone

    report = verify(store, store, fake_embedder)
    assert report.missing_vectors == [lost.chunk_id] and report.orphan_chunks == [orphan.chunk_id]
    assert not report.ok

    repaired = verify(store, store, fake_embedder, repair=True)
    assert repaired.repaired
    after = verify(store, store, fake_embedder)
    assert after.ok and store.get_chunks([orphan.chunk_id]) == []
    assert lost.chunk_id in {h.chunk_id for h in store.keyword_search("refunds", SearchFilters(), 10)}


def test_the_cli_exit_status_says_whether_the_stores_agree(tmp_path, corpus):
    db = tmp_path / "s.db"
    run = [sys.executable, "-m", "sabio.cli", "--store", str(db)]
    subprocess.run(
        [*run, "index", str(corpus / "faq"), "--source-id", "faq"], cwd=ROOT, check=True, capture_output=True
    )
    from chalicelib.stores.sqlite import SQLiteStore

    s = SQLiteStore(db)
    s.delete_vectors([next(iter(s.all_chunk_ids()))])
    s.close()
    bad = subprocess.run([*run, "verify"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 1 and "missing vectors: 1" in bad.stdout
    fixed = subprocess.run([*run, "verify", "--repair"], cwd=ROOT, capture_output=True, text=True)
    assert fixed.returncode == 0 and "repaired" in fixed.stdout
    assert "consistent" in subprocess.run([*run, "verify"], cwd=ROOT, capture_output=True, text=True).stdout


class FailingIndex:
    """The real store, except that vector writes fail: an OpenSearch outage in the middle of a re-index."""

    def __init__(self, store):  # type: ignore[no-untyped-def]
        self.store = store

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        return getattr(self.store, name)

    def upsert_chunks(self, chunks, space):  # type: ignore[no-untyped-def]
        raise ConnectionError("index unavailable")


def test_a_failure_half_way_leaves_the_previous_version_searchable_and_the_stores_consistent(
    store, fake_embedder, tmp_path
):
    folder = tmp_path / "d"
    folder.mkdir()
    doc = folder / "tarifas.md"
    doc.write_text("# Tarifas\n\nEl plan anual tiene un descuento del veinte por ciento.\n", encoding="utf-8")
    Ingestor(store, store, fake_embedder, Vocabulary()).index_folder(folder, "s")
    doc.write_text("# Tarifas\n\nAhora el descuento anual es del treinta por ciento.\n", encoding="utf-8")

    report = Ingestor(store, FailingIndex(store), fake_embedder, Vocabulary()).index_folder(folder, "s")

    assert not report.ok and "index unavailable" in report.failed[0][1]
    hits = store.get_chunks([h.chunk_id for h in store.keyword_search("descuento", SearchFilters(), 5)])
    assert [("veinte" in c.content) for c in hits] == [True]
    assert verify(store, store, fake_embedder).ok  # no half-written version left in either store
