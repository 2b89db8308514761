"""Hubness (CSLS) in the embedded store: a chunk close to everything no longer comes first for every
question; each row's neighbours stay exact as the store changes, are saved beside it, and a failure to
compute them leaves plain cosine ranking."""

from __future__ import annotations

import numpy as np
import pytest

from chalicelib.models.records import EmbeddingSpace, SearchFilters
from chalicelib.retrieve.retriever import RetrievalConfig
from chalicelib.stores.sqlite import SQLiteStore
from chalicelib.stores.sqlite.search import hubness
from chalicelib.stores.sqlite.search.hubness import K, Neighbours, sync
from tests.store_contract import chunk

SPACE = EmbeddingSpace("test-space", 384)
WEIGHT = RetrievalConfig().hubness_weight  # what retrieve asks for


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


def brute(matrix: np.ndarray) -> np.ndarray:
    scores = matrix @ matrix.T
    np.fill_diagonal(scores, -np.inf)
    return -np.sort(-scores, axis=1)[:, :K]


def test_neighbours_stay_exact_as_rows_come_and_go() -> None:
    rng = np.random.default_rng(0)
    matrix = unit(rng.normal(size=(60, 24)))
    rids = np.arange(60)
    first = sync(Neighbours.empty(), rids, matrix)
    assert np.allclose(first.sims, brute(matrix))
    more = np.vstack([matrix, unit(rng.normal(size=(40, 24)))])
    kept = np.ones(100, dtype=bool)
    kept[[2, 5, 9, 33, 61, 62, 80]] = False  # some of the first rows' neighbours go, some new rows too
    later = sync(first, np.arange(100)[kept], more[kept])
    assert np.array_equal(later.rids, np.arange(100)[kept])
    assert np.allclose(later.sims, brute(more[kept]))
    assert set(later.ids.ravel().tolist()) <= set(np.arange(100)[kept].tolist())
    alone = sync(Neighbours.empty(), np.arange(1), matrix[:1])
    assert alone.hubness().tolist() == [0.0]  # no neighbour: nothing to take off


def hub_store(path) -> tuple[SQLiteStore, np.ndarray, str, str]:  # type: ignore[no-untyped-def]
    """A changelog-like family of 12 near-identical entries close to the question, and the one chunk that
    answers it, a little less close by cosine."""
    rng = np.random.default_rng(7)
    base = unit(rng.normal(size=384))
    question = unit(base + 0.9 * unit(rng.normal(size=384)))
    chunks = []
    for n in range(12):
        c = chunk(f"log{n}", f"release {n}", ctype="changelog")
        c.vector = unit(base + 0.15 * unit(rng.normal(size=384))).tolist()
        chunks.append(c)
    answer = chunk("answer", "the answer")
    answer.vector = unit(question + 0.9 * unit(rng.normal(size=384))).tolist()
    for n in range(30):  # the rest of the store, unrelated
        c = chunk(f"other{n}", f"other {n}")
        c.vector = unit(rng.normal(size=384)).tolist()
        chunks.append(c)
    store = SQLiteStore(path)
    store.upsert_chunks([*chunks, answer], SPACE)
    return store, question, answer.chunk_id, chunks[0].chunk_id


def test_a_chunk_near_everything_no_longer_comes_first(tmp_path) -> None:
    store, question, answer, _ = hub_store(tmp_path / "store.db")
    try:
        plain = [h.chunk_id for h in store.dense_search(question, SPACE, SearchFilters(), 15)]
        assert plain.index(answer) == 12  # by cosine the twelve changelog entries lead
        csls = store.dense_search(question, SPACE, SearchFilters(), 5, hubness=WEIGHT)
        assert csls[0].chunk_id == answer
        # the filter still applies, and the scores are the cosine minus the hubness
        only = store.dense_search(
            question, SPACE, SearchFilters(content_types=("changelog",)), 3, hubness=WEIGHT
        )
        assert only and all(h.chunk_id.endswith(tuple(f"log{n}" for n in range(12))) for h in only)
        cosine = {h.chunk_id: h.score for h in store.dense_search(question, SPACE, SearchFilters(), 50)}
        assert all(h.score < cosine[h.chunk_id] for h in csls)
    finally:
        store.close()


