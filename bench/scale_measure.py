"""What bench/scale.py measures in a fresh process on a store it built: opening, retrieve latency per kind and
per stage, peak RSS, bytes on disk, and what the translated search did."""

from __future__ import annotations

import resource
import statistics
import time
from pathlib import Path
from typing import Any

from chalicelib.composition import Container
from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import SearchFilters
from chalicelib.settings import Settings


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    at = lambda q: ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]  # noqa: E731
    return {"p50_ms": round(at(0.5), 2), "p95_ms": round(at(0.95), 2), "n": len(ordered)}


def opened(path: Path) -> dict[str, float]:
    """In this (fresh) process: how long opening the store takes until a search is ready."""
    t = time.perf_counter()
    container = Container(Settings(store_path=str(path), query_cache_size=0))
    container.store.warm()  # the vectors, the BM25 postings and the neighbours, loaded or built
    return {"open_s": round(time.perf_counter() - t, 2)}


def measure(path: Path, qs: list[str]) -> dict[str, object]:
    """In this (fresh) process: opening, latency per kind and per stage, peak RSS, bytes, translations."""
    t = time.perf_counter()
    # every question is new to the process: no remembered query vector flatters the figures
    container = Container(Settings(store_path=str(path), query_cache_size=0))
    store, embedder, retriever = container.store, container.embedder, container.retriever
    store.warm()  # the vector matrix and the BM25 postings, as the first search after a change builds them
    open_s = time.perf_counter() - t
    retriever.retrieve(RetrieveRequest(query="warm up"), None)  # the model
    vectors = {q: embedder.embed_query(q) for q in qs}
    embed, dense, bm25, full, besides, answered = [], [], [], [], [], []
    stages: dict[str, list[float]] = {}
    for q in qs:
        t = time.perf_counter()
        embedder.embed_query(q)
        embed.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        store.dense_search(vectors[q], embedder.space, SearchFilters(), 10)
        dense.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        store.keyword_search(q, SearchFilters(), 10)
        bm25.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        response = retriever.retrieve(RetrieveRequest(query=q, top_k=10), None)
        full.append((time.perf_counter() - t) * 1000)
        besides.append(full[-1] - (response.timings_ms or {}).get("embed", 0.0))
        answered.append(response)
        for stage, ms in (response.timings_ms or {}).items():
            stages.setdefault(stage, []).append(ms)
    return {
        "chunks": store.stats().chunks,
        "query embedding": percentiles(embed),
        "dense k-NN (vector given)": percentiles(dense),
        "bm25": percentiles(bm25),
        "full retrieve": percentiles(full),
        "retrieve besides the query embedding": percentiles(besides),
        "stages_p50_ms": {k: percentiles(v)["p50_ms"] for k, v in stages.items()},
        "load_s": round(open_s, 2),
        "open_s": round(open_s, 2),
        "peak_rss_mb": peak_rss_mb(),
        **on_disk(path, store),
        "translated": translations(retriever, qs, answered),
        "vector_dim": embedder.space.dim,
    }


LATENCY = (
    "query embedding",
    "dense k-NN (vector given)",
    "bm25",
    "full retrieve",
    "retrieve besides the query embedding",
)


def median_latency(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The latency figures of several measures of one store: each percentile the median of the rounds'
    (and each round's full retrieve p50, to show the spread)."""
    mid = lambda values: round(float(statistics.median(values)), 2)  # noqa: E731
    out: dict[str, Any] = {
        kind: {
            "p50_ms": mid([r[kind]["p50_ms"] for r in rounds]),
            "p95_ms": mid([r[kind]["p95_ms"] for r in rounds]),
            "n": sum(r[kind]["n"] for r in rounds),
        }
        for kind in LATENCY
    }
    stages = {stage for r in rounds for stage in r["stages_p50_ms"]}
    out["stages_p50_ms"] = {s: mid([r["stages_p50_ms"].get(s, 0.0) for r in rounds]) for s in sorted(stages)}
    out["rounds_full_p50_ms"] = [r["full retrieve"]["p50_ms"] for r in rounds]
    return out


def on_disk(path: Path, store: Any) -> dict[str, float]:
    """The SQLite file (with its WAL), the files kept beside it, and a chunk as a JSON item (DynamoDB's)."""
    db = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    beside = 0
    for p in path.parent.iterdir():
        if p.name.startswith(f"{path.name}.") and p.name not in (f"{path.name}-wal", f"{path.name}-shm"):
            beside += (
                sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir() else p.stat().st_size
            )
    chunks = store.stats().chunks
    sample = store.get_chunks(list(store.all_chunk_ids())[:500])
    item = sum(len(c.model_dump_json()) for c in sample) / max(1, len(sample))
    return {
        "store_mb": round(db / 1e6, 1),
        "beside_mb": round(beside / 1e6, 1),
        "sqlite_kb_per_chunk": round(db / chunks / 1000, 2),
        "beside_kb_per_chunk": round(beside / chunks / 1000, 2),
        "chunk_item_bytes": round(item),
    }


def translations(retriever: Any, qs: list[str], answered: list[Any]) -> dict[str, int]:
    """Of the questions asked, those searched translated too (their translation embedded), and how many of
    them the translation gave another top 5 (untimed: asked again with the translation off)."""
    plain = retriever.reconfigured(translated_weight=0.0)
    out = {"questions": len(qs), "translated": 0, "changed_top5": 0}
    for q, response in zip(qs, answered, strict=True):
        if any(k.startswith("translation_") for k in response.applied):
            out["translated"] += 1
            again = plain.retrieve(RetrieveRequest(query=q, top_k=10), None)
            out["changed_top5"] += [i.chunk_id for i in response.items[:5]] != [
                i.chunk_id for i in again.items[:5]
            ]
    return out


def peak_rss_mb() -> float:
    """This process's own peak RSS. Linux keeps ru_maxrss across exec, so a child started by a large parent
    (bench/run.py after the package part: 263 MB) reported the parent's peak; VmHWM belongs to this image."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
