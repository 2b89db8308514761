"""`sabio plan`: what a corpus of N chunks will need, projected from the measured figures of a benchmark.

Every figure comes from one JSON file (the newest ``bench/results/bench-*.json`` that holds a scale curve,
else ``docs/performance.json``, the figures behind docs/performance.md) and a formula printed beside it:

- embedded store: retrieve p50 / p95, peak RSS, file size (and the search files beside it) and the time a
  process opening it takes before it can search, interpolated between the measured sizes and extrapolated past
  the largest along its last segment (brute-force k-NN, FTS5 and the files read at opening grow linearly);
- when to move to OpenSearch: the size at which the embedded store crosses a latency or memory budget;
- OpenSearch: HNSW memory ~1.1 x (4d + 8M) bytes per vector (M = 16, the index's setting), per copy,
  primary shards for ~30 GB each, one replica;
- DynamoDB: chunk items as measured (text, enrichment JSON, quote vectors);
- indexing time: chunks per second of the pipeline as measured, per container and with the stack's
  concurrency; LLM enrichment tokens per chunk as measured, at the configured price.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LATENCY_BUDGET_MS = 100.0  # full retrieve p50 a person waits for without noticing the store
MEMORY_BUDGET_MB = 1024.0  # the API Lambda's memory in the stack (and a small VM)
HNSW_M = 16  # opensearch_queries.index_body
SHARD_GB = 30.0  # OpenSearch's guidance: 10-50 GB a shard
# OpenSearch Serverless (the stack's default): an OCU is 6 GiB of RAM, vector collections are bound by the RAM
# their graphs need, and with redundancy every OCU has a standby twin. That half an OCU's RAM holds graphs is
# an assumption, printed as such
OCU_GIB = 6.0
OCU_GRAPH_SHARE = 0.5
STACK_CONCURRENCY = 5  # infra StackConfig.indexer_max_concurrency
# LLM enrichment when the benchmark has no measured tokens: the prompt's instructions, and a JSON answer
PROMPT_OVERHEAD_TOKENS = 350
ANSWER_TOKENS = 180


def find_figures(root: Path) -> Path:
    """The newest benchmark JSON from a whole ``make bench-scale`` (a scale curve and indexing), else the
    published one."""
    results = sorted((root / "bench" / "results").glob("bench-*.json"), reverse=True)
    for path in results:
        if {"scale", "indexing_ceiling"} <= set(json.loads(path.read_text(encoding="utf-8"))):
            return path
    return root / "docs" / "performance.json"


def project(points: list[tuple[float, float]], n: float) -> float:
    """Piecewise-linear through the measured (size, value) points; flat below the first, the last
    segment's slope past the last."""
    points = sorted(points)
    if n <= points[0][0] or len(points) == 1:
        return points[0][1] if n <= points[0][0] else points[-1][1] * n / points[-1][0]
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if n <= x1:
            return y0 + (y1 - y0) * (n - x0) / (x1 - x0)
    (x0, y0), (x1, y1) = points[-2], points[-1]
    return y1 + (y1 - y0) * (n - x1) / (x1 - x0)


@dataclass(frozen=True)
class Plan:
    chunks: int
    source: str
    embedded: dict[str, float]
    move_at: int | None  # chunks at which the embedded store leaves its budgets
    qps_one_process: float
    opensearch: dict[str, float]
    dynamodb_gb: float
    indexing_hours: dict[str, float]
    llm: dict[str, float]


def _series(scale: list[dict[str, Any]], get: Any) -> list[tuple[float, float]]:
    return [(float(r["chunks"]), float(get(r))) for r in scale]


