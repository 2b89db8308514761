"""What the quote vectors buy, and what they cost: each chunk's quotable sentences, rows and lines embedded at
index time (``SABIO_QUOTE_VECTORS``, on by default) against none (answers then embed the units of the chunks
they read, per question, and retrieval has no sentence evidence).

Usage:  .venv/bin/python bench/quote_vectors.py [--part indexing answers xquad] [--rounds 2] [--limit 300]

- indexing: ``sabio index`` on 25 files of the Spanish FastAPI tutorial into a fresh store, no embedding cache,
  with and without, alternated ``--rounds`` times in one process: chunks/s and texts embedded;
- answers: the company sets (datasets/company-dev, and datasets/company-test read in aggregate only), per
  kind: hit@1 / hit@5, answer correct, abstained, confidently wrong, and the answer's latency. Vectors come
  from bench/cache/embeddings.sqlite; with ``--bare`` the questions are answered by the model itself, so that
  a unit embedded at question time is paid for (the latency a user meets);
- xquad: sabio.evaluation.answers on XQuAD (es and en pools, both languages' questions), with and without.

Prints tables and writes bench/results/quote-vectors-<UTC time>.json. Run nothing else CPU-heavy beside it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from indexing_ceiling import Recording, folder  # noqa: E402
from results_file import write_result  # noqa: E402

from chalicelib.composition import Container  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402

CACHE = ROOT / "bench" / "cache" / "embeddings.sqlite"
SETS = {"dev": ROOT / "datasets" / "company-dev", "test": ROOT / "datasets" / "company-test"}
VARIANTS = {"with": True, "without": False}


def indexing(rounds: int, variants: list[str]) -> dict[str, Any]:
    """Chunks/s of ``sabio index`` on the tutorial, with and without quote vectors, alternated."""
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in variants}
    for _ in range(rounds):
        for label in variants:
            on = VARIANTS[label]
            with tempfile.TemporaryDirectory() as tmp:
                container = Container(
                    Settings(store_path=f"{tmp}/s.db", quote_vectors=on, query_cache_size=0)
                )
                recording = Recording(container.embedder)
                container.__dict__["embedder"] = recording
                getattr(recording.inner, "warm_up", lambda: None)()
                report = container.ingestor().index_folder(folder("es", 25, Path(tmp)), "bench")
                runs[label].append(
                    {
                        "chunks": report.chunks_written,
                        "texts_embedded": len(recording.texts),
                        "seconds": round(report.seconds, 2),
                        "chunks_per_s": round(report.chunks_written / report.seconds, 2),
                    }
                )
                print(f"indexing {label}: {runs[label][-1]}", flush=True)
    best = {label: max(r["chunks_per_s"] for r in rs) for label, rs in runs.items()}
    speedup = round(best["without"] / best["with"], 2) if len(best) == 2 else None
    return {"runs": runs, "best_chunks_per_s": best, "speedup": speedup}


def company(root: Path, on: bool, only: list[str] | None = None, bare: bool = False) -> list[dict[str, Any]]:
    """Every company of the set indexed (cached vectors), then each question answered (``bare``: by the model
    itself, so that what a question embeds, its units too without quote vectors, is paid for)."""
    from chalicelib.models.api import RetrieveRequest
    from sabio.evaluation import companyset

    questions = companyset.load_questions(root)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in [c for c in dict.fromkeys(q["company"] for q in questions) if not only or c in only]:
            settings = Settings(
                store_path=f"{tmp}/{name}.db",
                quote_vectors=on,
                embedding_cache=str(CACHE),
                query_cache_size=0,
            )
            container = Container(settings)
            container.ingestor().index_folder(root / name, name)
            if bare:
                container.__dict__["embedder"] = container.embedder.inner  # type: ignore[attr-defined]
            for q in (q for q in questions if q["company"] == name):
                request = RetrieveRequest(query=q["question"])
                t = time.perf_counter()
                retrieved = container.retrieval.run(request, None)
                response = container.answerer.answer_retrieved(request, retrieved)
                row = companyset.judge(q, response, [c.key for c in retrieved.chunks])
                row["ms"] = (time.perf_counter() - t) * 1000
                rows.append(row)
            container.store.close()
    return rows


def figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    from sabio.evaluation import companyset

    out = companyset.summary(rows)
    ms = sorted(r["ms"] for r in rows)
    lines = {**out["kinds"], "answerable": out["answerable"], "unanswerable": out["unanswerable"]}
    return {
        "kinds": {k: v for k, v in {**lines, "all": out["all"]}.items() if v["questions"]},
        "answer_p50_ms": round(statistics.median(ms), 1),
        "answer_p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 1),
    }


def answers(sets: list[str], variants: list[str], only: list[str] | None, bare: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in sets:
        for label in variants:
            out.setdefault(name, {})[label] = figures(company(SETS[name], VARIANTS[label], only, bare))
            print(f"company {name} {label}: done", flush=True)
    return out


def xquad(limit: int, variants: list[str]) -> dict[str, Any]:
    from sabio.evaluation.answers import check_language

    out: dict[str, Any] = {}
    for label in variants:
        on = VARIANTS[label]
        for lang in ("es", "en"):
            other = "en" if lang == "es" else "es"
            r = check_language(ROOT.parent / "shared" / "eval", lang, limit, on, (lang, other), str(CACHE))
            for qlang, row in r["questions"].items():
                keep = ("answer_correct", "abstained_answerable", "abstained_unanswerable")
                out.setdefault(label, {})[f"{lang} pool, {qlang} questions"] = {k: row[k] for k in keep}
        print(f"xquad {label}: done", flush=True)
    return out


COLUMNS = ("hit@1", "hit@5", "answer correct", "abstained", "confidently wrong")


def print_answers(result: dict[str, Any]) -> None:
    for name, by in result.items():
        print(f"\ncompany {name}: with / without quote vectors (difference)")
        print(f"| kind | n | {' | '.join(COLUMNS)} |\n|---|---|" + "---|" * len(COLUMNS))
        if len(by) < 2:
            print(json.dumps(by, indent=1))
            continue
        for kind, a in by["with"]["kinds"].items():
            b = by["without"]["kinds"][kind]
            cells = [f"{a[c]} / {b[c]} ({b[c] - a[c]:+.1f})" if a[c] is not None else "-" for c in COLUMNS]
            print(f"| {kind} | {a['questions']} | {' | '.join(cells)} |")
        w, o = by["with"], by["without"]
        print(
            f"answer p50 / p95 ms: with {w['answer_p50_ms']} / {w['answer_p95_ms']}, "
            f"without {o['answer_p50_ms']} / {o['answer_p95_ms']}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", nargs="+", default=["indexing", "answers", "xquad"])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=int, default=300, help="XQuAD questions per language")
    parser.add_argument("--sets", nargs="+", default=list(SETS), help="company sets: dev, test")
    parser.add_argument("--only", nargs="+", help="only these companies")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), help="with, without")
    parser.add_argument(
        "--bare",
        action="store_true",
        help="answer by the model itself, not the cache: latency as a user meets it",
    )
    args = parser.parse_args()
    result: dict[str, Any] = {"variants": args.variants}
    if "answers" in args.part:
        result["answers"] = answers(args.sets, args.variants, args.only, args.bare)
        print_answers(result["answers"])
    if "xquad" in args.part:
        result["xquad"] = xquad(args.limit, args.variants)
        for label, rows in result["xquad"].items():
            for key, row in rows.items():
                print(f"xquad {label}: {key}: {row}")
    if "indexing" in args.part:
        result["indexing"] = indexing(args.rounds, args.variants)
        print(f"indexing chunks/s (best of {args.rounds}): {result['indexing']['best_chunks_per_s']}")
    out = write_result("quote-vectors", result)
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
