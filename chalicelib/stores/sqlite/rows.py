"""The embedded store's rows: the manifest (a record per document), the chunks with their enrichment, the
enrichment cache and the counts ``/stats`` shows."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence

from chalicelib.models.records import DocumentRecord, Stats, StoredChunk
from chalicelib.stores.sqlite.file import StoreFile
from chalicelib.stores.sqlite.packing import pack_json, pack_quotes, unpack_json, unpack_many
from chalicelib.stores.sqlite.schema import CHUNK_COLUMNS

_LISTS = ("readers", "declared_readers")  # JSON in their columns
_READ = "SELECT c.chunk_id, c.data, q.data FROM chunks c LEFT JOIN quotes q ON q.chunk_id = c.chunk_id"


def _record(row: sqlite3.Row) -> DocumentRecord:
    data = dict(row)
    for name in _LISTS:
        data[name] = None if data.get(name) is None else json.loads(data[name])
    return DocumentRecord(**data)


def _chunks(rows: list[sqlite3.Row]) -> list[StoredChunk]:
    """Chunks as ``_READ`` reads them: their JSON, and their quote vectors, decoded for all of them at once."""
    chunks = [StoredChunk.model_validate_json(unpack_json(r[1])) for r in rows]
    with_quotes = [(c, r[2]) for c, r in zip(chunks, rows, strict=True) if r[2] is not None]
    for (chunk, _), (text, values) in zip(with_quotes, unpack_many([q for _, q in with_quotes]), strict=True):
        chunk.quote_vectors = text
        chunk.with_decoded_quotes(values)
    return chunks


class Rows:
    def __init__(self, file: StoreFile) -> None:
        self.file = file

    # ------------------------------------------------------------ manifest
    def get_document(self, source_id: str, key: str) -> DocumentRecord | None:
        rows = self.file.query("SELECT * FROM documents WHERE source_id = ? AND key = ?", (source_id, key))
        return _record(rows[0]) if rows else None

    def list_documents(self, source_id: str | None = None) -> list[DocumentRecord]:
        if source_id is None:
            rows = self.file.query("SELECT * FROM documents ORDER BY source_id, key")
        else:
            rows = self.file.query("SELECT * FROM documents WHERE source_id = ? ORDER BY key", (source_id,))
        return [_record(r) for r in rows]

    def put_document(self, record: DocumentRecord) -> None:
        data = record.model_dump()
        for name in _LISTS:
            data[name] = None if data[name] is None else json.dumps(data[name])
        cols = ",".join(data)
        with self.file.tx() as c:
            c.execute(
                f"INSERT OR REPLACE INTO documents ({cols}) VALUES ({','.join('?' * len(data))})",
                tuple(data.values()),
            )

    def delete_document(self, document_id: str) -> None:
        with self.file.tx() as c:
            ids = [
                r[0] for r in c.execute("SELECT chunk_id FROM chunks WHERE document_id = ?", (document_id,))
            ]
            ids += [
                r[0] for r in c.execute("SELECT chunk_id FROM vectors WHERE document_id = ?", (document_id,))
            ]
            self.file.delete(c, ids)
            c.execute("DELETE FROM documents WHERE document_id = ?", (document_id,))

    # ------------------------------------------------------------ chunks
    def put_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        """Each chunk's JSON compressed, with the columns /stats counts by; its quote vectors as int8 beside it
        (chalicelib.stores.sqlite.packing)."""
        rows = [
            (
                ch.chunk_id,
                ch.document_id,
                *(getattr(ch, c) for c in CHUNK_COLUMNS),
                pack_json(ch.model_dump_json(exclude={"quote_vectors"})),
            )
            for ch in chunks
        ]
        with self.file.tx() as c:
            c.executemany(f"INSERT OR REPLACE INTO chunks VALUES ({','.join('?' * 8)})", rows)
            c.executemany("DELETE FROM quotes WHERE chunk_id = ?", [(ch.chunk_id,) for ch in chunks])
            c.executemany(
                "INSERT INTO quotes VALUES (?, ?)",
                [(ch.chunk_id, pack_quotes(ch.quote_vectors)) for ch in chunks if ch.quote_vectors],
            )

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[StoredChunk]:
        found: dict[str, StoredChunk] = {}
        ids = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            rows = self.file.query(f"{_READ} WHERE c.chunk_id IN ({','.join('?' * len(part))})", part)
            found.update({c.chunk_id: c for c in _chunks(rows)})
        return [found[i] for i in ids if i in found]

    def document_chunks(self, document_id: str) -> list[StoredChunk]:
        rows = self.file.query(f"{_READ} WHERE c.document_id = ?", (document_id,))
        return sorted(_chunks(rows), key=lambda ch: ch.ord)

    def all_chunk_ids(self, source_id: str | None = None) -> dict[str, str]:
        sql = "SELECT chunk_id, document_id FROM chunks"
        params: list[object] = []
        if source_id is not None:
            sql += " WHERE source_id = ?"
            params.append(source_id)
        return {r[0]: r[1] for r in self.file.query(sql, params)}

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        with self.file.tx() as c:
            self.file.delete(c, chunk_ids)

    # ------------------------------------------------------------ enrichment cache
    def cached_enrichment(self, cache_key: str) -> str | None:
        rows = self.file.query("SELECT data FROM enrichment_cache WHERE cache_key = ?", (cache_key,))
        return rows[0]["data"] if rows else None

    def count_deletion(self, source_id: str, window: str) -> int:
        with self.file.tx() as c:
            row = c.execute(
                "INSERT INTO deletion_windows VALUES (?, ?, 1) ON CONFLICT (source_id, window) "
                "DO UPDATE SET n = n + 1 RETURNING n",
                (source_id, window),
            ).fetchone()
        return int(row[0])

    def cache_enrichment(self, cache_key: str, data: str) -> None:
        with self.file.tx() as c:
            c.execute(
                "INSERT OR REPLACE INTO enrichment_cache VALUES (?, ?, ?)", (cache_key, data, time.time())
            )

    # ------------------------------------------------------------ stats
    def stats(self) -> Stats:
        docs = {r[0]: r[1] for r in self.file.query("SELECT status, COUNT(*) FROM documents GROUP BY status")}

        def by(column: str) -> dict[str, int]:
            rows = self.file.query(f"SELECT {column} AS v, COUNT(*) FROM chunks GROUP BY v ORDER BY 2 DESC")
            return {str(r[0] or ""): int(r[1]) for r in rows}

        space = self.file.space()
        return Stats(
            documents={"total": sum(docs.values()), **docs},
            chunks=int(self.file.query("SELECT COUNT(*) FROM chunks")[0][0]),
            by_source=by("source_id"),
            by_lang=by("lang"),
            by_product=by("product"),
            by_content_type=by("content_type"),
            by_category=by("category"),
            embedding={"model_id": space.model_id, "dim": space.dim} if space else None,
        )