def plan(figures: dict[str, Any], chunks: int, *, price_in: float, price_out: float, source: str) -> Plan:
    scale = figures["scale"]
    p50 = _series(scale, lambda r: r["full retrieve"]["p50_ms"])
    p95 = _series(scale, lambda r: r["full retrieve"]["p95_ms"])
    rss = _series(scale, lambda r: r["peak_rss_mb"])
    store = _series(scale, lambda r: r["store_mb"])
    beside = _series(scale, lambda r: r.get("beside_mb", 0.0))
    opening = _series(scale, lambda r: r.get("reopen_s", r.get("load_s", 0.0)))
    embedded = {
        "p50_ms": project(p50, chunks),
        "p95_ms": project(p95, chunks),
        "rss_mb": project(rss, chunks),
        "store_mb": project(store, chunks),
        "beside_mb": project(beside, chunks),
        "open_s": project(opening, chunks),
        "embed_ms": sorted(scale, key=lambda r: abs(float(r["chunks"]) - chunks))[0]["query embedding"][
            "p50_ms"
        ],
    }
    item = float(scale[-1].get("chunk_item_bytes", 0))
    ceiling = figures.get("indexing_ceiling", {})
    rate = float(ceiling.get("pipeline_chunks_per_s", 0)) or None
    tokens_in, tokens_out = _llm_tokens(figures, ceiling)
    return Plan(
        chunks=chunks,
        source=source,
        embedded=embedded,
        move_at=_move_at(p50, rss),
        qps_one_process=1000.0 / embedded["p50_ms"],
        opensearch=_opensearch(int(scale[-1].get("vector_dim", 384)), item, chunks),
        dynamodb_gb=chunks * item / 1e9,
        indexing_hours={
            "one_container": chunks / rate / 3600 if rate else float("nan"),
            f"{STACK_CONCURRENCY}_containers": chunks / rate / 3600 / STACK_CONCURRENCY
            if rate
            else float("nan"),
        },
        llm={
            "tokens_in_per_chunk": tokens_in,
            "tokens_out_per_chunk": tokens_out,
            "usd": chunks * (tokens_in * price_in + tokens_out * price_out) / 1e6,
        },
    )


def _move_at(p50: list[tuple[float, float]], rss: list[tuple[float, float]]) -> int | None:
    """The first size on a grid at which the embedded store leaves its latency or memory budget."""
    for exponent in range(30, 81):  # 1,000 .. 100,000,000 in steps of 10^0.1
        n = int(10 ** (exponent / 10))
        if project(p50, n) > LATENCY_BUDGET_MS or project(rss, n) > MEMORY_BUDGET_MB:
            return n
    return None


def _opensearch(dim: int, item: float, chunks: int) -> dict[str, float]:
    """HNSW memory, index size, shards and nodes for ``chunks`` vectors of ``dim`` dimensions."""
    hnsw_gb = 1.1 * (4 * dim + 8 * HNSW_M) * chunks / 1e9
    index_gb = chunks * (4 * dim + item) / 1e9
    shards = max(1, math.ceil(index_gb / SHARD_GB))
    return {
        "hnsw_gb_per_copy": hnsw_gb,
        "hnsw_gb_with_replica": 2 * hnsw_gb,
        "index_gb": index_gb,
        "primary_shards": shards,
        "replicas": 1,
        # k-NN's native memory is capped at 50 % of what the JVM heap (half the RAM) leaves: a quarter
        "data_node_ram_gb": 4 * 2 * hnsw_gb,
        # search OCUs with redundancy: at least 1 (0.5 x 2), else the graphs' RAM in OCUs, twice
        "serverless_search_ocus": max(
            1.0, 2 * math.ceil(hnsw_gb / (OCU_GIB * 1.073741824 * OCU_GRAPH_SHARE) * 2) / 2
        ),
    }


