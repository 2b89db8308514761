"""The embedded store's words: FTS5's bm25() ranking, computed from postings kept in memory
(chalicelib.stores.sqlite.search.bm25_index) and by FTS5 itself while those are built."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np

from chalicelib.models.records import Hit, SearchFilters
from chalicelib.stores.sqlite.file import StoreFile
from chalicelib.stores.sqlite.packing import VECTOR, unpack_texts
from chalicelib.stores.sqlite.query_building import filter_sql, fts5_expression, match_terms
from chalicelib.stores.sqlite.search.bm25_index import (
    WEIGHTS,
    Analysed,
    Segment,
    View,
    analyse,
    docsize,
    phrase,
    positions,
)
from chalicelib.stores.sqlite.search.segments import check

BUILD_INLINE = 2_000  # new rows the BM25 postings take in during a search; more are built in the background


class Words:
    def __init__(self, file: StoreFile, languages: Sequence[str]) -> None:
        self.file = file
        self.languages = tuple(languages)  # whose words a query matches when it searches every namespace
        self.view: tuple[int, View] | None = None  # generation, the postings of its rows
        self.loading = threading.Lock()

    def keyword_search(self, query: str, filters: SearchFilters, k: int) -> list[Hit]:
        """FTS5's bm25() over the chunks ``filters`` admit. Computed from postings in memory
        (chalicelib.stores.sqlite.search.bm25_index), the same scores without scoring every matching row in SQLite; by
        FTS5 itself while those postings are still being built."""
        found = match_terms(query, filters.langs or self.languages)
        if found is None:
            return []
        if not self.file.admits_any(*filter_sql(replace(filters, allowed_readers=None))):
            return []  # nothing can come back (the code search of a store without code): skip the pass
        where, params = filter_sql(filters)
        generation, rids, matrix = self.file.load_matrix()
        view = self._bm25_for(generation, rids, matrix)
        if view is None:
            return self.fts5_search(found, where, params, k)
        rows = self.file.filtered_rows(generation, rids, filters)
        raw, stems = (list(map(phrase, terms)) for terms in found)
        phrases = [self._phrase(view, "{title section body}", p) for p in raw if len(p) > 1]
        phrases += [self._phrase(view, "stems", p) for p in stems if len(p) > 1]
        top = view.search(
            (p[0] for p in raw if len(p) == 1), (p[0] for p in stems if len(p) == 1), rows, k, phrases
        )
        ids = self.file.chunk_ids([int(rids[i]) for i, _ in top])
        hits = []
        for i, score in top:
            chunk = ids.get(int(rids[i]))
            if chunk is not None:
                hits.append(Hit(chunk[0], score, chunk[1]))
        return hits

    def fts5_search(
        self, found: tuple[list[str], list[str]], where: str, params: Sequence[object], k: int
    ) -> list[Hit]:
        """The same ranking by FTS5 alone: it scores every row matching any term, then sorts."""
        sql = (
            f"SELECT v.chunk_id, v.content_type, bm25(chunks_fts, {', '.join(map(str, WEIGHTS))}) AS rank "
            f"FROM chunks_fts JOIN vectors v ON v.rid = chunks_fts.rowid "
            f"WHERE chunks_fts MATCH ? AND {where} ORDER BY rank LIMIT ?"
        )
        rows = self.file.query(sql, [fts5_expression(*found), *params, k])
        return [Hit(r["chunk_id"], -float(r["rank"]), r["content_type"]) for r in rows]

    def _bm25_for(self, generation: int, rids: np.ndarray, matrix: np.ndarray) -> View | None:
        """The BM25 postings for this generation's rows (rows no segment holds yet are read and analysed
        once), or None while they are being built: up to BUILD_INLINE new rows are analysed on the spot
        (~0.1 s), more in a background thread (at 100,000 chunks, 10 s) while FTS5 answers with the same
        scores. A store opened with its segments saved beside it has (almost) nothing new to build."""
        with self.file.lock:
            cached = self.view
        if cached is not None and cached[0] == generation:
            return cached[1]
        if self.file.failed.get("bm25") == generation or not self.loading.acquire(blocking=False):
            return None  # being built, or its build failed for this generation
        if len(self.file.segments.uncovered(rids)) <= BUILD_INLINE:
            try:
                return self.build_view(generation, rids, matrix)
            finally:
                self.loading.release()
        self.file.in_background(
            "bm25", generation, self.loading, lambda: self.build_view(generation, rids, matrix)
        )
        return None

    def build_view(self, generation: int, rids: np.ndarray, matrix: np.ndarray) -> View:
        """Under ``loading``. The segments are saved beside the store after, in the background."""
        with self.file.lock:
            cached = self.view
        if cached is not None and cached[0] == generation:
            return cached[1]

        def build(new: np.ndarray) -> Segment:
            at = positions(rids, new)
            return Segment.build(
                self._analysed(new), lambda found: matrix[at[positions(new, found)]].astype(VECTOR)
            )

        view = self.file.segments.view(rids, build)
        with self.file.lock:
            self.view = (generation, view)
        self.file.segments.persist()
        return view

    def _phrase(self, view: View, columns: str, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Postings of a query term FTS5 reads as several tokens (``keep-alive``), from FTS5: its rows, and
        in each the weighted frequency its bm25() implies for this phrase alone. Few rows hold a phrase."""
        found = self.file.query(
            f"SELECT rowid, bm25(chunks_fts, {', '.join(map(str, WEIGHTS))}) FROM chunks_fts "
            "WHERE chunks_fts MATCH ?",
            [f'{columns} : "{" ".join(words)}"'],
        )
        at = positions(view.rids, np.array([r[0] for r in found], dtype=np.int64))
        score = -np.array([r[1] for r in found], dtype=np.float64)
        live = at >= 0
        return at[live], view.frequencies(len(found), score[live], at[live])

    def _analysed(self, rids: np.ndarray) -> Iterator[tuple[int, int, Analysed]]:
        """Rows' texts with their chunk-id checks, analysed for the BM25 postings, 500 rows at a time."""
        for start in range(0, len(rids), 500):
            part = [int(r) for r in rids[start : start + 500]]
            rows = self.file.query(
                "SELECT w.rid, v.chunk_id, w.data, d.sz FROM words w JOIN vectors v ON v.rid = w.rid "
                f"JOIN chunks_fts_docsize d ON d.id = w.rid WHERE w.rid IN ({','.join('?' * len(part))})",
                part,
            )
            for rid, chunk_id, data, size in rows:
                title, section, body, stems = unpack_texts(data)
                yield rid, check(chunk_id), analyse(title, section, body, stems, docsize(size))
