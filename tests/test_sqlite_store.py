"""The embedded SQLite store passes the shared store contract, and keeps its promises across processes."""

from __future__ import annotations

import pytest

from chalicelib.models.records import SearchFilters
from chalicelib.stores.sqlite import SQLiteStore
from tests.store_contract import CORPUS, EMB, ID, SPACE, StoreContract, chunk


class TestSQLiteStore(StoreContract):
    @pytest.fixture
    def make(self, tmp_path):  # type: ignore[no-untyped-def]
        stores: list[SQLiteStore] = []

        def factory() -> SQLiteStore:
            stores.append(SQLiteStore(tmp_path / f"s{len(stores)}.db"))
            return stores[-1]

        yield factory
        for s in stores:
            s.close()


def test_vector_matrix_is_rebuilt_when_another_connection_writes(tmp_path):
    path = tmp_path / "shared.db"
    reader, writer = SQLiteStore(path), SQLiteStore(path)
    writer.put_chunks(CORPUS[:1])
    writer.upsert_chunks(CORPUS[:1], SPACE)
    assert [h.chunk_id for h in reader.dense_search(EMB.embed_query("plan"), SPACE, SearchFilters(), 5)] == [
        ID["c1"]
    ]
    extra = chunk(ID["c9"], "plan nuevo")
    writer.put_chunks([extra])
    writer.upsert_chunks([extra], SPACE)
    assert {h.chunk_id for h in reader.dense_search(EMB.embed_query("plan"), SPACE, SearchFilters(), 5)} == {
        ID["c1"],
        ID["c9"],
    }


def test_stats_name_the_embedding_model(tmp_path):
    s = SQLiteStore(tmp_path / "s.db")
    s.put_chunks(CORPUS)
    s.upsert_chunks(CORPUS, SPACE)
    assert s.stats().embedding == {"model_id": SPACE.model_id, "dim": SPACE.dim}


def test_the_store_survives_reopening(tmp_path):
    path = tmp_path / "s.db"
    s = SQLiteStore(path)
    s.put_chunks(CORPUS)
    s.upsert_chunks(CORPUS, SPACE)
    s.close()
    again = SQLiteStore(path)
    assert again.space() == SPACE
    assert again.keyword_search("automatizaciones", SearchFilters(), 3)[0].chunk_id == ID["c2"]
