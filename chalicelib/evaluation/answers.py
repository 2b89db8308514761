"""Answer checks on XQuAD: does the extractive answer quote the gold answer, and how long does it take?

For each language, the XQuAD paragraphs are indexed through Sabio's own pipeline and each question is
answered by ``/answer``'s code path. An answer is correct when its cited quotes contain the gold answer
(case- and accent-insensitive). Baseline: the best-overlap sentence of the top retrieved chunk.

    python -m chalicelib.evaluation.answers [--limit 300] [--data ../shared/eval]
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import Any

from chalicelib.evaluation.datasets import load_beir, paragraph_corpus


def fold(text: str) -> str:
    nfkd = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in nfkd if not unicodedata.combining(c)).split())


def contains(quotes: list[str], gold: str) -> bool:
    g = fold(gold).strip(" .,;")
    return bool(g) and any(g in fold(q) for q in quotes)


def overlap_baseline(question: str, content: str, lang: str) -> str:
    """The simple baseline: the sentence of the top chunk sharing the most stems with the question."""
    from chalicelib.quotes import candidate_sentences
    from chalicelib.text import stem, terms

    q = set(stem(terms(question, lang), lang))
    options = candidate_sentences(content) or [content]
    return max(options, key=lambda s: len(q & set(stem(terms(s, lang), lang))))


def check_language(eval_dir: Path, lang: str, limit: int | None, quote_vectors: bool) -> dict[str, Any]:
    from chalicelib.composition import Container
    from chalicelib.models import RetrieveRequest
    from chalicelib.settings import Settings

    data = load_beir(eval_dir / "derived" / f"xquad_{lang}", f"xquad-{lang}")
    answers = {
        json.loads(line)["_id"]: json.loads(line)["answer"]
        for line in (eval_dir / "derived" / f"xquad_{lang}" / "queries.jsonl").read_text("utf-8").splitlines()
    }
    corpus = paragraph_corpus(f"xquad-{lang}", {lang: data}, prefixed=False)
    with tempfile.TemporaryDirectory() as tmp:
        container = Container(Settings(store_path=f"{tmp}/s.db", quote_vectors=quote_vectors))
        t = time.perf_counter()
        objects = [(key, functools.partial(bytes, data)) for key, data in corpus.files.items()]
        report = container.ingestor().index_objects("xquad", objects)
        index_s = time.perf_counter() - t
        qids = sorted(data.queries)[:limit] if limit else sorted(data.queries)
        sabio = base = 0
        answer_ms, retrieve_ms = [], []
        for qid in qids:
            request = RetrieveRequest(query=data.queries[qid], top_k=5)
            t = time.perf_counter()
            retrieved = container.retriever.run(request)
            retrieve_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            response = container.answerer.answer(request)
            answer_ms.append((time.perf_counter() - t) * 1000)
            sabio += contains([c.quote for c in response.citations], answers[qid])
            if retrieved.chunks:
                top = retrieved.chunks[0]
                base += contains([overlap_baseline(data.queries[qid], top.content, lang)], answers[qid])
    n = len(qids)
    return {
        "questions": n,
        "chunks": report.chunks_written,
        "index_s": round(index_s, 1),
        "answer_correct": round(100 * sabio / n, 1),
        "baseline_correct": round(100 * base / n, 1),
        "retrieve_p50_ms": round(statistics.median(retrieve_ms), 1),
        "answer_p50_ms": round(statistics.median(answer_ms), 1),
        "answer_p95_ms": round(sorted(answer_ms)[int(0.95 * (n - 1))], 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", default="../shared/eval")
    parser.add_argument("--limit", type=int, default=300, help="questions per language (0: all 1,190)")
    parser.add_argument("--out", default="bench/results/answers.json")
    parser.add_argument(
        "--compare", action="store_true", help="also run with quote vectors embedded at query time"
    )
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"limit": args.limit}
    variants = [("index-time quote vectors", True)] + (
        [("query-time quote vectors", False)] if args.compare else []
    )
    for label, stored in variants:
        for lang in ("es", "en"):
            r = check_language(Path(args.data), lang, args.limit or None, stored)
            results.setdefault(label, {})[lang] = r
            print(
                f"{label:<26} {lang}: correct {r['answer_correct']:>5} (baseline {r['baseline_correct']}), "
                f"answer p50 {r['answer_p50_ms']} ms / p95 {r['answer_p95_ms']} ms vs retrieve p50 "
                f"{r['retrieve_p50_ms']} ms; indexed {r['chunks']} chunks in {r['index_s']} s",
                flush=True,
            )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
