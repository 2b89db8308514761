"""Chunking ablation (source doc 001): naive fixed-size character windows against Sabio's structure-aware
chunks, on the same files, read the same way (dense on the chunk text, BM25 on the chunk text, RRF).

A naive chunk counts for every heading section its characters overlap, which favours naive chunking (a
window across three sections is a hit for all three); the near-duplicate rate shows what overlap costs.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chalicelib.extraction.markdown import slugify
from chalicelib.ids import sha256
from chalicelib.models.records import Enrichment, SearchFilters, StoredChunk
from chalicelib.retrieve.fusion import reciprocal_rank_fusion
from chalicelib.stores.sqlite import SQLiteStore
from chalicelib.text import shingles
from sabio.evaluation.datasets import Corpus, QuerySet
from sabio.evaluation.metrics import summary
from sabio.evaluation.runner import DEPTH, Built

NEAR_DUPLICATE = 0.3  # share of the smaller chunk's 5-word shingles found in a better-ranked one
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{\s*#([\w\-.:]+)\s*\})?\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass(frozen=True)
class Window:
    start: int
    end: int
    text: str


def naive_windows(text: str, size: int = 1000, overlap: int = 100) -> list[Window]:
    """``chunkPorCaracteres``: fixed windows of ``size`` characters, each starting ``size - overlap`` after
    the previous one, blind to structure."""
    step = max(1, size - overlap)
    out = []
    for start in range(0, len(text), step):
        piece = text[start : start + size]
        if piece.strip():
            out.append(Window(start, start + len(piece), piece))
        if start + size >= len(text):
            break
    return out


def section_starts(markdown: str) -> list[tuple[int, str]]:
    """(character offset, anchor) of every ATX heading outside code fences, in order."""
    out: list[tuple[int, str]] = []
    fence: str | None = None
    offset = 0
    for line in markdown.splitlines(keepends=True):
        f = _FENCE.match(line)
        if f:
            marker = f.group(1)[0]
            fence = None if fence == marker else (fence or marker)
        elif fence is None:
            m = _HEADING.match(line.rstrip("\n"))
            if m:
                out.append((offset, m.group(3) or slugify(m.group(2))))
        offset += len(line)
    return out


def anchors_in(starts: list[tuple[int, str]], start: int, end: int) -> list[str]:
    """Anchors of the sections that characters [start, end) overlap."""
    found = []
    for n, (offset, anchor) in enumerate(starts):
        section_end = starts[n + 1][0] if n + 1 < len(starts) else 10**12
        if offset < end and section_end > start:
            found.append(anchor)
    return found


def _store_of(chunks: list[StoredChunk], embedder: Any, path: Path) -> tuple[SQLiteStore, float, int]:
    started = time.perf_counter()
    before = getattr(embedder, "misses", 0)
    vectors = embedder.embed_documents([c.embedding_text for c in chunks])
    for c, v in zip(chunks, vectors, strict=True):
        c.vector = [float(x) for x in v]
    store = SQLiteStore(path)
    store.put_chunks(chunks)
    store.upsert_chunks(chunks, embedder.space)
    return store, time.perf_counter() - started, getattr(embedder, "misses", 0) - before


def _chunk(key: str, n: int, text: str, anchors: list[str], lang: str, title: str) -> StoredChunk:
    return StoredChunk(
        chunk_id=f"{key}:{n:04d}",
        document_id=key,
        source_id="ablation",
        key=key,
        ord=n,
        title=title,
        section_title="",
        heading_path=[],
        content=text,
        embedding_text=text,
        enrichment=Enrichment(),
        lang=lang,
        product="general",
        content_type="guide",
        content_hash=sha256(text),
        anchors=anchors,
    )


def naive_chunks(corpus: Corpus, lang: str, size: int, overlap: int) -> list[StoredChunk]:
    chunks = []
    for key, data in corpus.files.items():
        text = data.decode("utf-8")
        starts = section_starts(text)
        for n, w in enumerate(naive_windows(text, size, overlap)):
            chunks.append(_chunk(key, n, w.text, anchors_in(starts, w.start, w.end), lang, key))
    return chunks


def structured_chunks(built: Built) -> list[StoredChunk]:
    """Sabio's own chunks, stripped to their text (no breadcrumb, no enrichment), for a like-for-like read."""
    return [
        _chunk(c.key, c.ord, c.content, list(c.anchors), c.lang, c.title)
        for c in sorted(built.chunks.values(), key=lambda c: (c.key, c.ord))
    ]


