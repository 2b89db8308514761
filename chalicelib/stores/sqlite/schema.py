"""The embedded store's schema: version 1 as it was first written, and the numbered migrations that bring a store
of any version to the last one (a new store runs them all, on empty tables)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

import numpy as np

from chalicelib.stores.sqlite.packing import VECTOR, pack_json, pack_quotes, pack_texts

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    document_id TEXT PRIMARY KEY, source_id TEXT NOT NULL, key TEXT NOT NULL, content_hash TEXT,
    status TEXT NOT NULL, error TEXT, title TEXT, lang TEXT, chunk_count INTEGER, updated_at REAL,
    UNIQUE (source_id, key));
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, document_id TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_by_document ON chunks (document_id);
CREATE TABLE IF NOT EXISTS vectors (
    rid INTEGER PRIMARY KEY, chunk_id TEXT NOT NULL UNIQUE, document_id TEXT NOT NULL,
    source_id TEXT NOT NULL, key TEXT NOT NULL, lang TEXT, product TEXT, content_type TEXT,
    category TEXT, tags TEXT NOT NULL DEFAULT '[]', vector BLOB NOT NULL,
    kind TEXT NOT NULL DEFAULT 'doc', critical INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS vectors_by_source ON vectors (source_id, lang);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5 (
    title, section, body, stems, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS enrichment_cache (cache_key TEXT PRIMARY KEY, data TEXT NOT NULL, created_at REAL);
"""
FTS_COLUMNS = "title, section, body, stems"
_CONTENTLESS_FTS = (
    f"CREATE VIRTUAL TABLE chunks_fts USING fts5 ({FTS_COLUMNS}, content = '', "
    "tokenize = 'unicode61 remove_diacritics 2')"
)
CHUNK_COLUMNS = (
    "source_id",
    "lang",
    "product",
    "content_type",
    "category",
)  # beside the JSON: what /stats counts


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def _added(conn: sqlite3.Connection, added: dict[str, tuple[tuple[str, str], ...]]) -> None:
    for table, new_columns in added.items():
        columns = _columns(conn, table)
        for name, ddl in new_columns:
            if name not in columns:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {ddl}")


def _added_columns(conn: sqlite3.Connection) -> None:
    """2: columns added while the schema said 1 (code kinds, critical marks, S3 event bookkeeping); a store
    written before them gains them with their defaults, one that has them is left as it is."""
    _added(
        conn,
        {
            "vectors": (("kind", "TEXT NOT NULL DEFAULT 'doc'"), ("critical", "INTEGER NOT NULL DEFAULT 0")),
            "documents": (("etag", "TEXT"), ("version_id", "TEXT"), ("sequencer", "TEXT")),
        },
    )


def _held_deletions(conn: sqlite3.Connection) -> None:
    """3: when the mass-delete guard held a document's deletion (``DocumentRecord.delete_held_at``). A store
    that has the column already (opened by an older Sabio after a newer one, which wrote its own version
    back) keeps it."""
    _added(conn, {"documents": (("delete_held_at", "REAL"),)})


