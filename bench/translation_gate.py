"""What the translated search of a bilingual store changes, and what deciding it before the second embedding
costs: the 200 user questions (derived/fastapi_intent_dev.jsonl, es and en) over the FastAPI docs in both
languages (bench/scale.py's base store, 3,477 chunks), asked three ways, question by question in one process:
the translation decided before it is embedded (the default), always searched when the store says so, and
never. Query vectors and translations are not remembered: every question is new.

    .venv/bin/python bench/translation_gate.py [--limit 200]

Prints how many questions embed their translation, how many of those get another top 5 than without it, how
many the gate answers without it and whether the translation would have changed them, hit@5 of each way
(the section that answers, or one as full: the evaluation's reading), and the latency of each; writes
bench/results/translation_gate-<UTC time>.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from results_file import write_result  # noqa: E402
from scale import EVAL, base_store  # noqa: E402
from scale_measure import percentiles  # noqa: E402

from chalicelib.composition import Container  # noqa: E402
from chalicelib.models.api import RetrieveRequest  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402


def questions(limit: int) -> list[dict]:  # type: ignore[type-arg]
    rows = [
        json.loads(line) for line in (EVAL / "derived" / "fastapi_intent_dev.jsonl").open(encoding="utf-8")
    ]
    return rows[:limit]


def gold(row: dict) -> set[str]:  # type: ignore[type-arg]
    return {f"{row['file']}#{row['anchor']}", *(f"{a['file']}#{a['anchor']}" for a in row.get("also", []))}


def measure(path: Path, rows: list[dict]) -> dict[str, object]:  # type: ignore[type-arg]
    container = Container(Settings(store_path=str(path), query_cache_size=0))
    gated = container.retriever
    ways = {"gated": gated, "always": gated.reconfigured(translation_gate=False)}
    never = gated.reconfigured(translated_weight=0.0)
    gated.retrieve(RetrieveRequest(query="warm up"), None)
    ms: dict[str, list[float]] = {w: [] for w in ways}
    hits = {w: 0 for w in (*ways, "never")}
    counts = {"questions": len(rows), "embedded_twice": 0, "changed_top5": 0, "gated_unneeded": 0}
    counts |= {"unneeded_would_change": 0, "gated_top5_as_always": 0}
    for row in rows:
        request = RetrieveRequest(query=row["question"], top_k=5)
        tops = {}
        for way, retriever in ways.items():
            t = time.perf_counter()
            response = retriever.retrieve(request, None)
            ms[way].append((time.perf_counter() - t) * 1000)
            tops[way] = (response, [i.chunk_id for i in response.items[:5]])
        tops["never"] = (None, [i.chunk_id for i in never.retrieve(request, None).items[:5]])
        chunks = {c.chunk_id: c for c in container.store.get_chunks([c for _, t in tops.values() for c in t])}
        for way, (_, top) in tops.items():
            hits[way] += any(f"{chunks[c].key}#{a}" in gold(row) for c in top for a in chunks[c].anchors)
        always, gated_response = tops["always"][0], tops["gated"][0]
        assert always is not None and gated_response is not None
        twice = any(k.startswith("translation_") for k in always.applied)
        counts["embedded_twice"] += twice
        counts["changed_top5"] += twice and tops["always"][1] != tops["never"][1]
        if "translation_unneeded" in gated_response.applied:
            counts["gated_unneeded"] += 1
            counts["unneeded_would_change"] += tops["always"][1] != tops["never"][1]
        counts["gated_top5_as_always"] += tops["gated"][1] == tops["always"][1]
    return {
        **counts,
        "hit@5": {w: round(100 * h / len(rows), 1) for w, h in hits.items()},
        "latency": {w: percentiles(v) for w, v in ms.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "fastapi-es-en.db"
        shutil.copy(base_store(), copy)  # this code migrates a store it opens: never the cached one
        result = measure(copy, questions(args.limit))
    print(json.dumps(result, indent=2))
    out = write_result("translation_gate", result)
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
