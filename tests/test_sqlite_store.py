"""The embedded SQLite store passes the shared store contract, and keeps its promises across processes."""

from __future__ import annotations

import sqlite3

import numpy as np
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


def _schema_5_store(path, chunks) -> None:  # type: ignore[no-untyped-def]
    """A store as Sabio wrote it at schema 5: the chunk's JSON as text with its quote vectors in base64, the
    vector in the row filters read, FTS5 with its own copy of the texts."""
    import json

    from chalicelib.stores.sqlite import schema

    with sqlite3.connect(path) as conn:
        conn.executescript(schema._SCHEMA)
        for migration in schema.MIGRATIONS[:4]:
            migration(conn)
        conn.execute("INSERT INTO meta VALUES ('schema_version', '5')")
        conn.execute("INSERT INTO meta VALUES ('embedding_model', ?)", (SPACE.model_id,))
        conn.execute("INSERT INTO meta VALUES ('embedding_dim', ?)", (str(SPACE.dim),))
        for rid, ch in enumerate(chunks, start=1):
            conn.execute(
                "INSERT INTO chunks VALUES (?, ?, ?)", (ch.chunk_id, ch.document_id, ch.model_dump_json())
            )
            conn.execute(
                "INSERT INTO vectors (rid, chunk_id, document_id, source_id, key, lang, product, content_type,"
                " category, tags, vector, readers) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    rid,
                    ch.chunk_id,
                    ch.document_id,
                    ch.source_id,
                    ch.key,
                    ch.lang,
                    ch.product,
                    ch.content_type,
                    ch.category,
                    json.dumps(ch.tags),
                    np.asarray(ch.vector, np.float32).tobytes(),
                    "[]",
                ),
            )
            conn.execute(
                "INSERT INTO chunks_fts (rowid, title, section, body, stems) VALUES (?,?,?,?,?)",
                (rid, ch.title, " ".join(ch.heading_path), ch.content, ch.content.lower()),
            )


def test_a_store_of_schema_5_is_packed_and_answers_as_before(tmp_path):
    """Migration 6: quote vectors out of the JSON (int8), the JSON compressed, the vector in a table of its
    own, FTS5 without its copy of the texts. Every chunk reads back, searches find the same rows, and a row
    written before the migration is taken out of FTS5's index cleanly."""
    from chalicelib.quotes import INT8, decode_vectors, encode_vectors
    from chalicelib.stores.sqlite import schema

    rng = np.random.default_rng(3)
    quotes = rng.normal(size=(3, SPACE.dim)).astype(np.float32)
    quotes /= np.linalg.norm(quotes, axis=1, keepdims=True)
    chunks = [c.model_copy(update={"quote_vectors": encode_vectors(quotes)}) for c in CORPUS]
    path = tmp_path / "v5.db"
    _schema_5_store(path, chunks)
    before = {
        q: [
            r[0]
            for r in sqlite3.connect(path).execute(
                "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts)", (q,)
            )
        ]
        for q in ("automatizaciones", "copias", "restore")
    }

    store = SQLiteStore(path)
    assert store.file.query("SELECT value FROM meta WHERE key = 'schema_version'")[0][0] == str(
        schema.SCHEMA_VERSION
    )
    for old, new in zip(chunks, store.get_chunks([c.chunk_id for c in chunks]), strict=True):
        assert new.model_dump(exclude={"quote_vectors"}) == old.model_dump(exclude={"quote_vectors"})
        back = decode_vectors(new.quote_vectors or "", SPACE.dim)
        # int8: each value within half a step of its block's scale (max / 127), a cosine within 5e-3 at 64 dims (1e-3 at 384)
        assert np.abs(back - quotes).max() <= np.abs(quotes).max() / 254 + 1e-3
        asked = rng.normal(size=(20, SPACE.dim))
        asked /= np.linalg.norm(asked, axis=1, keepdims=True)
        assert np.abs(asked @ back.T - asked @ quotes.T).max() < 5e-3
        assert new.quote_vectors.startswith(INT8)  # type: ignore[union-attr]  # as read back: int8 blocks
        assert np.array_equal(decode_vectors(new.quote_vectors or "", SPACE.dim), back)
    for q, rids in before.items():
        assert [
            r[0]
            for r in store.file.query(
                "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts)", (q,)
            )
        ] == rids
    assert store.keyword_search("automatizaciones", SearchFilters(), 3)[0].chunk_id == ID["c2"]
    assert store.dense_search(CORPUS[0].vector, SPACE, SearchFilters(), 1)[0].chunk_id == ID["c1"]
    assert store.stats().by_lang == {"es": 3, "en": 1} and store.stats().chunks == 4
    assert store.all_chunk_ids("s2") == {ID["c3"]: CORPUS[2].document_id}

    store.delete_chunks([ID["c2"]])  # a row the migration moved: FTS5 is told its texts to take them out
    assert store.keyword_search("automatizaciones", SearchFilters(), 3) == []
    store.file.query("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")
    assert store.file.query("SELECT count(*) FROM quotes")[0][0] == 3
    store.close()


def test_quote_vectors_of_an_odd_size_or_all_zero_read_back_as_written():
    """int8 needs whole blocks of 64 values: any other size is kept as float16, exactly; a block of zeros
    (a padded unit) stays zeros; a chunk read back and written again keeps its bytes."""
    from chalicelib.quotes import decode_vectors, encode_vectors
    from chalicelib.stores.sqlite.packing import pack_quotes, unpack_many, unpack_quotes

    odd = encode_vectors(np.linspace(-1, 1, 3 * 50, dtype=np.float32).reshape(3, 50))
    assert unpack_quotes(pack_quotes(odd)) == odd
    zeros = encode_vectors(np.zeros((2, 128), np.float32))
    assert not decode_vectors(unpack_quotes(pack_quotes(zeros)), 128).any()
    assert len(pack_quotes(zeros)) == 1 + 4 * (2 + 64)  # half of float16's 512 bytes
    some = encode_vectors(np.random.default_rng(1).normal(size=(4, 128)).astype(np.float32))
    blobs = [pack_quotes(some), pack_quotes(odd), pack_quotes(zeros)]
    assert [pack_quotes(text) for text, _ in unpack_many(blobs)] == blobs
    for (text, values), dim in zip(unpack_many(blobs), (128, 50, 128), strict=True):
        assert np.array_equal(decode_vectors(text, dim).reshape(-1), values) and not values.flags.writeable
