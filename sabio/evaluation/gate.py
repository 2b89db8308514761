"""The regression gate: Sabio's default configuration on a fixed slice of the hard Spanish pool.

The full run (``sabio eval``) records the slice's figures in ``bench/eval_gate.json``; ``make test`` measures
the slice again from nothing (real model, real SQLite, no cache) and fails if Recall@5 falls below the record.
Two more slices hold the do-no-harm rule on the questions people ask: the user questions (es, en) whose answer
is in the FastAPI tutorial, where Sabio's retrieve must not fall more than a point of Recall@5 below the plain
RRF of its own dense and BM25 lists.
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chalicelib.settings import Settings
from sabio.evaluation.datasets import (
    Corpus,
    QuerySet,
    as_targets,
    fastapi_corpus,
    hard_spanish_pool,
    paragraph_corpus,
    user_questions,
)
from sabio.evaluation.metrics import summary
from sabio.evaluation.runner import bm25_rankings, build, by_target, dense_rankings, pipeline, rrf

ARTICLES = 3  # the first three XQuAD articles, their questions, and every SQuAD-es paragraph of them
TUTORIAL = "tutorial/"  # the user-question slice: the FastAPI tutorial, in each of USER_LANGS
USER_LANGS = ("es", "en")


def subset(eval_dir: Path) -> tuple[Any, QuerySet]:
    pool = hard_spanish_pool(eval_dir)
    # ids are "<article>_<paragraph>" (XQuAD) and "squad_<article>_<paragraph>" (the distractors)
    docs = {d for d in pool.corpus if int(d.removeprefix("squad_").split("_")[0]) < ARTICLES}
    pool.corpus = {d: pool.corpus[d] for d in docs}
    qrels = {q: rel for q, rel in pool.qrels.items() if set(rel) <= docs}
    queries = {q: pool.queries[q] for q in qrels}
    corpus = paragraph_corpus("gate", {"es": pool}, prefixed=False)
    return corpus, QuerySet("gate: hard Spanish pool slice", "gate", queries, qrels, "auto", "es")


def user_subset(eval_dir: Path, lang: str) -> tuple[Corpus, QuerySet]:
    """The FastAPI tutorial (every file under ``tutorial/``) and the user questions whose answer is there."""
    full = fastapi_corpus(eval_dir, lang)
    files = {k: v for k, v in full.files.items() if k.startswith(TUTORIAL)}
    plain = [(d, text) for d, text in full.plain if d.startswith(TUTORIAL)]
    corpus = Corpus(f"gate-user-{lang}", files, plain, lang, full.targets)
    qs = user_questions(eval_dir, lang, lang)
    keep = [q for q, rel in qs.qrels.items() if all(d.startswith(TUTORIAL) for d in rel)]
    return corpus, QuerySet(
        f"gate: user questions {lang} (tutorial)",
        corpus.name,
        {q: qs.queries[q] for q in keep},
        {q: qs.qrels[q] for q in keep},
        "auto",
        lang,
        equivalent={q: qs.equivalent.get(q, {}) for q in keep},
    )


def slice_figures(corpus: Corpus, qs: QuerySet, cache: Path | None) -> dict[str, Any]:
    """Sabio's retrieve on one slice, and the do-no-harm baseline: the plain RRF of its own dense and BM25."""
    embed_text = Settings().embed_text
    with tempfile.TemporaryDirectory(prefix="sabio-gate-") as tmp:
        built = build(corpus, embed_text, Path(tmp), cache)
        runs = pipeline(built, qs).runs
        dense, _ = dense_rankings(built, qs)
        bm25, _ = bm25_rankings(built, qs)
        plain = {
            q: rrf([by_target(built, dense[q], qs.qrels[q]), by_target(built, bm25[q], qs.qrels[q])])
            for q in qs.queries
        }
        built.container.store.close()
    row = summary(as_targets(runs, qs), qs.qrels)
    base = summary(as_targets(plain, qs), qs.qrels)
    return {
        "documents": len(corpus.plain),
        "queries": len(qs.queries),
        **{k: row[k] for k in ("recall@1", "recall@5", "mrr@10")},
        "plain_rrf": {k: base[k] for k in ("recall@1", "recall@5", "mrr@10")},
    }


def measure(eval_dir: Path, cache: Path | None) -> dict[str, Any]:
    corpus, qs = subset(eval_dir)
    figures = {"embed_text": Settings().embed_text, **slice_figures(corpus, qs, cache)}
    figures["user_questions"] = {
        lang: slice_figures(*user_subset(eval_dir, lang), cache) for lang in USER_LANGS
    }
    return figures


def record(eval_dir: Path, cache: Path | None, path: Path) -> dict[str, Any]:
    figures = {**measure(eval_dir, cache), "recorded": datetime.now(UTC).isoformat(timespec="seconds")}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return figures
