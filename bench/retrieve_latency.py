"""Retrieve and answer latency on a >= 3,000-chunk store (FastAPI docs es + en, topped up with SQuAD-es
paragraphs, cached in bench/cache/): dense, BM25, the full retrieve and an answer, p50 / p95 over 120
questions. Part of ``make bench``; bench/retrieve_ab.py times two commits with the same questions."""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from indexing_throughput import EVAL, fastapi_folder  # noqa: E402  (a bench/ sibling)

from chalicelib.composition import Container  # noqa: E402
from chalicelib.models.api import RetrieveRequest  # noqa: E402
from chalicelib.models.records import SearchFilters  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402

SQUAD_ES = EVAL / "squad_es" / "dev-v1.1-es_small.json"
CACHE = ROOT / "bench" / "cache"
TARGET_CHUNKS = 3000


def build_big_store(path: Path) -> dict[str, object]:
    container = Container(Settings(store_path=str(path)))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for lang in ("es", "en"):
            container.ingestor().index_folder(fastapi_folder(lang, Path(tmp)), f"fastapi-{lang}")
        missing = TARGET_CHUNKS + 50 - container.store.stats().chunks
        squad = Path(tmp) / "squad-es"
        squad.mkdir()
        data = json.loads(SQUAD_ES.read_text(encoding="utf-8"))["data"]
        n = 0
        for article in data:
            for i, para in enumerate(article["paragraphs"]):
                if n >= max(missing, 0):
                    break
                name = f"{article['title'].replace('/', '_').replace(' ', '_')}-{i:03d}.txt"
                (squad / name).write_text(para["context"], encoding="utf-8")
                n += 1
        container.ingestor().index_folder(squad, "squad-es")
    return {
        "chunks": container.store.stats().chunks,
        "build_seconds": round(time.perf_counter() - started, 1),
    }


def queries(limit: int = 120) -> list[str]:
    rng = random.Random(7)
    out: list[str] = []
    for lang in ("es", "en"):
        rows = [
            json.loads(line)
            for line in (EVAL / "derived" / f"fastapi_heading_queries_{lang}.jsonl").read_text().splitlines()
        ]
        out += [r["text"] for r in rng.sample(rows, limit // 3)]
    xq = [
        json.loads(line)["text"]
        for line in (EVAL / "derived" / "xquad_es" / "queries.jsonl").read_text().splitlines()
    ]
    out += rng.sample(xq, limit - len(out))
    return out


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(p95, 2),
        "mean_ms": round(statistics.fmean(ordered), 2),
        "n": len(ordered),
    }


def latency(container: Container, qs: list[str]) -> dict[str, dict[str, float]]:
    store, embedder, retriever = container.store, container.embedder, container.retriever
    retriever.retrieve(RetrieveRequest(query="warm up"), None)  # loads the model and the vector matrix
    container.answerer.answer(RetrieveRequest(query="warm up"), None)
    dense, bm25, hybrid, answer = [], [], [], []
    for q in qs:
        t = time.perf_counter()
        store.dense_search(embedder.embed_query(q), embedder.space, SearchFilters(), 10)
        dense.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        store.keyword_search(q, SearchFilters(), 10)
        bm25.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        retriever.retrieve(RetrieveRequest(query=q, top_k=10), None)
        hybrid.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        container.answerer.answer(RetrieveRequest(query=q, top_k=10), None)
        answer.append((time.perf_counter() - t) * 1000)
    return {
        "dense (embed + k-NN)": percentiles(dense),
        "bm25": percentiles(bm25),
        "hybrid (full retrieve)": percentiles(hybrid),
        "answer (retrieve + extractive answer)": percentiles(answer),
    }


def measure(rebuild: bool) -> dict[str, object]:
    """The cached big store (built when missing, too small or ``rebuild``), its make-up and its latency."""
    result: dict[str, object] = {}
    big = CACHE / "bench-3000-v2.db"  # v2: chunks carry quote vectors (answers embed only the question)
    if (
        rebuild
        or not big.exists()
        or Container(Settings(store_path=str(big))).store.stats().chunks < TARGET_CHUNKS
    ):
        print("building the >= 3,000-chunk store (cached in bench/cache/) ...", flush=True)
        for f in CACHE.glob("bench-3000*.db*"):
            f.unlink()
        CACHE.mkdir(parents=True, exist_ok=True)
        result["big_store_build"] = build_big_store(big)
    container = Container(Settings(store_path=str(big)))
    stats = container.store.stats()
    result["store"] = {"chunks": stats.chunks, "by_source": stats.by_source, "by_lang": stats.by_lang}
    print(f"retrieve latency on {stats.chunks} chunks ...", flush=True)
    result["retrieve_latency"] = latency(container, queries())
    return result
