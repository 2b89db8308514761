"""The embedded store's HNSW index (usearch, for real): it finds what exact search finds, keeps filters,
follows the store's changes, and is saved beside the SQLite file."""

from __future__ import annotations

import numpy as np
import pytest

from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.indexer import Ingestor
from chalicelib.models.records import SearchFilters
from chalicelib.stores.sqlite import SQLiteStore
from chalicelib.stores.sqlite.search import ann_index
from chalicelib.stores.sqlite.search.ann_index import AnnIndex, exact
from tests.conftest import EXAMPLES
from tests.fakes import HashEmbedder


def unit(rows: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(rows, 384)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def vectors() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # topics, as real embeddings have them (uniform random points in 384 dimensions are all equally far apart)
    topics = unit(60, 3)
    matrix = topics[np.arange(6000) % 60] + 0.6 * unit(6000, 1)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    rids = np.arange(10, 6010, dtype=np.int64)
    queries = matrix[:40] + 0.5 * unit(40, 2)  # near a stored vector, not on it
    return rids, matrix, queries / np.linalg.norm(queries, axis=1, keepdims=True)


def recall(index: AnnIndex, rids, matrix, queries, rows) -> float:  # type: ignore[no-untyped-def]
    found = 0
    for q in queries:
        approx, _ = index.search(q, 10, rids, matrix, rows)
        truth, _ = exact(q, 10, matrix, rows)
        assert rows is None or np.isin(approx, rows).all()  # a filter is never crossed
        assert len(approx) == 10
        found += len(set(approx.tolist()) & set(truth.tolist()))
    return found / (10 * len(queries))


def test_hnsw_finds_what_exact_search_finds_with_and_without_a_filter(vectors, monkeypatch):
    rids, matrix, queries = vectors
    index = AnnIndex(384)
    assert index.sync(rids, matrix) == len(rids)
    assert recall(index, rids, matrix, queries, None) >= 0.95
    monkeypatch.setattr(ann_index, "EXACT_ROWS", 0)  # the graph, asked for enough neighbours, then filtered
    assert recall(index, rids, matrix, queries, np.arange(0, len(rids), 3)) >= 0.95


def test_the_index_follows_the_store_and_is_saved_beside_it(vectors, tmp_path):
    rids, matrix, queries = vectors
    path = tmp_path / "store.db.usearch"
    assert AnnIndex(384, path).sync(rids, matrix) == len(rids)
    assert path.exists()
    reopened = AnnIndex(384, path)
    assert len(reopened) == len(rids) and reopened.sync(rids, matrix) == 0  # loaded, nothing rebuilt
    kept = np.ones(len(rids), dtype=bool)
    kept[:100] = False
    assert reopened.sync(rids[kept], matrix[kept]) == 100
    at, _ = reopened.search(queries[0], 10, rids[kept], matrix[kept], None)
    assert 0 not in set(rids[kept][at].tolist()) - set(rids[kept].tolist())
    assert len(AnnIndex(384, path)) == len(rids) - 100


def test_a_graph_written_by_another_store_at_the_same_path_is_not_loaded(vectors, tmp_path):
    rids, matrix, _ = vectors
    path = tmp_path / "store.db.usearch"
    assert AnnIndex(384, path, owner="first").sync(rids[:500], matrix[:500]) == 500
    assert len(AnnIndex(384, path, owner="first")) == 500
    assert len(AnnIndex(384, path, owner="second")) == 0  # its rids name another store's rows


def test_a_store_past_ann_min_rows_searches_the_graph_and_keeps_its_filters(tmp_path):
    path = tmp_path / "store.db"
    store = SQLiteStore(path, ann_min_rows=1)
    embedder = HashEmbedder()
    assert Ingestor(store, store, embedder, Vocabulary()).index_folder(EXAMPLES, "examples").ok
    plain = SQLiteStore(path)  # the same file, exact search
    try:
        assert store.warm_ann(timeout_s=60)
        assert (tmp_path / "store.db.usearch").exists()
        question = embedder.embed_query("¿Cuánto cuesta Faro al mes?")
        for filters in (SearchFilters(), SearchFilters(langs=("en",)), SearchFilters(kinds=("code",))):
            approx = store.dense_search(question, embedder.space, filters, 5)
            truth = plain.dense_search(question, embedder.space, filters, 5)
            assert [h.chunk_id for h in approx] == [h.chunk_id for h in truth]
            assert [h.score for h in approx] == pytest.approx([h.score for h in truth], abs=1e-5)
    finally:
        plain.close()
        store.close()


def test_a_graph_that_cannot_be_built_is_reported_once_and_search_stays_exact(tmp_path, monkeypatch, caplog):
    from chalicelib.stores.sqlite import vectors as sqlite_module

    calls = []

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args)
        raise RuntimeError("no usearch here")

    monkeypatch.setattr(sqlite_module, "AnnIndex", broken)
    store = SQLiteStore(tmp_path / "store.db", ann_min_rows=1)
    embedder = HashEmbedder()
    try:
        assert Ingestor(store, store, embedder, Vocabulary()).index_folder(EXAMPLES, "examples").ok
        question = embedder.embed_query("¿Cuánto cuesta Faro al mes?")
        first = store.dense_search(question, embedder.space, SearchFilters(), 5)
        assert not store.warm_ann(timeout_s=30)
        again = store.dense_search(question, embedder.space, SearchFilters(), 5)
        assert [h.chunk_id for h in again] == [h.chunk_id for h in first] and len(first) == 5
        assert len(calls) == 1  # not retried until the store changes
        assert "building the ann index failed" in caplog.text
    finally:
        store.close()
