"""The scale curve: retrieve latency (dense, BM25, full retrieve, per stage), peak RSS and store size of the
embedded store at growing sizes, each size measured in a fresh process on the same machine in one run.

Usage:  .venv/bin/python bench/scale.py [--sizes 1000 10000 100000] [--queries 100]
        (make bench runs 1k and 10k; make bench-scale adds 100k.)
Prints a table and writes bench/results/scale-<UTC time>.json.

The text is real: the FastAPI docs, Spanish and English (3,477 chunks, as `sabio index` cuts and enriches
them; vectors from bench/cache/embeddings.sqlite, the evaluation's cache, so nothing is re-embedded when it
is warm). Sizes above that replicate it, and say so: replica r of a chunk has new ids, its key under
`r<r>/`, the same text, and its vector moved by Gaussian noise (sigma 0.01 per dimension, then unit length:
cosine ~0.98 to the original) so that no two vectors tie. The queries are the user questions of
`derived/fastapi_intent_dev.jsonl` (es and en). Machines here are noisy: compare sizes within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.results_file import write_result  # noqa: E402
from chalicelib.composition import Container  # noqa: E402
from chalicelib.models.api import RetrieveRequest  # noqa: E402
from chalicelib.models.records import DocumentRecord, SearchFilters, StoredChunk  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"
CACHE = ROOT / "bench" / "cache"
BASE = CACHE / "scale-base.db"
NOISE = 0.01


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    at = lambda q: ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]  # noqa: E731
    return {"p50_ms": round(at(0.5), 2), "p95_ms": round(at(0.95), 2), "n": len(ordered)}


def base_store() -> Path:
    """The FastAPI docs es + en, indexed once by Sabio's own pipeline (cached in bench/cache/)."""
    if BASE.exists():
        return BASE
    import shutil

    partial = BASE.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    settings = Settings(store_path=str(partial), embedding_cache=str(CACHE / "embeddings.sqlite"))
    container = Container(settings)
    with tempfile.TemporaryDirectory() as tmp:
        for lang in ("es", "en"):
            folder = Path(tmp) / f"fastapi-{lang}"
            shutil.copytree(
                EVAL / "fastapi_docs" / lang, folder, ignore=shutil.ignore_patterns("_llm-test.md")
            )
            container.ingestor().index_folder(folder, f"fastapi-{lang}")
    container.store.close()
    partial.rename(BASE)
    return BASE


def base_documents(path: Path) -> list[tuple[DocumentRecord, list[StoredChunk]]]:
    container = Container(Settings(store_path=str(path)))
    store = container.store
    out = []
    for doc in store.list_documents():
        chunks = store.document_chunks(doc.document_id)
        vectors = store.get_vectors([c.chunk_id for c in chunks])
        for c in chunks:
            c.vector = [float(x) for x in vectors[c.chunk_id]]
        out.append((doc, chunks))
    return out


def replicas(
    docs: list[tuple[DocumentRecord, list[StoredChunk]]], n: int, rng: np.random.Generator
) -> Iterator[tuple[DocumentRecord, list[StoredChunk]]]:
    """Documents until ``n`` chunks: the base as it is, then replicas (new ids, moved vectors)."""
    written, r = 0, 0
    while written < n:
        for doc, chunks in docs:
            if written >= n:
                return
            chunks = chunks[: n - written]
            if r == 0:
                yield doc, chunks
            else:
                doc_id = f"{doc.document_id}-r{r}"
                copies = []
                for c in chunks:
                    v = np.asarray(c.vector, dtype=np.float32) + rng.normal(0, NOISE, len(c.vector))
                    v /= np.linalg.norm(v)
                    copies.append(
                        c.model_copy(
                            update={
                                "chunk_id": f"{c.chunk_id}-r{r}",
                                "document_id": doc_id,
                                "key": f"r{r}/{c.key}",
                                "vector": [float(x) for x in v],
                            }
                        )
                    )
                yield doc.model_copy(update={"document_id": doc_id, "key": f"r{r}/{doc.key}"}), copies
            written += len(chunks)
        r += 1


def build(size: int, path: Path) -> dict[str, float]:
    docs = base_documents(base_store())
    container = Container(Settings(store_path=str(path)))
    store, space = container.store, container.embedder.space
    started = time.perf_counter()
    write(store, space, replicas(docs, size, np.random.default_rng(7)))
    return {"build_s": round(time.perf_counter() - started, 1)}


