"""What the translated search of a bilingual store changes, and what it costs: the user questions
(derived/fastapi_intent_dev.jsonl, es and en) over the FastAPI docs in both languages (bench/scale.py's base
store, 3,477 chunks), asked with the translation and without it, question by question in one process. Query
vectors and translations are not remembered: every question is new.

    .venv/bin/python bench/translated_search.py [--limit 200] [--variant FIELD=VALUE ...]

Prints how many questions embed their translation too, how many of those get another top 5 than without it,
hit@5 both ways (the section that answers, or one as full: the evaluation's reading), and the latency both
ways; writes bench/results/translated_search-<UTC time>.json. ``--variant``: RetrievalConfig fields of a third
way to ask, e.g. ``meaning_weight=0``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from results_file import write_result  # noqa: E402
from scale import EVAL, base_store  # noqa: E402
from scale_measure import percentiles  # noqa: E402

from chalicelib.composition import Container  # noqa: E402
from chalicelib.models.api import RetrieveRequest  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402


def questions(limit: int) -> list[dict[str, Any]]:
    rows = [
        json.loads(line) for line in (EVAL / "derived" / "fastapi_intent_dev.jsonl").open(encoding="utf-8")
    ]
    return rows[:limit]


def gold(row: dict[str, Any]) -> set[str]:
    return {f"{row['file']}#{row['anchor']}", *(f"{a['file']}#{a['anchor']}" for a in row.get("also", []))}


def measure(path: Path, rows: list[dict[str, Any]], variant: dict[str, Any]) -> dict[str, Any]:
    container = Container(Settings(store_path=str(path), query_cache_size=0))
    ways = {
        "translated": container.retriever,
        "untranslated": container.retriever.reconfigured(translated_weight=0.0),
    }
    if variant:
        ways["variant"] = container.retriever.reconfigured(**variant)
    container.retriever.retrieve(RetrieveRequest(query="warm up"), None)
    ms: dict[str, list[float]] = {w: [] for w in ways}
    hits = {w: 0 for w in ways}
    counts = {
        "questions": len(rows),
        "embedded_twice": 0,
        "changed_top5": 0,
        "hit5_gained": 0,
        "hit5_lost": 0,
    }
    for row in rows:
        request = RetrieveRequest(query=row["question"], top_k=5)
        tops, applied = {}, {}
        for way, retriever in ways.items():
            t = time.perf_counter()
            response = retriever.retrieve(request, None)
            ms[way].append((time.perf_counter() - t) * 1000)
            tops[way], applied[way] = [i.chunk_id for i in response.items[:5]], response.applied
        chunks = {
            c.chunk_id: c for c in container.store.get_chunks([c for top in tops.values() for c in top])
        }
        hit = {
            w: any(f"{chunks[c].key}#{a}" in gold(row) for c in top for a in chunks[c].anchors)
            for w, top in tops.items()
        }
        for way in ways:
            hits[way] += hit[way]
        if any(k.startswith("translation_") for k in applied["translated"]):
            counts["embedded_twice"] += 1
            counts["changed_top5"] += tops["translated"] != tops["untranslated"]
            counts["hit5_gained"] += hit["translated"] and not hit["untranslated"]
            counts["hit5_lost"] += hit["untranslated"] and not hit["translated"]
    return {
        **counts,
        "hit@5": {w: round(100 * h / len(rows), 1) for w, h in hits.items()},
        "latency": {w: percentiles(v) for w, v in ms.items()},
        "variant": variant,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--variant", nargs="*", default=[], metavar="FIELD=VALUE")
    args = parser.parse_args()
    variant = {k: json.loads(v) for k, v in (item.split("=", 1) for item in args.variant)}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "fastapi-es-en.db"
        shutil.copy(base_store(), copy)  # this code migrates a store it opens: never the cached one
        result = measure(copy, questions(args.limit), variant)
    print(json.dumps(result, indent=2))
    out = write_result("translated_search", result)
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
