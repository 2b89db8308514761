"""The embedded SQLite store passes the shared store contract, and keeps its promises across processes."""

from __future__ import annotations

import sqlite3

import pytest

from chalicelib.models.records import DocumentRecord, SearchFilters
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


def test_a_store_of_the_first_schema_is_migrated_in_order(tmp_path):
    # a store written before the S3 bookkeeping and code columns existed: schema 1 as it was created then
    import sqlite3

    from chalicelib.models.records import DocumentRecord
    from chalicelib.stores.sqlite import file as sqlite_file

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(sqlite_file._SCHEMA)
        conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
        conn.execute(
            "INSERT INTO documents (document_id, source_id, key, content_hash, status, title, lang, chunk_count,"
            " updated_at) VALUES ('d', 's', 'k', 'h', 'indexed', 'T', 'es', 0, 0)"
        )
    store = SQLiteStore(path)
    assert store.file.query("SELECT value FROM meta WHERE key = 'schema_version'")[0][0] == str(
        sqlite_file.SCHEMA_VERSION
    )
    kept = store.get_document("s", "k")
    assert kept is not None and kept.etag is None  # the old row, with the new columns' defaults
    store.put_document(DocumentRecord(document_id="d2", source_id="s", key="k2", status="indexed", etag="e"))
    assert store.get_document("s", "k2").etag == "e"  # type: ignore[union-attr]
    store.put_chunks(CORPUS)
    store.upsert_chunks(CORPUS, SPACE)  # the code columns are there too
    assert store.keyword_search("automatizaciones", SearchFilters(), 3)[0].chunk_id == ID["c2"]


def test_a_store_an_older_sabio_reopened_opens_again_and_keeps_the_newer_mark(tmp_path):
    """Rolled back, then forward: an older Sabio wrote its own schema version over a newer store's. The newer
    one opens it again (its migrations find their columns there) and never marks a store older than it is."""
    from chalicelib.stores.sqlite import file as sqlite_file

    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    store.put_document(DocumentRecord(document_id="d", source_id="s", key="k", delete_held_at=5.0))
    store.close()
    with sqlite3.connect(path) as conn:  # what the older code's open did to the mark
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    again = SQLiteStore(path)
    assert again.get_document("s", "k").delete_held_at == 5.0  # type: ignore[union-attr]
    again.close()
    with sqlite3.connect(path) as conn:  # a newer Sabio's store, opened by this one
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    SQLiteStore(path).close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "99"
    assert sqlite_file.SCHEMA_VERSION < 99
