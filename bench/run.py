"""Sabio benchmark: indexing throughput, retrieve and answer latency on >= 3,000 chunks, query embedding under
CPU contention (bench/contention.py), ``sabio serve`` under load with re-indexes (bench/load.py), memory (and
``sabio index``'s peak RSS on a folder and one ten times larger, bench/memory.py).

Usage:  make bench            (or: .venv/bin/python bench/run.py [--rebuild])
Prints a table and writes bench/results/bench-<UTC time>.json. The 3,000-chunk store (FastAPI docs es + en,
topped up with SQuAD-es paragraphs) is cached in bench/cache/ between runs; --rebuild rebuilds it.
Machines here are noisy: compare ratios within one run, not absolute numbers across runs.
Each part is a module of bench/ named for what it measures; this file runs them and writes their figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import api_package  # noqa: E402  (bench/ siblings)
import contention  # noqa: E402
import documents  # noqa: E402
import indexing_ceiling  # noqa: E402
import indexing_throughput  # noqa: E402
import llm_enrichment  # noqa: E402
import load  # noqa: E402
import memory  # noqa: E402
import rerank  # noqa: E402
import retrieve_latency  # noqa: E402
import scale  # noqa: E402
import scale_table  # noqa: E402
import summary  # noqa: E402

from bench.results_file import write_result  # noqa: E402

EVAL = indexing_throughput.EVAL
FASTAPI = indexing_throughput.FASTAPI


def scale_curve(args: argparse.Namespace) -> object:
    (curve,) = scale.curve(args.scale_sizes, 100)
    print(scale_table.table(curve))
    print(scale_table.disk_and_translations(curve))
    return curve


# (--only name, result key, what is printed before it runs, how it is measured), in the order they run
PARTS: tuple[tuple[str, str, str, Callable[[argparse.Namespace], object]], ...] = (
    (
        "package",
        "api_package",
        "API package (chalice package) and cold start ...",
        lambda a: api_package.measure(),
    ),
    (
        "contention",
        "query_embedding_contention",
        "query embedding alone and beside a busy process / an index run, per OpenMP setting ...",
        lambda a: contention.measure(60),
    ),
    (
        "documents",
        "pdf_extraction",
        "PDF extraction: pages/s with a text layer and with OCR ...",
        lambda a: documents.measure(),
    ),
    (
        "memory",
        "index_memory",
        "sabio index peak RSS: 40 documents and 400 (fresh processes) ...",
        lambda a: memory.measure(40, 10),
    ),
    (
        "load",
        "serve_load",
        "sabio serve: 500 requests at concurrency 20 with 2 re-indexes during the load ...",
        lambda a: load.measure(500, 20, 2),
    ),
    ("scale", "scale", "scale curve at {a.scale_sizes} chunks (fresh process per size) ...", scale_curve),
    (
        "ceiling",
        "indexing_ceiling",
        "indexing against the embedder alone on the same texts ...",
        lambda a: indexing_ceiling.measure("es", 25),
    ),
    (
        "rerank",
        "rerank_stage",
        "the rerank stage's own cost at 30 candidates (an instant reranker) ...",
        lambda a: {**rerank.measure(), "retrieve": rerank.in_retrieve()},
    ),
    (
        "llm",
        "llm_enrichment",
        "LLM enrichment: 500 chunks, local server with 300 ms latency ...",
        lambda a: llm_enrichment.measure(),
    ),
)


def arguments() -> argparse.Namespace:
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
    return parser.parse_args()


def main() -> int:
    args = arguments()
    if not FASTAPI.is_dir():
        print(f"evaluation data not found at {EVAL}; the benchmark needs ../shared/eval", file=sys.stderr)
        return 2
    result: dict[str, object] = {
        "command": "make bench",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"python": platform.python_version(), "cpu_count": os.cpu_count()},
    }
    if args.only is None:  # indexing and the big store's latency run only in the whole benchmark
        result.update(indexing_throughput.measure())
        result.update(retrieve_latency.measure(args.rebuild))
    for name, key, announce, measure in PARTS:
        if args.only is None or name in args.only:
            print(announce.format(a=args), flush=True)
            result[key] = measure(args)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)

    out = write_result("bench", result)
    print()
    for line in summary.lines(result):
        print(line)
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