def _deletion_windows(conn: sqlite3.Connection) -> None:
    """4: deletions counted per source and hour, for the mass-delete guard of S3 events."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS deletion_windows (source_id TEXT NOT NULL, window TEXT NOT NULL, "
        "n INTEGER NOT NULL, PRIMARY KEY (source_id, window))"
    )


def _readers(conn: sqlite3.Connection) -> None:
    """5: who may read each chunk and document (chalicelib.access.principals). Rows written before read as no one's
    but a caller who reads everything, until their next indexing run gives them their readers."""
    _added(
        conn,
        {
            "vectors": (("readers", "TEXT NOT NULL DEFAULT '[]'"),),
            "documents": (("readers", "TEXT"), ("declared_readers", "TEXT")),
        },
    )


def _packed(conn: sqlite3.Connection) -> None:
    """6: fewer bytes a chunk (chalicelib.stores.sqlite.packing). Its quote vectors leave its JSON for a table of
    their own, as int8; the JSON is compressed, with the columns /stats counts by beside it; its vector leaves
    the row its filters are read from for a table of its own (``embeddings``); FTS5 keeps its index only, the
    texts it indexed compressed beside it (``words``). Each step is skipped where a store has it already."""
    if "vector" in _columns(conn, "vectors"):
        conn.execute("CREATE TABLE embeddings (rid INTEGER PRIMARY KEY, vector BLOB NOT NULL)")
        rows = conn.execute("SELECT rid, vector FROM vectors")
        while batch := rows.fetchmany(1000):
            conn.executemany(
                "INSERT INTO embeddings VALUES (?, ?)",
                [(rid, np.frombuffer(blob, np.float32).astype(VECTOR).tobytes()) for rid, blob in batch],
            )
        conn.execute("ALTER TABLE vectors DROP COLUMN vector")
    if "source_id" not in _columns(conn, "chunks"):
        _pack_chunks(conn)
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'words'").fetchone():
        _contentless_words(conn)


def _pack_chunks(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE chunks_packed (chunk_id TEXT PRIMARY KEY, document_id TEXT NOT NULL, "
        f"{', '.join(f'{c} TEXT' for c in CHUNK_COLUMNS)}, data BLOB NOT NULL)"
    )
    conn.execute("CREATE TABLE IF NOT EXISTS quotes (chunk_id TEXT PRIMARY KEY, data BLOB NOT NULL)")
    rows = conn.execute("SELECT chunk_id, document_id, data FROM chunks")
    while batch := rows.fetchmany(500):
        packed, quotes = [], []
        for chunk_id, document_id, data in batch:
            chunk = json.loads(data)
            encoded = chunk.pop("quote_vectors", None)
            if encoded:
                quotes.append((chunk_id, pack_quotes(encoded)))
            columns = tuple(chunk.get(c) for c in CHUNK_COLUMNS)
            packed.append((chunk_id, document_id, *columns, pack_json(json.dumps(chunk, ensure_ascii=False))))
        conn.executemany(f"INSERT INTO chunks_packed VALUES ({','.join('?' * 8)})", packed)
        conn.executemany("INSERT OR REPLACE INTO quotes VALUES (?, ?)", quotes)
    conn.execute("DROP TABLE chunks")
    conn.execute("ALTER TABLE chunks_packed RENAME TO chunks")
    conn.execute("CREATE INDEX chunks_by_document ON chunks (document_id)")


def _contentless_words(conn: sqlite3.Connection) -> None:
    """FTS5 indexed anew without its copy of the texts (one pass over every row: about a minute at 100,000
    chunks, once)."""
    conn.execute("CREATE TABLE words (rid INTEGER PRIMARY KEY, data BLOB NOT NULL)")
    conn.execute(f"CREATE TABLE words_moved AS SELECT rowid AS rid, {FTS_COLUMNS} FROM chunks_fts")
    conn.execute("DROP TABLE chunks_fts")
    conn.execute(_CONTENTLESS_FTS)
    conn.execute(f"INSERT INTO chunks_fts (rowid, {FTS_COLUMNS}) SELECT rid, {FTS_COLUMNS} FROM words_moved")
    rows = conn.execute(f"SELECT rid, {FTS_COLUMNS} FROM words_moved")
    while batch := rows.fetchmany(500):
        conn.executemany(
            "INSERT INTO words VALUES (?, ?)", [(r[0], pack_texts([t or "" for t in r[1:]])) for r in batch]
        )
    conn.execute("DROP TABLE words_moved")


# migration n brings a store at schema n - 1 to n; a new store is created at the last one
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _added_columns,
    _held_deletions,
    _deletion_windows,
    _readers,
    _packed,
)
SCHEMA_VERSION = 1 + len(MIGRATIONS)


def migrate(c: sqlite3.Connection) -> bool:
    """``_SCHEMA`` is version 1; a store runs each migration past its version, in order (a new one all).
    Whether a store holding chunks was packed anew (migration 6), which leaves its old pages free until a
    VACUUM."""
    found = c.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    version = int(found[0]) if found else 1
    packed = version < 6 and c.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is not None
    for n, migration in enumerate(MIGRATIONS, start=2):
        if version < n:
            migration(c)
    # never lowered: a store a newer Sabio wrote stays marked as such when this one opens it
    c.execute(
        "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(max(version, SCHEMA_VERSION)),)
    )
    return packed
