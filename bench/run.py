"""Sabio benchmark: indexing throughput, retrieve and answer latency on >= 3,000 chunks, query embedding under
CPU contention (bench/contention.py), ``sabio serve`` under load with re-indexes (bench/load.py), memory (and
``sabio index``'s peak RSS on a folder and one ten times larger, bench/memory.py).

Usage:  make bench            (or: .venv/bin/python bench/run.py [--rebuild])
Prints a table and writes bench/results/bench-<UTC time>.json. The 3,000-chunk store (FastAPI docs es + en,
topped up with SQuAD-es paragraphs) is cached in bench/cache/ between runs; --rebuild rebuilds it.
Machines here are noisy: compare ratios within one run, not absolute numbers across runs.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import contention  # noqa: E402  (bench/ siblings)
import documents  # noqa: E402
import indexing_ceiling  # noqa: E402
import load  # noqa: E402
import memory  # noqa: E402
import rerank  # noqa: E402
import scale  # noqa: E402

from bench.results_file import write_result  # noqa: E402
from chalicelib.composition import Container  # noqa: E402
from chalicelib.models.api import RetrieveRequest  # noqa: E402
from chalicelib.models.records import SearchFilters  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402
from infra.slim import slim  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"
FASTAPI = EVAL / "fastapi_docs"
SQUAD_ES = EVAL / "squad_es" / "dev-v1.1-es_small.json"
CACHE = ROOT / "bench" / "cache"
TARGET_CHUNKS = 3000


def index_throughput(folder: Path, source_id: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        container = Container(Settings(store_path=f"{tmp}/s.db"))
        report = container.ingestor().index_folder(folder, source_id)
    return {
        "documents": report.added,
        "failed": len(report.failed),
        "chunks": report.chunks_written,
        "seconds": round(report.seconds, 2),
        "chunks_per_s": round(report.chunks_written / report.seconds, 2),
    }


def fastapi_folder(lang: str, into: Path) -> Path:
    """The FastAPI docs of one language without `_llm-test.md` (the eval README says to skip it)."""
    target = into / f"fastapi-{lang}"
    shutil.copytree(FASTAPI / lang, target, ignore=shutil.ignore_patterns("_llm-test.md"))
    return target


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


def llm_enrichment(n_chunks: int = 500, latency_s: float = 0.3, levels: tuple[int, ...] = (1, 5, 20)) -> dict:
    """LLM enrichment of ``n_chunks`` against a local OpenAI-compatible server answering in ``latency_s``."""
    from chalicelib.enrichment.heuristic import ChunkContext, HeuristicEnricher
    from chalicelib.enrichment.llm import LLMEnricher
    from chalicelib.enrichment.vocabulary import Vocabulary
    from chalicelib.llms.client import ChatLLM, LLMConfig
    from tests.llm_server import LLMTestServer

    sections = [
        json.loads(line) for line in (EVAL / "derived" / "fastapi_sections_es.jsonl").read_text().splitlines()
    ]
    texts = [s for s in sections if len(s["text"].split()) > 20][:n_chunks]
    items = [
        (ChunkContext(text=s["text"][:1500], title=s["file"], section=s["heading"], lang="es"), f"{i}")
        for i, s in enumerate(texts)
    ]
    vocab = Vocabulary(products={"fastapi": []})
    fallback = HeuristicEnricher(vocab)
    out: dict[str, object] = {
        "chunks": len(items),
        "server_latency_ms": latency_s * 1000,
        "by_concurrency": {},
    }
    with LLMTestServer(latency_s=latency_s) as server:
        for level in levels:
            llm = ChatLLM(LLMConfig(base_url=server.base_url, model="bench", timeout_s=30))
            enricher = LLMEnricher(llm, vocab, cache=None, concurrency=level)
            started = time.perf_counter()
            results = enricher.enrich_many(items, fallback)
            wall = time.perf_counter() - started
            out["by_concurrency"][str(level)] = {  # type: ignore[index]
                "wall_s": round(wall, 2),
                "chunks_per_s": round(len(items) / wall, 2),
                "llm": sum(1 for r in results if r.source == "llm"),
                "fallback": enricher.run.fallback,
                "tokens_in": llm.usage.prompt_tokens,
                "tokens_out": llm.usage.completion_tokens,
            }
            print(f"  concurrency {level:>2}: {wall:6.1f}s  {len(items) / wall:6.1f} chunks/s", flush=True)
    return out


def api_package() -> dict[str, object]:
    """`chalice package` of the API: zipped / unzipped size against Lambda's 250 MB, heavy packages absent,
    and the cold start: `import app` and a first /retrieve in fresh processes."""
    import os
    import subprocess
    import zipfile

    env = {**os.environ, "AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION", "eu-west-1")}
    chalice = Path(sys.executable).with_name("chalice")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [str(chalice), "package", "--stage", "dev", f"{tmp}/out"],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        archive = Path(tmp) / "out" / "deployment.zip"
        slimmed = slim(archive)  # as the stack ships it
        with zipfile.ZipFile(archive) as z:
            infos = z.infolist()
        unzipped = sum(i.file_size for i in infos)
        tops: dict[str, int] = {}
        for i in infos:
            tops[i.filename.split("/")[0]] = tops.get(i.filename.split("/")[0], 0) + i.file_size
        heavy = sorted(
            {i.filename.split("/")[0] for i in infos} & {"torch", "sentence_transformers", "transformers"}
        )
        zipped = archive.stat().st_size
    imports, firsts = [], []
    probe = "import time; t = time.perf_counter(); import app; print(time.perf_counter() - t)"
    first = (
        "import json, time; t = time.perf_counter(); import app; from chalice.test import Client\n"
        "with Client(app.app) as c:\n"
        "    c.http.post('/retrieve', headers={'Content-Type': 'application/json'},"
        " body=json.dumps({'query': 'precio'}))\n"
        "print(time.perf_counter() - t)"
    )
    store_env = {**env, "SABIO_STORE_PATH": str(CACHE / "bench-3000.db")}
    for _ in range(5):
        imports.append(
            float(
                subprocess.run(
                    [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
                ).stdout.strip()
            )
        )
    for _ in range(3):
        firsts.append(
            float(
                subprocess.run(
                    [sys.executable, "-c", first],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    env=store_env,
                    check=True,
                )
                .stdout.strip()
                .splitlines()[-1]
            )
        )
    biggest = sorted(tops.items(), key=lambda kv: -kv[1])[:6]
    return {
        "zipped_mb": round(zipped / 2**20, 1),
        "unzipped_mb": round(unzipped / 2**20, 1),
        "unzipped_mb_before_slimming": round(slimmed["before"] / 2**20, 1),
        "lambda_limit_unzipped_mb": 250,
        "fits": unzipped < 250 * 2**20,
        "heavy_packages": heavy,
        "largest_mb": {k: round(v / 2**20, 1) for k, v in biggest},
        "import_app_s": {"median": round(statistics.median(imports), 3), "max": round(max(imports), 3)},
        "first_retrieve_in_fresh_process_s": {"median": round(statistics.median(firsts), 3)},
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached 3,000-chunk store")
    parser.add_argument(
        "--only",
        choices=["llm", "package", "load", "contention", "documents", "memory", "scale", "ceiling", "rerank"],
        nargs="+",
        help="run these parts only",
    )
    parser.add_argument(
        "--scale-sizes",
        type=int,
        nargs="+",
        default=[1000, 10000],
        help="chunk counts of the scale curve (make bench-scale adds 100000)",
    )
    args = parser.parse_args()

    def wants(part: str) -> bool:
        return args.only is None or part in args.only

    if not FASTAPI.is_dir():
        print(f"evaluation data not found at {EVAL}; the benchmark needs ../shared/eval", file=sys.stderr)
        return 2
    result: dict[str, object] = {
        "command": "make bench",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"python": platform.python_version(), "cpu_count": __import__("os").cpu_count()},
    }
    if args.only is None:
        run_retrieval(args, result)
    if wants("package"):
        print("API package (chalice package) and cold start ...", flush=True)
        result["api_package"] = api_package()
    if wants("contention"):
        print(
            "query embedding alone and beside a busy process / an index run, per OpenMP setting ...",
            flush=True,
        )
        result["query_embedding_contention"] = contention.measure(60)
    if wants("documents"):
        print("PDF extraction: pages/s with a text layer and with OCR ...", flush=True)
        result["pdf_extraction"] = documents.measure()
    if wants("memory"):
        print("sabio index peak RSS: 40 documents and 400 (fresh processes) ...", flush=True)
        result["index_memory"] = memory.measure(40, 10)
    if wants("load"):
        print("sabio serve: 500 requests at concurrency 20 with 2 re-indexes during the load ...", flush=True)
        result["serve_load"] = load.measure(500, 20, 2)
    if wants("scale"):
        print(f"scale curve at {args.scale_sizes} chunks (fresh process per size) ...", flush=True)
        result["scale"] = [scale.one(size, 100) for size in args.scale_sizes]
        print(scale.table(result["scale"]))  # type: ignore[arg-type]
    if wants("ceiling"):
        print("indexing against the embedder alone on the same texts ...", flush=True)
        result["indexing_ceiling"] = indexing_ceiling.measure("es", 25)
    if wants("rerank"):
        print("the rerank stage's own cost at 30 candidates (an instant reranker) ...", flush=True)
        result["rerank_stage"] = {**rerank.measure(), "retrieve": rerank.in_retrieve()}
    if wants("llm"):
        print("LLM enrichment: 500 chunks, local server with 300 ms latency ...", flush=True)
        result["llm_enrichment"] = llm_enrichment()
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)

    out = write_result("bench", result)
    print()
    for name in ("index_examples", "index_fastapi_es"):
        if name in result:
            r = result[name]
            print(
                f"{name:<18} {r['documents']:>4} docs  {r['chunks']:>5} chunks  {r['seconds']:>7}s  "  # type: ignore[index]
                f"{r['chunks_per_s']:>6} chunks/s"
            )  # type: ignore[index]
    for mode, p in result.get("retrieve_latency", {}).items():  # type: ignore[attr-defined]
        print(
            f"{mode:<24} p50 {p['p50_ms']:>7} ms   p95 {p['p95_ms']:>7} ms   (n={p['n']}, "
            f"{result['store']['chunks']} chunks)"
        )  # type: ignore[index]
    if "api_package" in result:
        pkg = result["api_package"]
        print(
            f"API package: {pkg['zipped_mb']} MB zipped, {pkg['unzipped_mb']} MB unzipped (limit 250; "  # type: ignore[index]
            f"heavy packages: {pkg['heavy_packages'] or 'none'}); import app {pkg['import_app_s']['median']} s; "  # type: ignore[index]
            f"first retrieve in a fresh process {pkg['first_retrieve_in_fresh_process_s']['median']} s"
        )  # type: ignore[index]
    for level, r in result.get("llm_enrichment", {}).get("by_concurrency", {}).items():  # type: ignore[attr-defined]
        print(
            f"LLM enrichment c={level:<3} {r['wall_s']:>7}s  {r['chunks_per_s']:>6} chunks/s  "
            f"(llm {r['llm']}, fallback {r['fallback']})"
        )
    for name, r in result.get("query_embedding_contention", {}).items():  # type: ignore[attr-defined]
        q, b, i = r["quiet"], r["beside a busy process"], r["beside a index run"]
        print(
            f"query embedding {name:<20} quiet p50/p95 {q['p50_ms']}/{q['p95_ms']} ms; beside a busy process "
            f"{b['p50_ms']}/{b['p95_ms']} ms (x{b['p95_ratio']} p95); beside an index run {i['p50_ms']}/"
            f"{i['p95_ms']} ms (x{i['p95_ratio']} p95)"
        )
    if "serve_load" in result:
        sl = result["serve_load"]
        print(
            f"sabio serve: {sl['requests']} requests at concurrency {sl['concurrency']}, "  # type: ignore[index]
            f"{len(sl['reindexes'])} re-indexes: {sl['failed']} failed; served after: {sl['served_after']} "  # type: ignore[index]
            f"(expected {sl['expected_after']})"  # type: ignore[index]
        )
        for route, p in sl["by_route"].items():  # type: ignore[index]
            print(f"  {route:<10} p50 {p['p50_ms']} ms  p95 {p['p95_ms']} ms  (n={p['n']})")
    if "pdf_extraction" in result:
        pdf = result["pdf_extraction"]
        ocr_line = pdf["ocr"].get("pages_per_s", pdf["ocr"].get("skipped"))  # type: ignore[index,union-attr]
        print(
            f"PDF extraction: text layer {pdf['text_layer']['pages_per_s']} pages/s, OCR {ocr_line} pages/s"
        )  # type: ignore[index]
    if "index_memory" in result:
        m = result["index_memory"]
        print(
            f"sabio index peak RSS: {m['small']['documents']} docs {m['small']['peak_rss_mb']} MB, "  # type: ignore[index]
            f"{m['large']['documents']} docs {m['large']['peak_rss_mb']} MB (x{m['ratio']})"  # type: ignore[index]
        )
    if "rerank_stage" in result:
        rr = result["rerank_stage"]
        alone = rr["reranker's order"]  # type: ignore[index]
        print(
            f"rerank stage at {rr['candidates']} candidates: p50 {alone['p50_ms']} ms; adds "  # type: ignore[index]
            f"{rr['retrieve']['added_p50_ms']} ms p50 to retrieve (target <= {rerank.TARGET_P50_MS} ms)"  # type: ignore[index]
        )
    print(f"peak RSS {result['peak_rss_mb']} MB")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


def run_retrieval(args: argparse.Namespace, result: dict[str, object]) -> None:
    print("indexing examples/ ...", flush=True)
    result["index_examples"] = index_throughput(ROOT / "examples", "examples")
    print("indexing FastAPI docs (es) ...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        result["index_fastapi_es"] = index_throughput(fastapi_folder("es", Path(tmp)), "fastapi-es")

    big = CACHE / "bench-3000-v2.db"  # v2: chunks carry quote vectors (answers embed only the question)
    if (
        args.rebuild
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


if __name__ == "__main__":
    sys.exit(main())
