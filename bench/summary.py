"""The table ``make bench`` prints from its result: one or a few lines per part that ran."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import rerank  # a bench/ sibling: the rerank stage's target


def lines(result: dict[str, Any]) -> Iterator[str]:
    """Every part's lines, in the order the parts are printed, then the run's peak RSS."""
    for part in (indexing, retrieve, package, llm, contention, serve_load, pdf, index_memory, rerank_stage):
        yield from part(result)
    yield f"peak RSS {result['peak_rss_mb']} MB"


def indexing(result: dict[str, Any]) -> Iterator[str]:
    for name in ("index_examples", "index_fastapi_es"):
        if name in result:
            r = result[name]
            yield (
                f"{name:<18} {r['documents']:>4} docs  {r['chunks']:>5} chunks  {r['seconds']:>7}s  "
                f"{r['chunks_per_s']:>6} chunks/s"
            )


def retrieve(result: dict[str, Any]) -> Iterator[str]:
    for mode, p in result.get("retrieve_latency", {}).items():
        yield (
            f"{mode:<24} p50 {p['p50_ms']:>7} ms   p95 {p['p95_ms']:>7} ms   (n={p['n']}, "
            f"{result['store']['chunks']} chunks)"
        )


def package(result: dict[str, Any]) -> Iterator[str]:
    if "api_package" in result:
        pkg = result["api_package"]
        yield (
            f"API package: {pkg['zipped_mb']} MB zipped, {pkg['unzipped_mb']} MB unzipped (limit 250; "
            f"heavy packages: {pkg['heavy_packages'] or 'none'}); import app {pkg['import_app_s']['median']} s; "
            f"first retrieve in a fresh process {pkg['first_retrieve_in_fresh_process_s']['median']} s"
        )


def llm(result: dict[str, Any]) -> Iterator[str]:
    for level, r in result.get("llm_enrichment", {}).get("by_concurrency", {}).items():
        yield (
            f"LLM enrichment c={level:<3} {r['wall_s']:>7}s  {r['chunks_per_s']:>6} chunks/s  "
            f"(llm {r['llm']}, fallback {r['fallback']})"
        )


def contention(result: dict[str, Any]) -> Iterator[str]:
    for name, r in result.get("query_embedding_contention", {}).items():
        q, b, i = r["quiet"], r["beside a busy process"], r["beside a index run"]
        yield (
            f"query embedding {name:<20} quiet p50/p95 {q['p50_ms']}/{q['p95_ms']} ms; beside a busy process "
            f"{b['p50_ms']}/{b['p95_ms']} ms (x{b['p95_ratio']} p95); beside an index run {i['p50_ms']}/"
            f"{i['p95_ms']} ms (x{i['p95_ratio']} p95)"
        )


def serve_load(result: dict[str, Any]) -> Iterator[str]:
    if "serve_load" in result:
        sl = result["serve_load"]
        yield (
            f"sabio serve: {sl['requests']} requests at concurrency {sl['concurrency']}, "
            f"{len(sl['reindexes'])} re-indexes: {sl['failed']} failed; served after: {sl['served_after']} "
            f"(expected {sl['expected_after']})"
        )
        for route, p in sl["by_route"].items():
            yield f"  {route:<10} p50 {p['p50_ms']} ms  p95 {p['p95_ms']} ms  (n={p['n']})"


def pdf(result: dict[str, Any]) -> Iterator[str]:
    if "pdf_extraction" in result:
        pdf = result["pdf_extraction"]
        ocr_line = pdf["ocr"].get("pages_per_s", pdf["ocr"].get("skipped"))
        yield f"PDF extraction: text layer {pdf['text_layer']['pages_per_s']} pages/s, OCR {ocr_line} pages/s"


def index_memory(result: dict[str, Any]) -> Iterator[str]:
    if "index_memory" in result:
        m = result["index_memory"]
        yield (
            f"sabio index peak RSS: {m['small']['documents']} docs {m['small']['peak_rss_mb']} MB, "
            f"{m['large']['documents']} docs {m['large']['peak_rss_mb']} MB (x{m['ratio']})"
        )


def rerank_stage(result: dict[str, Any]) -> Iterator[str]:
    if "rerank_stage" in result:
        rr = result["rerank_stage"]
        alone = rr["reranker's order"]
        yield (
            f"rerank stage at {rr['candidates']} candidates: p50 {alone['p50_ms']} ms; adds "
            f"{rr['retrieve']['added_p50_ms']} ms p50 to retrieve (target <= {rerank.TARGET_P50_MS} ms)"
        )
