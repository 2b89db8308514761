"""Answer checks on XQuAD: does the extractive answer quote the gold answer, does it abstain when the
documents do not hold the answer, and how long does it take?

For each language, the XQuAD paragraphs are indexed through Sabio's own pipeline and each question (in that
language, and in the other one: the ids are shared) is answered by ``/answer``'s code path. An answer is
correct when its cited quotes contain the gold answer (case- and accent-insensitive). Baseline: the
best-overlap sentence of the top retrieved chunk. Abstention: the same question answered again with its
paragraph taken out of the retrieved pool (unanswerable) should say "not in the documents"; with it
(answerable) it should not.

    python -m sabio.evaluation.answers [--limit 300] [--data ../shared/eval]

Every question is answered once without abstaining; the figures at the configured threshold
(``SABIO_ANSWER_MIN_CONFIDENCE``), under each threshold of ``CURVE``, at matched abstention (``MATCHED``) and
the confidence's calibration are computed from the same answers.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sabio.evaluation.companyset import configured_threshold
from sabio.evaluation.datasets import load_beir, paragraph_corpus


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


def _without(retrieved: Any, gold: set[str]) -> Any:
    """The same retrieval with the gold paragraph gone from the pool: an unanswerable question."""
    from dataclasses import replace

    return replace(retrieved, chunks=[c for c in retrieved.chunks if _paragraph(c.key) not in gold])


def _paragraph(key: str) -> str:
    return key.removesuffix(".md").split("/", 1)[1]


def check_language(
    eval_dir: Path,
    lang: str,
    limit: int | None,
    quote_vectors: bool,
    question_langs: tuple[str, ...],
    cache: str | None = None,
) -> dict[str, Any]:
    """Index ``lang``'s XQuAD paragraphs; ask each language's questions (the ids are shared, so a Spanish
    question has its paragraph in the English pool too)."""
    from chalicelib.composition import Container
    from chalicelib.settings import Settings

    data = load_beir(eval_dir / "derived" / f"xquad_{lang}", f"xquad-{lang}")
    corpus = paragraph_corpus(f"xquad-{lang}", {lang: data}, prefixed=False)
    rows: dict[str, Any] = {}
    threshold = configured_threshold()  # the configured one, applied below to every confidence
    with tempfile.TemporaryDirectory() as tmp:
        container = Container(
            Settings(
                store_path=f"{tmp}/s.db",
                quote_vectors=quote_vectors,
                embedding_cache=cache,
                answer_min_confidence=0.0,  # never abstains: every answer is seen
            )
        )
        from chalicelib.answer.generated import LLMAnswerer

        configured = container.answerer
        # the extractive answerer: what runs with no LLM, and the last fallback
        answerer = configured.fallback if isinstance(configured, LLMAnswerer) else configured
        t = time.perf_counter()
        objects = [(key, functools.partial(bytes, data)) for key, data in corpus.files.items()]
        report = container.ingestor().index_objects("xquad", objects)
        index_s = time.perf_counter() - t
        answers = _gold_answers(eval_dir, lang)  # as the pool's paragraph words them
        for qlang in question_langs:
            questions = _questions(eval_dir, qlang, limit)
            asked = _ask(container, answerer, data, questions, answers, lang if qlang == lang else None)
            rows[qlang] = _figures(asked, threshold)
    return {"chunks": report.chunks_written, "index_s": round(index_s, 1), "questions": rows}


def _questions(eval_dir: Path, lang: str, limit: int | None) -> list[dict[str, Any]]:
    path = eval_dir / "derived" / f"xquad_{lang}" / "queries.jsonl"
    questions = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    return sorted(questions, key=lambda q: q["_id"])[:limit] if limit else questions


def _gold_answers(eval_dir: Path, lang: str) -> dict[str, str]:
    """Each question's answer as ``lang``'s paragraph words it (an English paragraph holds the English one)."""
    return {q["_id"]: q["answer"] for q in _questions(eval_dir, lang, None)}


@dataclass
class _Asked:
    """A language's questions answered: per question (confidence, right, confidence without the paragraph),
    the baseline's correct answers (same-language questions only), and the latencies."""

    seen: list[tuple[float | None, bool, float | None]]
    baseline: int | None
    answer_ms: list[float]
    retrieve_ms: list[float]


def _ask(
    container: Any,
    answerer: Any,
    data: Any,
    questions: list[dict[str, Any]],
    answers: dict[str, str],
    baseline_lang: str | None,
) -> _Asked:
    """Each question answered with its paragraph in the pool and again without it."""
    from chalicelib.models.api import RetrieveRequest

    asked = _Asked([], 0 if baseline_lang else None, [], [])
    for q in questions:
        gold = set(data.qrels[q["_id"]])
        request = RetrieveRequest(query=q["text"], top_k=5)
        t = time.perf_counter()
        retrieved = container.retrieval.run(request, None)
        asked.retrieve_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        response = answerer.answer_retrieved(request, retrieved)
        asked.answer_ms.append((time.perf_counter() - t) * 1000 + asked.retrieve_ms[-1])
        without = answerer.answer_retrieved(request, _without(retrieved, gold))
        asked.seen.append(
            (
                response.confidence if response.answered else None,
                contains([c.quote for c in response.citations], answers[q["_id"]]),
                without.confidence if without.answered else None,
            )
        )
        if baseline_lang and retrieved.chunks and asked.baseline is not None:
            top = retrieved.chunks[0]
            asked.baseline += contains([overlap_baseline(q["text"], top.content, baseline_lang)], q["answer"])
    return asked


