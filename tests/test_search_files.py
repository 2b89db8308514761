"""The search files kept beside the embedded store (vectors, BM25 postings, in segments): a process opening the
store reads them instead of rebuilding them, answers exactly as a store without them does, and survives
their being cut short by a kill -9, written by another store, or left behind by a restored copy."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.indexer import Ingestor
from chalicelib.ingest.verify import verify
from chalicelib.models.records import SearchFilters
from chalicelib.stores.sqlite import SQLiteStore
from chalicelib.stores.sqlite import words as sqlite_words
from chalicelib.stores.sqlite.search import matrix, segments
from chalicelib.stores.sqlite.search.bm25_index import Segment
from tests.conftest import EXAMPLES, ROOT
from tests.fakes import HashEmbedder
from tests.test_bm25_index import FILTERS, QUESTIONS, assert_same, fts5

EMB = HashEmbedder()


def answers(store: SQLiteStore) -> list[list[tuple[str, float]]]:
    """What the store answers: BM25 and dense lists (cosine, and with each row's hubness) for every question
    under every filter."""
    out = []
    for filters in FILTERS:
        for q in QUESTIONS:
            out.append([(h.chunk_id, round(h.score, 9)) for h in store.keyword_search(q, filters, 10)])
            for hubness in (0.0, 0.5):
                dense = store.dense_search(EMB.embed_query(q), EMB.space, filters, 10, hubness)
                out.append([(h.chunk_id, round(h.score, 6)) for h in dense])
    return out


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    if not folder.exists():
        shutil.copytree(EXAMPLES, folder)
        shutil.copytree(ROOT / "tests" / "fixtures" / "polyglot", folder / "polyglot")
    return folder


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    path = tmp_path / "store.db"
    store = SQLiteStore(path)
    assert Ingestor(store, store, EMB, Vocabulary()).index_folder(corpus(tmp_path), "docs").ok
    store.warm()
    store.close()
    return path


def test_opening_reads_the_search_files_instead_of_rebuilding_them(indexed, monkeypatch):
    before = SQLiteStore(indexed)
    expected = answers(before)
    before.close()
    assert (indexed.parent / "store.db.search" / "segments.json").is_file()

    def no_rebuild(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a row was read from SQLite again")

    monkeypatch.setattr(sqlite_words.Words, "_analysed", no_rebuild)
    monkeypatch.setattr(matrix, "_read_rows", lambda conn, rids, rows, m: len(rows) and no_rebuild())
    reopened = SQLiteStore(indexed)
    assert answers(reopened) == expected
    assert assert_same(reopened) >= 40  # FTS5's own scores, from the postings read back
    reopened.close()


def test_rows_added_after_the_files_were_saved_are_built_and_saved_too(indexed, tmp_path):
    store = SQLiteStore(indexed)
    page = tmp_path / "more"
    page.mkdir()
    (page / "new.md").write_text("# Berenjenas\n\nBerenjenas asadas con miel y comino.", encoding="utf-8")
    assert Ingestor(store, store, EMB, Vocabulary()).index_folder(page, "more").ok
    store.warm()
    expected = answers(store)
    store.close()
    reopened = SQLiteStore(indexed)
    assert reopened.file.segments.uncovered(reopened.file.load_matrix()[1]).size == 0
    assert answers(reopened) == expected
    assert reopened.keyword_search("berenjenas", SearchFilters(), 1)
    reopened.close()


def test_small_segments_and_deleted_rows_are_merged_away_with_the_same_answers(
    indexed, tmp_path, monkeypatch
):
    monkeypatch.setattr(segments, "TIER", 2)
    store = SQLiteStore(indexed)
    ingestor = Ingestor(store, store, EMB, Vocabulary())
    for n in range(5):  # one small segment per change
        folder = tmp_path / f"more{n}"
        folder.mkdir()
        (folder / "p.md").write_text(f"# Página {n}\n\nTexto número {n} sobre facturas.", encoding="utf-8")
        assert ingestor.index_folder(folder, f"more{n}").ok
        store.warm()
    for doc in store.list_documents("docs")[:12]:
        store.delete_document(doc.document_id)
    store.warm()
    assert len(store.file.segments._list) <= 4
    assert assert_same(store) >= 20
    expected = answers(store)
    store.close()
    folder = indexed.parent / "store.db.search"
    assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == sorted(
        __import__("json").loads((folder / "segments.json").read_text())["segments"]
    )  # the merged-away folders are gone
    reopened = SQLiteStore(indexed)
    assert answers(reopened) == expected
    reopened.close()


def test_files_of_another_store_or_of_rows_a_restored_copy_lacks_are_not_used(indexed, tmp_path, monkeypatch):
    monkeypatch.setattr(segments, "STALE", 1.0)  # a segment is kept however many of its rows are gone
    backup = tmp_path / "backup.db"
    store = SQLiteStore(indexed)
    store.close()
    shutil.copy(indexed, backup)  # a copy of the store as it is now (its WAL checkpointed on close)
    store = SQLiteStore(indexed)
    folder = tmp_path / "later"
    folder.mkdir()
    (folder / "a.md").write_text("# Zanahorias\n\nZanahorias moradas de temporada.", encoding="utf-8")
    assert Ingestor(store, store, EMB, Vocabulary()).index_folder(folder, "later").ok
    store.warm()  # saved: a segment of rows the copy does not have
    held = store.file.segments
    held._list = [Segment.merged([(s, np.ones(len(s.rids), dtype=bool)) for s in held._list])]
    held._dirty = True  # ... merged with the rows it has, into one segment
    held.persist(wait=True)
    store.close()
    shutil.copy(backup, indexed)  # restored; its next rows take the same ids with other texts
    for extra in ("-wal", "-shm"):
        Path(f"{indexed}{extra}").unlink(missing_ok=True)
    restored = SQLiteStore(indexed)
    assert restored.keyword_search("planes", SearchFilters(), 3)  # opened before its next rows are written
    (folder / "a.md").write_text("# Berenjenas\n\nBerenjenas asadas con miel.", encoding="utf-8")
    assert Ingestor(restored, restored, EMB, Vocabulary()).index_folder(folder, "later").ok
    assert not restored.keyword_search("zanahorias", SearchFilters(), 3)
    assert restored.keyword_search("berenjenas", SearchFilters(), 3)
    assert assert_same(restored) >= 40
    fresh = SQLiteStore(tmp_path / "fresh.db")  # the same documents indexed afresh, nothing beside it
    assert Ingestor(fresh, fresh, EMB, Vocabulary()).index_folder(corpus(tmp_path), "docs").ok
    assert Ingestor(fresh, fresh, EMB, Vocabulary()).index_folder(folder, "later").ok
    assert answers(restored) == answers(fresh)  # BM25, cosine and each row's neighbours (hubness) alike
    restored.close()
    fresh.close()

    other = tmp_path / "other.db"  # another store, given this one's search files (its rows have the same ids)
    fresh = SQLiteStore(other)
    assert Ingestor(fresh, fresh, EMB, Vocabulary()).index_folder(folder, "later").ok
    fresh.close()
    shutil.copytree(indexed.parent / "store.db.search", tmp_path / "other.db.search")
    fresh = SQLiteStore(other)
    assert fresh.keyword_search("faro", SearchFilters(), 10) == []  # the examples' word, in the copied files
    asked = "berenjenas con miel"
    assert [h.chunk_id for h in fresh.keyword_search(asked, SearchFilters(), 10)] == [
        c for c, _ in fts5(fresh, asked, SearchFilters(), 10)
    ]
    fresh.close()


def test_unreadable_files_are_rebuilt(indexed):
    store = SQLiteStore(indexed)
    expected = answers(store)
    store.close()
    folder = indexed.parent / "store.db.search"
    segment = next(p for p in folder.iterdir() if p.is_dir())
    (segment / "docs.npy").write_bytes((segment / "docs.npy").read_bytes()[:100])  # cut short
    reopened = SQLiteStore(indexed)
    assert answers(reopened) == expected
    reopened.close()
    (folder / "segments.json").write_text("{not json", encoding="utf-8")
    reopened = SQLiteStore(indexed)
    assert answers(reopened) == expected
    reopened.warm()  # and written again
    reopened.close()
    assert SQLiteStore(indexed).file.segments.files.load()  # type: ignore[union-attr]


# a writer of the search files that never stops: every segment written again, the list replaced, the
# previous folders removed, round after round, until it is killed
WRITER = """
import sys
from chalicelib.stores.sqlite import SQLiteStore
store = SQLiteStore(sys.argv[1])
store.warm()
files = store.file.segments.files
print("writing", flush=True)
while True:
    segments = list(store.file.segments._list)
    for s in segments:
        s.name = None
    files.save(segments)
"""


@pytest.mark.slow
def test_a_kill_9_while_the_search_files_are_written_leaves_a_store_that_opens_and_answers_the_same(indexed):
    reference = SQLiteStore(indexed)
    expected = answers(reference)
    reference.close()
    folder = indexed.parent / "store.db.search"
    cut_short = 0
    rng = np.random.default_rng(52)
    for round_ in range(10):
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(indexed)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None and child.stdout.readline().strip() == "writing"
        if round_ % 2:  # the moment a segment's folder is half written
            deadline = time.monotonic() + 10
            while not any(p.suffix == ".partial" for p in folder.iterdir()) and time.monotonic() < deadline:
                pass
        else:
            time.sleep(float(rng.uniform(0.0, 0.3)))
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        leftovers = [p for p in folder.iterdir() if p.suffix in (".partial", ".tmp")]
        cut_short += bool(leftovers)

        store = SQLiteStore(indexed)
        report = verify(store, store, EMB)
        assert report.ok, report
        assert answers(store) == expected, f"round {round_}"
        store.close()
    assert cut_short >= 3  # the kills did land in the middle of writes


def test_while_another_process_writes_them_a_save_waits_for_the_next_change(indexed, tmp_path):
    import fcntl

    store = SQLiteStore(indexed)
    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "a.md").write_text("# Berenjenas\n\nBerenjenas asadas con miel.", encoding="utf-8")
    assert Ingestor(store, store, EMB, Vocabulary()).index_folder(folder, "more").ok
    listed = (indexed.parent / "store.db.search" / "segments.json").read_text()
    with open(indexed.parent / "store.db.search" / "lock", "a+b") as other:
        fcntl.flock(other, fcntl.LOCK_EX)  # another process is writing them
        assert store.keyword_search("berenjenas", SearchFilters(), 1)  # answered from memory meanwhile
        store.file.segments.settle()
        assert (indexed.parent / "store.db.search" / "segments.json").read_text() == listed
        fcntl.flock(other, fcntl.LOCK_UN)
    store.warm()  # the next save writes what the skipped one would have
    assert (indexed.parent / "store.db.search" / "segments.json").read_text() != listed
    store.close()
    reopened = SQLiteStore(indexed)
    assert reopened.file.segments.uncovered(reopened.file.load_matrix()[1]).size == 0
    reopened.close()
