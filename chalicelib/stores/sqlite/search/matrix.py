"""The vector matrix searches run over (float32, one row per index row, by row id) and each row's chunk-id
check, assembled from what is at hand in one snapshot of the store: the matrix before the last change (the
rows still there), at opening the segments saved beside the store (chalicelib.stores.sqlite.search.segments), and
SQLite for the rest, row by row."""

from __future__ import annotations

import sqlite3

import numpy as np

from chalicelib.stores.sqlite.packing import VECTOR
from chalicelib.stores.sqlite.search.bm25_index import positions
from chalicelib.stores.sqlite.search.segments import Segments, check

Loaded = tuple[int, np.ndarray, np.ndarray]  # generation, row ids (ascending), matrix


def assemble(
    conn: sqlite3.Connection, previous: tuple[Loaded, np.ndarray] | None, segments: Segments, dim: int
) -> tuple[Loaded, np.ndarray]:
    """The matrix of the store's rows now and their checks, read in one transaction (a writer in another
    process cannot slip a change between the rows and their vectors)."""
    conn.execute("BEGIN")
    try:
        (generation,) = conn.execute(
            "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'"
        ).fetchone()
        rows = conn.execute("SELECT rid, chunk_id FROM vectors").fetchall()
        rids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        order = np.argsort(rids)
        rids = rids[order]
        matrix = np.empty((len(rids), dim), dtype=np.float32)
        checks = np.zeros(len(rids), dtype=np.uint32)
        filled = np.zeros(len(rids), dtype=bool)
        if previous is not None:
            (_, before, vectors), known = previous
            at = positions(rids, before)
            kept = at >= 0
            matrix[at[kept]], checks[at[kept]], filled[at[kept]] = vectors[kept], known[kept], True
        todo = np.flatnonzero(~filled)
        checks[todo] = [check(rows[i][1]) for i in order[todo]]
        if previous is None:
            (stored,) = conn.execute(
                "SELECT COALESCE(MAX(CAST(value AS INTEGER)), 0) FROM meta WHERE key = 'next_rid'"
            ).fetchone()
            segments.open(rids, checks, dim, max(int(stored), int(rids[-1]) + 1 if len(rids) else 0))
            filled = segments.fill(rids, matrix)
        _read_rows(conn, rids, np.flatnonzero(~filled), matrix)
    finally:
        conn.execute("COMMIT")
    return (int(generation), rids, matrix), checks


def _read_rows(conn: sqlite3.Connection, rids: np.ndarray, rows: np.ndarray, matrix: np.ndarray) -> None:
    """The vectors of matrix ``rows`` from SQLite: in one pass when they are all the rows, else by id."""
    if not len(rows):
        return
    if len(rows) == len(rids):
        for i, (_, blob) in enumerate(conn.execute("SELECT rid, vector FROM embeddings ORDER BY rid")):
            matrix[i] = np.frombuffer(blob, dtype=VECTOR)
        return
    for start in range(0, len(rows), 500):
        part = rows[start : start + 500]
        ids = [int(r) for r in rids[part]]
        found = conn.execute(
            f"SELECT rid, vector FROM embeddings WHERE rid IN ({','.join('?' * len(ids))})", ids
        )
        for rid, blob in found:
            matrix[int(np.searchsorted(rids, rid))] = np.frombuffer(blob, dtype=VECTOR)
