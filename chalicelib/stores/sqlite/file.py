"""The embedded store's file: one SQLite connection shared by its parts (rows, vectors, words), its schema and
numbered migrations, the generation that tells every cache the store changed, and what all parts read (the
vector matrix, the rows a filter admits, files kept beside the store, background builds)."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

from chalicelib.errors import EmbeddingModelMismatch
from chalicelib.models.records import EmbeddingSpace, SearchFilters
from chalicelib.stores.sqlite.packing import unpack_texts
from chalicelib.stores.sqlite.query_building import filter_sql
from chalicelib.stores.sqlite.schema import _SCHEMA, FTS_COLUMNS, SCHEMA_VERSION, migrate
from chalicelib.stores.sqlite.search.matrix import assemble
from chalicelib.stores.sqlite.search.segment_files import SegmentFiles
from chalicelib.stores.sqlite.search.segments import Segments, check

log = logging.getLogger("chalicelib.stores.sqlite")
__all__ = ["SCHEMA_VERSION", "StoreFile", "_SCHEMA"]
FILTER_CACHE = 64  # filter -> matrix rows, per store generation
# a chunk's rows (its vector 0.8 KB, its quote vectors ~2 KB) pack with less waste in 8 KB pages than in 4 KB
PAGE_SIZE = 8192


class StoreFile:
    """The connection and what every part of the store shares; safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        self.lock = threading.RLock()
        self._loading = threading.Lock()
        self._matrix: tuple[int, np.ndarray, np.ndarray] | None = None
        self._checks = np.zeros(0, dtype=np.uint32)  # each matrix row's chunk-id check
        self._rows: OrderedDict[tuple[object, ...], np.ndarray] = OrderedDict()
        self._postings: tuple[int, dict[str, np.ndarray]] | None = None  # principal -> rows (readers)
        self.on_reload: list[Callable[[], None]] = []  # caches of the parts, emptied when the matrix reloads
        self.failed: dict[str, int] = {}  # background build -> the generation it failed for
        with self.lock:
            if self.path != ":memory:":
                self.conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # a new file's only: ignored after
                self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.executescript(_SCHEMA)
        with self.tx() as c:
            packed = migrate(c)
            c.execute("INSERT OR IGNORE INTO meta VALUES ('generation', '0')")
            # files kept beside the store (the HNSW graph, the rows' neighbours) name rows by rid; a store
            # created anew at the same path starts its rids again, so those files say which store wrote them
            c.execute("INSERT OR IGNORE INTO meta VALUES ('store_id', ?)", (uuid.uuid4().hex,))
        self.store_id = str(self.query("SELECT value FROM meta WHERE key = 'store_id'")[0][0])
        folder = self.beside("search")
        self.segments = Segments(SegmentFiles(folder, self.store_id) if folder is not None else None)
        if packed:
            self._vacuum()

    def _vacuum(self) -> None:
        """The pages a migration freed given back to the file system (migration 6 halves a store), in pages
        of ``PAGE_SIZE`` where the journal can leave WAL for it (no other process has the file open)."""
        log.warning("the store at %s was packed anew (schema 6); compacting its file once", self.path)
        try:
            with self.lock:
                resized = self.path != ":memory:" and _switched(self.conn, "DELETE")
                if resized:
                    self.conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
                self.conn.execute("VACUUM")
                if resized:
                    _switched(self.conn, "WAL")
                elif self.path != ":memory:":
                    self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error:  # another process is reading it: the free pages are reused by later writes
            log.warning("could not compact %s now; its free pages will be reused", self.path, exc_info=True)

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def query(self, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
        with self.lock:
            return self.conn.execute(sql, params).fetchall()

    def close(self) -> None:
        self.segments.settle()
        self.conn.close()

    def beside(self, suffix: str) -> Path | None:
        """A file kept beside the store's (``<store>.<suffix>``); none for a store in memory."""
        return None if self.path == ":memory:" else Path(f"{self.path}.{suffix}")

    # ------------------------------------------------------------ what every cache keys on
    @staticmethod
    def bump(c: sqlite3.Connection) -> None:
        c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")

    def generation(self) -> int:
        return int(self.query("SELECT value FROM meta WHERE key = 'generation'")[0][0])

    def space(self) -> EmbeddingSpace | None:
        rows = self.query("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')")
        meta = {r["key"]: r["value"] for r in rows}
        if "embedding_model" not in meta:
            return None
        return EmbeddingSpace(meta["embedding_model"], int(meta["embedding_dim"]))

    def check_space(self, space: EmbeddingSpace) -> None:
        EmbeddingModelMismatch.check(
            self.space(),
            space,
            "vectors from different models cannot be compared. Configure the same embedder, or re-index "
            "into a new store.",
        )

    def delete(self, c: sqlite3.Connection, chunk_ids: Sequence[str]) -> None:
        """Chunks with their index rows (vector and words), in the caller's transaction."""
        for cid in set(chunk_ids):
            c.execute("DELETE FROM chunks WHERE chunk_id = ?", (cid,))
            c.execute("DELETE FROM quotes WHERE chunk_id = ?", (cid,))
            row = c.execute("SELECT rid FROM vectors WHERE chunk_id = ?", (cid,)).fetchone()
            if row:
                drop_row(c, row[0])
        self.bump(c)

    # ------------------------------------------------------------ what the searches share
    def load_matrix(self) -> tuple[int, np.ndarray, np.ndarray]:
        """The vectors as one float32 matrix, cached until the store changes (any process). One thread loads
        it (a search and its BM25 beside it used to load it twice); after a change only the rows added are
        read (chalicelib.stores.sqlite.search.matrix), and at opening the segments saved beside the store hold most."""
        with self._loading:
            generation = self.generation()
            cached = self._matrix
            if cached is not None and cached[0] == generation:
                return cached
            space = self.space()
            with self.lock:
                previous = (cached, self._checks) if cached is not None else None
                loaded, checks = assemble(self.conn, previous, self.segments, space.dim if space else 0)
            with self.lock:
                self._matrix, self._checks = loaded, checks
                self._rows.clear()
                for clear in self.on_reload:
                    clear()
            return loaded

    def checks(self, rids: np.ndarray) -> np.ndarray:
        """The chunk-id checks of rows ``rids`` (those of the matrix last loaded; else read)."""
        with self.lock:
            loaded, known = self._matrix, self._checks
        if loaded is not None and np.array_equal(loaded[1], rids):
            return known
        found: dict[int, str] = {r[0]: r[1] for r in self.query("SELECT rid, chunk_id FROM vectors")}
        return np.array([check(found.get(int(r), "")) for r in rids], dtype=np.uint32)

    def filtered_rows(self, generation: int, rids: np.ndarray, filters: SearchFilters) -> np.ndarray | None:
        """The matrix rows ``filters`` admit (None: all of them). Remembered per store generation: a search
        runs the same few filters (a language namespace, a key's scope) query after query, and at 10,000
        chunks reading them from SQLite cost more than the k-NN itself. Who may read (``allowed_readers``)
        is matched apart, from postings (``reader_rows``): each user of a deployment has a filter of their own,
        and a scan of every row's readers per user and query cost twice the search."""
        if filters.allowed_readers is not None:
            principals, rest = filters.allowed_readers, replace(filters, allowed_readers=None)
            base = self.filtered_rows(generation, rids, rest)

            def both() -> np.ndarray:
                readers = self.reader_rows(generation, rids, principals)
                return readers if base is None else np.intersect1d(base, readers, assume_unique=True)

            where, params = filter_sql(rest)
            return self.remembered((generation, where, tuple(params), "readers", principals), both)
        where, params = filter_sql(filters)
        if where == "1":
            return None

        def rows() -> np.ndarray:
            allowed = np.fromiter(
                (r[0] for r in self.query(f"SELECT rid FROM vectors v WHERE {where}", params)),
                dtype=np.int64,
            )
            return _rows_of(rids, allowed)

        return self.remembered((generation, where, tuple(params)), rows)

    def reader_rows(self, generation: int, rids: np.ndarray, principals: Sequence[str]) -> np.ndarray:
        """The matrix rows whose readers hold any of ``principals`` (sorted): a union of each principal's
        rows, from postings read once per store generation."""
        postings = self._reader_postings(generation, rids)
        parts = [postings[p] for p in principals if p in postings]
        if not parts:
            return np.empty(0, dtype=np.int64)
        return parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts))

    def _reader_postings(self, generation: int, rids: np.ndarray) -> dict[str, np.ndarray]:
        with self.lock:
            if self._postings is not None and self._postings[0] == generation:
                return self._postings[1]
        by: dict[str, list[int]] = {}
        for rid, readers in self.query("SELECT rid, readers FROM vectors ORDER BY rid"):
            for principal in json.loads(readers):
                by.setdefault(principal, []).append(rid)
        postings = {p: _rows_of(rids, np.asarray(r, dtype=np.int64)) for p, r in by.items()}
        with self.lock:
            self._postings = (generation, postings)
        return postings

    def admits_any(self, where: str, params: Sequence[object]) -> bool:
        """Whether any chunk passes a filter, remembered per store generation."""
        if where == "1":
            return True

        def first() -> np.ndarray:
            found = self.query(f"SELECT rid FROM vectors v WHERE {where} LIMIT 1", params)
            return np.array([r[0] for r in found], dtype=np.int64)

        return bool(len(self.remembered((self.generation(), "any", where, tuple(params)), first)))

    def remembered(self, key: tuple[object, ...], compute: Callable[[], np.ndarray]) -> np.ndarray:
        """A filter's answer, kept until the store changes (the key holds its generation), least recently
        used out past FILTER_CACHE."""
        with self.lock:
            if key in self._rows:
                self._rows.move_to_end(key)
                return self._rows[key]
        value = compute()
        with self.lock:
            self._rows[key] = value
            while len(self._rows) > FILTER_CACHE:
                self._rows.popitem(last=False)
        return value

    def chunk_ids(self, rids: list[int]) -> dict[int, tuple[str, str | None]]:
        """Each row's chunk id and content type."""
        if not rids:
            return {}
        rows = self.query(
            f"SELECT rid, chunk_id, content_type FROM vectors WHERE rid IN ({','.join('?' * len(rids))})",
            rids,
        )
        return {r["rid"]: (r["chunk_id"], r["content_type"]) for r in rows}

    def in_background(
        self, what: str, generation: int, held: threading.Lock, work: Callable[[], object]
    ) -> None:
        """``work`` in a daemon thread that releases ``held`` (taken by the caller) when done. A failure is
        logged, and not retried until the store changes: searches keep their exact path meanwhile."""

        def run() -> None:
            try:
                work()
            except Exception:  # noqa: BLE001 - an optional speed-up: the exact path still answers
                self.failed[what] = generation
                log.warning("building the %s index failed; searching without it", what, exc_info=True)
            finally:
                held.release()

        threading.Thread(target=run, name=f"sabio-{what}", daemon=True).start()