def test_neighbours_are_saved_beside_the_store_and_follow_deletions(tmp_path, monkeypatch) -> None:
    path = tmp_path / "store.db"
    store, question, answer, hub = hub_store(path)
    store.dense_search(question, SPACE, SearchFilters(), 5, hubness=WEIGHT)
    store.close()
    saved = Neighbours.load(tmp_path / "store.db.hubness.npz", SQLiteStore(path).store_id)
    assert saved is not None and len(saved[0].rids) == 43 and saved[1] is not None

    calls: list[int] = []
    real = hubness.sync

    def counting(known, rids, matrix, k=K, plan=None):  # type: ignore[no-untyped-def]
        calls.append(hubness.pending(known, rids).pairs)
        return real(known, rids, matrix, k, plan)

    monkeypatch.setattr("chalicelib.stores.sqlite.vectors.sync", counting)
    reopened = SQLiteStore(path)
    try:
        assert (
            reopened.dense_search(question, SPACE, SearchFilters(), 1, hubness=WEIGHT)[0].chunk_id == answer
        )
        assert calls == [0]  # loaded: no row compared again
        # the changelog family goes, but one entry: it is near nothing now, and its cosine decides again
        reopened.delete_chunks([f"{hub.rsplit(':', 1)[0]}:log{n}" for n in range(1, 12)])
        plain = reopened.dense_search(question, SPACE, SearchFilters(), 3)
        csls = reopened.dense_search(question, SPACE, SearchFilters(), 3, hubness=WEIGHT)
        assert calls[-1] > 0
        assert [h.chunk_id for h in csls][:2] == [h.chunk_id for h in plain][:2]
    finally:
        reopened.close()


def test_neighbours_that_cannot_be_computed_leave_cosine_ranking(tmp_path, monkeypatch, caplog) -> None:
    store, question, _, _ = hub_store(tmp_path / "store.db")

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise MemoryError("no room")

    monkeypatch.setattr("chalicelib.stores.sqlite.vectors.sync", broken)
    try:
        plain = store.dense_search(question, SPACE, SearchFilters(), 5)
        asked = store.dense_search(question, SPACE, SearchFilters(), 5, hubness=WEIGHT)
        assert [h.chunk_id for h in asked] == [h.chunk_id for h in plain]
        assert "hubness failed" in caplog.text
    finally:
        store.close()


@pytest.mark.parametrize("inline", [True, False])
def test_a_large_update_runs_in_the_background_and_then_applies(tmp_path, monkeypatch, inline) -> None:
    if not inline:
        monkeypatch.setattr("chalicelib.stores.sqlite.vectors.HUB_INLINE", 0)
    store, question, answer, _ = hub_store(tmp_path / "store.db")
    try:
        first = store.dense_search(question, SPACE, SearchFilters(), 1, hubness=WEIGHT)[0].chunk_id
        assert (first == answer) is inline  # in the background: cosine until the neighbours are there
        store.warm()
        assert store.dense_search(question, SPACE, SearchFilters(), 1, hubness=WEIGHT)[0].chunk_id == answer
    finally:
        store.close()


def test_a_store_created_again_at_the_same_path_does_not_read_the_old_neighbours(tmp_path) -> None:
    """Deleting store.db and indexing anew starts the rids again: the neighbours file left beside it names
    other rows, and must not be read as this store's."""
    path = tmp_path / "store.db"
    store, question, _, _ = hub_store(path)
    store.dense_search(question, SPACE, SearchFilters(), 5, hubness=WEIGHT)
    store.close()
    for leftover in (path, tmp_path / "store.db-wal", tmp_path / "store.db-shm"):
        leftover.unlink(missing_ok=True)
    assert (tmp_path / "store.db.hubness.npz").exists()
    rng = np.random.default_rng(11)
    fresh = SQLiteStore(path)
    try:
        chunks = []
        for n in range(20):
            c = chunk(f"new{n}", f"new {n}")
            c.vector = unit(rng.normal(size=384)).tolist()
            chunks.append(c)
        fresh.upsert_chunks(chunks, SPACE)
        question = np.asarray(chunks[0].vector, dtype=np.float32)
        hits = fresh.dense_search(question, SPACE, SearchFilters(), 20, hubness=WEIGHT)
        _, rids, matrix = fresh.file.load_matrix()
        truth = brute(matrix).mean(axis=1)  # every row's own neighbours in this store
        cosine = {h.chunk_id: h.score for h in fresh.dense_search(question, SPACE, SearchFilters(), 20)}
        ids = fresh.file.chunk_ids([int(r) for r in rids])
        expected = {
            ids[int(r)][0]: cosine[ids[int(r)][0]] - WEIGHT * float(t)
            for r, t in zip(rids, truth, strict=True)
        }
        assert {h.chunk_id: h.score for h in hits} == pytest.approx(expected, abs=1e-5)
    finally:
        fresh.close()


def test_a_store_whose_folder_cannot_be_written_still_ranks_by_hubness(tmp_path, monkeypatch, caplog) -> None:
    store, question, answer, _ = hub_store(tmp_path / "store.db")

    def read_only(self, path, owner, checks):  # type: ignore[no-untyped-def]
        raise PermissionError(13, "Read-only file system", str(path))

    monkeypatch.setattr(Neighbours, "save", read_only)
    try:
        assert store.dense_search(question, SPACE, SearchFilters(), 1, hubness=WEIGHT)[0].chunk_id == answer
        assert "could not save the rows' neighbours" in caplog.text
        assert not (tmp_path / "store.db.hubness.npz").exists()
    finally:
        store.close()