def write(store: Any, space: Any, documents: Iterator[tuple[DocumentRecord, list[StoredChunk]]]) -> None:
    """Documents and their chunks (with vectors) into ``store``, 2,000 chunks a transaction; then closed."""
    batch: list[StoredChunk] = []
    for doc, chunks in documents:
        store.put_document(doc.model_copy(update={"chunk_count": len(chunks)}))
        batch += chunks
        if len(batch) >= 2000:
            store.put_chunks(batch)
            store.upsert_chunks(batch, space)
            batch = []
    if batch:
        store.put_chunks(batch)
        store.upsert_chunks(batch, space)
    store.close()


def questions(limit: int) -> list[str]:
    rows = [
        json.loads(line) for line in (EVAL / "derived" / "fastapi_intent_dev.jsonl").open(encoding="utf-8")
    ]
    es = [r for r in rows if r.get("lang") == "es"]
    en = [r for r in rows if r.get("lang") != "es"]
    picked = [r for pair in zip(es, en, strict=False) for r in pair][:limit]
    return [r.get("question") or r.get("query") or r["text"] for r in picked]


def measure(path: Path, limit: int) -> dict[str, object]:
    """In this (fresh) process: latency per kind and per stage, peak RSS, store size."""
    # every question is new to the process: no remembered query vector flatters the figures
    container = Container(Settings(store_path=str(path), query_cache_size=0))
    store, embedder, retriever = container.store, container.embedder, container.retriever
    qs = questions(limit)
    t = time.perf_counter()
    store.warm()  # the vector matrix and the BM25 postings, as the first search after a change builds them
    warm_s = time.perf_counter() - t
    retriever.retrieve(RetrieveRequest(query="warm up"), None)  # the model
    vectors = {q: embedder.embed_query(q) for q in qs}
    embed, dense, bm25, full, besides = [], [], [], [], []
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
        for stage, ms in (response.timings_ms or {}).items():
            stages.setdefault(stage, []).append(ms)
    db = [p for p in (path, Path(f"{path}-wal")) if p.exists()]
    import sqlite3

    with sqlite3.connect(path) as conn:  # what one chunk's item holds (text, enrichment, quote vectors)
        (item_bytes,) = conn.execute("SELECT avg(length(CAST(data AS BLOB))) FROM chunks").fetchone()
    return {
        "chunks": store.stats().chunks,
        "query embedding": percentiles(embed),
        "dense k-NN (vector given)": percentiles(dense),
        "bm25": percentiles(bm25),
        "full retrieve": percentiles(full),
        "retrieve besides the query embedding": percentiles(besides),
        "stages_p50_ms": {k: percentiles(v)["p50_ms"] for k, v in stages.items()},
        "load_s": round(warm_s, 2),
        "peak_rss_mb": peak_rss_mb(),
        "store_mb": round(sum(p.stat().st_size for p in db) / 1e6, 1),
        "chunk_item_bytes": round(float(item_bytes or 0)),
        "vector_dim": embedder.space.dim,
    }


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


def one(size: int, limit: int) -> dict[str, object]:
    """A size in a fresh process, so each figure (RSS above all) is that size's alone."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"scale-{size}.db"
        built = subprocess.run(
            [sys.executable, __file__, "--build", str(size), str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        measured = subprocess.run(
            [sys.executable, __file__, "--measure", str(path), str(limit)],
            capture_output=True,
            text=True,
            check=True,
        )
    return {"size": size, **json.loads(built.stdout), **json.loads(measured.stdout)}


def table(rows: list[dict]) -> str:  # type: ignore[type-arg]
    head = (
        "| chunks | query embedding p50 | dense k-NN p50 / p95 | BM25 p50 / p95 | full retrieve p50 / p95 "
        "| besides the embedding p50 / p95 | peak RSS MB | store MB | load s |"
    )
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        f = lambda k, r=r: f"{r[k]['p50_ms']} / {r[k]['p95_ms']}"  # noqa: E731
        lines.append(
            f"| {r['chunks']:,} | {r['query embedding']['p50_ms']} | {f('dense k-NN (vector given)')} | {f('bm25')} "
            f"| {f('full retrieve')} | {f('retrieve besides the query embedding')} | {r['peak_rss_mb']} "
            f"| {r['store_mb']} | {r.get('load_s', '')} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--build", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build:
        print(json.dumps(build(int(args.build[0]), Path(args.build[1]))))
        return 0
    if args.measure:
        print(json.dumps(measure(Path(args.measure[0]), int(args.measure[1]))))
        return 0
    base_store()
    rows = []
    for size in args.sizes:
        rows.append(one(size, args.queries))
        print(f"{size:>7,} chunks measured", file=sys.stderr)
    print(table(rows))
    for r in rows:
        print(f"{r['chunks']:,} chunks, full retrieve stages (p50 ms): {r['stages_p50_ms']}")
    out = write_result("scale", {"machine": os.cpu_count(), "rows": rows})
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