def near_duplicate_rate(ranked_texts: list[list[str]], k: int = 5) -> float:
    """Share (x100) of top-k results that mostly repeat a better-ranked result of the same query."""
    dup = total = 0
    for texts in ranked_texts:
        seen: list[frozenset[int]] = []
        for text in texts[:k]:
            sh = shingles(text)
            total += 1
            if any(
                sh and other and len(sh & other) / min(len(sh), len(other)) >= NEAR_DUPLICATE
                for other in seen
            ):
                dup += 1
            seen.append(sh)
    return round(100 * dup / total, 1) if total else 0.0


def evaluate_chunks(
    name: str, chunks: list[StoredChunk], qs: QuerySet, embedder: Any, path: Path
) -> dict[str, Any]:
    store, index_s, computed = _store_of(chunks, embedder, path)
    by_id = {c.chunk_id: c for c in chunks}

    def targets(ids: list[str], relevant: dict[str, int]) -> list[str]:
        """One id per chunk: the asked section if the chunk overlaps it, else the chunk itself."""
        out = []
        for i in ids:
            held = {f"{by_id[i].key}#{a}" for a in by_id[i].anchors}
            out.append(next((r for r in relevant if r in held), i))
        return list(dict.fromkeys(out))

    dense_runs, bm25_runs, rrf_runs, top_texts = {}, {}, {}, []
    for qid, text in qs.queries.items():
        dense = [
            h.chunk_id
            for h in store.dense_search(embedder.embed_query(text), embedder.space, SearchFilters(), DEPTH)
        ]
        bm25 = [h.chunk_id for h in store.keyword_search(text, SearchFilters(), DEPTH)]
        fused = [cid for cid, _ in reciprocal_rank_fusion([dense, bm25], 60)]
        relevant = qs.qrels.get(qid, {})
        dense_runs[qid], bm25_runs[qid] = targets(dense, relevant), targets(bm25, relevant)
        rrf_runs[qid] = targets(fused, relevant)
        top_texts.append([by_id[c].content for c in fused[:5]])
    store.close()
    sizes = [len(c.content) for c in chunks]
    return {
        "chunking": name,
        "chunks": len(chunks),
        "mean_chars": round(sum(sizes) / len(sizes)),
        "sections_per_chunk": round(sum(len(c.anchors) for c in chunks) / len(chunks), 2),
        "index_s": round(index_s, 1),
        "vectors_computed": computed,
        "dense": summary(dense_runs, qs.qrels),
        "bm25": summary(bm25_runs, qs.qrels),
        "rrf": summary(rrf_runs, qs.qrels),
        "near_duplicates@5": near_duplicate_rate(top_texts),
    }


def run(
    corpus: Corpus, qs: QuerySet, built: Built, workdir: Path, cache: Path | None
) -> list[dict[str, Any]]:
    embedder = built.container.embedder
    lang = corpus.lang
    return [
        evaluate_chunks(
            "naive 1,000 chars, 100 overlap",
            naive_chunks(corpus, lang, 1000, 100),
            qs,
            embedder,
            workdir / f"{corpus.name}-naive100.db",
        ),
        evaluate_chunks(
            "naive 1,000 chars, 500 overlap",
            naive_chunks(corpus, lang, 1000, 500),
            qs,
            embedder,
            workdir / f"{corpus.name}-naive500.db",
        ),
        evaluate_chunks(
            "Sabio structure-aware",
            structured_chunks(built),
            qs,
            embedder,
            workdir / f"{corpus.name}-structured.db",
        ),
    ]