def _figures(asked: _Asked, threshold: float) -> dict[str, Any]:
    """A language's row: its figures at the configured threshold, the curve of other thresholds, latency."""
    n = len(asked.seen)
    answer_ms = asked.answer_ms
    return {
        "questions": n,
        **at_threshold(asked.seen, threshold),
        "baseline_correct": round(100 * asked.baseline / n, 1) if asked.baseline is not None else None,
        "threshold": threshold,
        # the same answers under other thresholds, and their calibration
        "curve": {f"{t:.2f}": at_threshold(asked.seen, t) for t in CURVE},
        "calibration": _calibration(asked.seen, threshold),
        "abstaining": {f"{s:g}": matched(asked.seen, s) for s in MATCHED},
        "retrieve_p50_ms": round(statistics.median(asked.retrieve_ms), 1),
        "answer_p50_ms": round(statistics.median(answer_ms), 1),
        "answer_p95_ms": round(sorted(answer_ms)[int(0.95 * (n - 1))], 1),
    }


CURVE = tuple(round(0.05 * i, 2) for i in range(20))  # confidence 0.00 .. 0.95
# abstention shares on answerable questions the answers are compared at ("at matched abstention")
MATCHED = (5.0, 8.0, 10.0, 15.0)


def matched(seen: list[tuple[float | None, bool, float | None]], abstained: float) -> dict[str, float]:
    """Correct (%) when the ``abstained`` % least sure answers to answerable questions are withheld, and what
    that threshold withholds of the unanswerable ones: answers compared at matched abstention."""
    sure = sorted(e if e is not None else -1.0 for e, _, _ in seen)
    cut = sure[min(len(sure) - 1, int(len(sure) * abstained / 100))] if sure else 0.0
    return at_threshold(seen, cut)


def _calibration(seen: list[tuple[float | None, bool, float | None]], threshold: float) -> dict[str, Any]:
    """The confidence read on every answer given, with and without its paragraph (without, none is right)."""
    from sabio.evaluation.calibration import calibration

    p = [e for e, _, _ in seen if e is not None] + [w for _, _, w in seen if w is not None]
    y = [ok for e, ok, _ in seen if e is not None] + [False for _, _, w in seen if w is not None]
    return calibration(p, y, threshold)


def at_threshold(seen: list[tuple[float | None, bool, float | None]], threshold: float) -> dict[str, float]:
    """Correct and abstained shares (%) had the answerer abstained under ``threshold``: what it does, on the
    confidence of its answer (a question with nothing to quote is never answered)."""

    def kept(confidence: float | None) -> bool:
        return confidence is not None and confidence >= threshold

    n = max(1, len(seen))
    return {
        "answer_correct": round(100 * sum(ok and kept(e) for e, ok, _ in seen) / n, 1),
        "abstained_answerable": round(100 * sum(not kept(e) for e, _, _ in seen) / n, 1),
        "abstained_unanswerable": round(100 * sum(not kept(w) for _, _, w in seen) / n, 1),
    }


def run(eval_dir: Path, cache: str | None, limit: int | None = None) -> dict[str, Any]:
    """Every XQuAD question of both languages over each language's pool (what ``sabio eval`` reports)."""
    return {
        lang: check_language(eval_dir, lang, limit, True, (lang, "en" if lang == "es" else "es"), cache)
        for lang in ("es", "en")
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
    parser.add_argument(
        "--cache", help="embedding cache (SQLite) shared with sabio eval, e.g. bench/cache/embeddings.sqlite"
    )
    parser.add_argument("--same-language", action="store_true", help="skip the other language's questions")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"limit": args.limit}
    variants = [("index-time quote vectors", True)] + (
        [("query-time quote vectors", False)] if args.compare else []
    )
    for label, stored in variants:
        for lang in ("es", "en"):
            questions = (lang, *([] if args.same_language else [o for o in ("es", "en") if o != lang]))
            r = check_language(Path(args.data), lang, args.limit or None, stored, questions, args.cache)
            results.setdefault(label, {})[lang] = r
            print(f"{label}: {lang} pool, {r['chunks']} chunks indexed in {r['index_s']} s", flush=True)
            for qlang, row in r["questions"].items():
                baseline = (
                    f" (baseline {row['baseline_correct']})" if row["baseline_correct"] is not None else ""
                )
                print(
                    f"  {qlang} questions: correct {row['answer_correct']:>5}{baseline}; abstained on "
                    f"{row['abstained_unanswerable']} % without the paragraph, {row['abstained_answerable']} % "
                    f"with it; answer p50 {row['answer_p50_ms']} ms / p95 {row['answer_p95_ms']} ms "
                    f"(retrieve p50 {row['retrieve_p50_ms']} ms)",
                    flush=True,
                )
                for t, at in row["curve"].items():
                    mark = " <- configured" if float(t) == row["threshold"] else ""
                    print(
                        f"    confidence >= {t}: correct {at['answer_correct']:>5}, abstained "
                        f"{at['abstained_unanswerable']:>5} % / {at['abstained_answerable']:>5} %{mark}"
                    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