def _rows_of(rids: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """The matrix rows of ``allowed`` row ids (rids are sorted: each allowed rid's row, if it has one)."""
    at = np.searchsorted(rids, allowed)
    inside = at < len(rids)
    return at[inside][rids[at[inside]] == allowed[inside]]


def drop_row(c: sqlite3.Connection, rid: int) -> None:
    """One index row: its metadata, its vector, and its words (FTS5 keeps no copy of the texts it indexed:
    it is told them again to take them out)."""
    texts = c.execute("SELECT data FROM words WHERE rid = ?", (rid,)).fetchone()
    if texts is not None:
        c.execute(
            f"INSERT INTO chunks_fts (chunks_fts, rowid, {FTS_COLUMNS}) VALUES ('delete', ?, ?, ?, ?, ?)",
            (rid, *unpack_texts(texts[0])),
        )
    for table in ("words", "embeddings", "vectors"):
        c.execute(f"DELETE FROM {table} WHERE rid = ?", (rid,))


def _switched(conn: sqlite3.Connection, mode: str) -> bool:
    """Whether the journal is now in ``mode`` (another process holding the file open keeps it in WAL)."""
    try:
        ((now,),) = conn.execute(f"PRAGMA journal_mode = {mode}").fetchall()
    except sqlite3.Error:
        return False
    return str(now).upper() == mode