def _llm_tokens(figures: dict[str, Any], ceiling: dict[str, Any]) -> tuple[float, float]:
    """Tokens per chunk of LLM enrichment: measured when the benchmark ran it, else the prompt's overhead
    plus the chunk's own tokens (measured by the indexing benchmark) in, a JSON answer out."""
    runs = figures.get("llm_enrichment", {}).get("by_concurrency", {})
    chunks = figures.get("llm_enrichment", {}).get("chunks")
    for run in runs.values():
        if chunks and run.get("tokens_in"):
            return run["tokens_in"] / chunks, run["tokens_out"] / chunks
    return PROMPT_OVERHEAD_TOKENS + float(ceiling.get("chunk_tokens", 0)), float(ANSWER_TOKENS)


def _round(n: int) -> int:
    """Two significant figures: the grid and the projection are no finer than that."""
    return int(round(n, 1 - len(str(n))))


def render(p: Plan, queries_per_s: float | None = None) -> str:
    e, o = p.embedded, p.opensearch
    lines = [
        f"Sabio plan for {p.chunks:,} chunks (figures from {p.source})",
        "",
        "Embedded store (SQLite + numpy), projected from the measured scale curve:",
        f"  retrieve p50 {e['p50_ms']:.0f} ms, p95 {e['p95_ms']:.0f} ms (the query embedding alone is ~{e['embed_ms']:.0f} ms)",
        f"  peak RSS {e['rss_mb']:,.0f} MB, store file {e['store_mb'] / 1000:,.1f} GB"
        + (f" + {e['beside_mb'] / 1000:,.1f} GB of search files beside it" if e["beside_mb"] else ""),
        f"  a process opening it is ready to search in ~{e['open_s']:,.1f} s",
        f"  one process serves ~{p.qps_one_process:.1f} queries/s",
    ]
    if queries_per_s:
        need = math.ceil(queries_per_s / p.qps_one_process)
        lines.append(
            f"  {queries_per_s:g} queries/s need {need} process(es) on copies of the store"
            + (" (or OpenSearch, which scales apart from the API)" if need > 1 else "")
        )
    if p.move_at is None:
        lines.append("  fits its budgets at every size up to 100M chunks")
    elif p.chunks >= p.move_at:
        lines.append(
            f"  -> move to OpenSearch: past ~{_round(p.move_at):,} chunks the embedded store leaves its budgets "
            f"(p50 {LATENCY_BUDGET_MS:.0f} ms, RSS {MEMORY_BUDGET_MB:,.0f} MB)"
        )
    else:
        lines.append(
            f"  stays embedded: the budgets (p50 {LATENCY_BUDGET_MS:.0f} ms, RSS {MEMORY_BUDGET_MB:,.0f} MB) "
            f"hold up to ~{_round(p.move_at):,} chunks"
        )
    lines += [
        "",
        "OpenSearch (the AWS mode):",
        f"  HNSW memory 1.1 x (4d + 8M) x N = {o['hnsw_gb_per_copy']:.2f} GB a copy, "
        f"{o['hnsw_gb_with_replica']:.2f} GB with {o['replicas']} replica",
        f"  index ~{o['index_gb']:.1f} GB -> {o['primary_shards']} primary shard(s), {o['replicas']} replica; "
        f"data nodes with >= {o['data_node_ram_gb']:.1f} GB RAM in all (k-NN may use a quarter of it)",
        f"  Serverless (the stack's default): ~{o['serverless_search_ocus']:g} search OCUs with redundancy "
        f"(6 GiB each; assumes half an OCU's RAM holds graphs: check the collection's OCU metrics)",
        f"DynamoDB: {p.dynamodb_gb:.2f} GB of chunk items",
        f"Indexing: {p.indexing_hours['one_container']:.1f} h in one container, "
        f"{p.indexing_hours[f'{STACK_CONCURRENCY}_containers']:.1f} h at the stack's concurrency "
        f"({STACK_CONCURRENCY})",
        f"LLM enrichment: {p.llm['tokens_in_per_chunk']:.0f} tokens in + {p.llm['tokens_out_per_chunk']:.0f} out "
        f"a chunk = ${p.llm['usd']:,.2f} at the configured price",
    ]
    return "\n".join(lines)
