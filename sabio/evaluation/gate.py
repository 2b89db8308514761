"""The regression gate: Sabio's default configuration on a fixed slice of the hard Spanish pool.

The full run (``sabio eval``) records the slice's figures in ``bench/eval_gate.json``; ``make test`` measures
the slice again from nothing (real model, real SQLite, no cache) and fails if Recall@5 falls below the record.
Two more slices hold the do-no-harm rule on the questions people ask: the user questions (es, en) whose answer
is in the FastAPI tutorial, where Sabio's retrieve must not fall more than one question of Recall@5 below the
plain RRF of its own dense and BM25 lists. A third asks the Spanish ones over the English tutorial (es -> en), where
the question is translated when a translator is installed (``translator`` in the record says which).
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chalicelib.composition import Container
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
CROSS = ("es", "en")  # Spanish user questions over the English tutorial


def subset(eval_dir: Path) -> tuple[Any, QuerySet]:
    pool = hard_spanish_pool(eval_dir)
    # ids are "<article>_<paragraph>" (XQuAD) and "squad_<article>_<paragraph>" (the distractors)
    docs = {d for d in pool.corpus if int(d.removeprefix("squad_").split("_")[0]) < ARTICLES}
    pool.corpus = {d: pool.corpus[d] for d in docs}
    qrels = {q: rel for q, rel in pool.qrels.items() if set(rel) <= docs}
    queries = {q: pool.queries[q] for q in qrels}
    corpus = paragraph_corpus("gate", {"es": pool}, prefixed=False)
    return corpus, QuerySet("gate: hard Spanish pool slice", "gate", queries, qrels, "auto", "es")


def tutorial(eval_dir: Path, lang: str) -> Corpus:
    """The FastAPI tutorial: every file under ``tutorial/`` of the docs in ``lang``."""
    full = fastapi_corpus(eval_dir, lang)
    files = {k: v for k, v in full.files.items() if k.startswith(TUTORIAL)}
    plain = [(d, text) for d, text in full.plain if d.startswith(TUTORIAL)]
    return Corpus(f"gate-user-{lang}", files, plain, lang, full.targets)


def user_subset(eval_dir: Path, lang: str) -> tuple[Corpus, QuerySet]:
    """The FastAPI tutorial in ``lang`` and the user questions in ``lang`` whose answer is there."""
    return tutorial(eval_dir, lang), tutorial_questions(eval_dir, lang, lang)


def tutorial_questions(eval_dir: Path, lang: str, docs: str) -> QuerySet:
    """The user questions in ``lang`` whose answer is in the tutorial, asked over the docs in ``docs``."""
    qs = user_questions(eval_dir, lang, docs)
    keep = [q for q, rel in qs.qrels.items() if all(d.startswith(TUTORIAL) for d in rel)]
    name = lang if docs == lang else f"{lang} -> {docs}"
    return QuerySet(
        f"gate: user questions {name} (tutorial)",
        f"gate-user-{docs}",
        {q: qs.queries[q] for q in keep},
        {q: qs.qrels[q] for q in keep},
        "auto",
        lang,
        equivalent={q: qs.equivalent.get(q, {}) for q in keep},
    )


def slice_figures(corpus: Corpus, qs: QuerySet, cache: Path | None) -> dict[str, Any]:
    """Sabio's retrieve on one slice, and the do-no-harm baseline: the plain RRF of its own dense and BM25."""
    return slices_figures(corpus, [qs], cache)[0]


def slices_figures(corpus: Corpus, sets: list[QuerySet], cache: Path | None) -> list[dict[str, Any]]:
    """``slice_figures`` for several query sets over one corpus, embedded once."""
    embed_text = Settings().ingest.embed_text
    out = []
    with tempfile.TemporaryDirectory(prefix="sabio-gate-") as tmp:
        built = build(corpus, embed_text, Path(tmp), cache)
        for qs in sets:
            runs = pipeline(built, qs).runs
            dense, _ = dense_rankings(built, qs)
            bm25, _ = bm25_rankings(built, qs)
            plain = {
                q: rrf([by_target(built, dense[q], qs.qrels[q]), by_target(built, bm25[q], qs.qrels[q])])
                for q in qs.queries
            }
            row = summary(as_targets(runs, qs), qs.qrels)
            base = summary(as_targets(plain, qs), qs.qrels)
            out.append(
                {
                    "documents": len(corpus.plain),
                    "queries": len(qs.queries),
                    **{k: row[k] for k in ("recall@1", "recall@5", "mrr@10")},
                    "plain_rrf": {k: base[k] for k in ("recall@1", "recall@5", "mrr@10")},
                }
            )
        built.container.store.close()
    return out


def measure(eval_dir: Path, cache: Path | None) -> dict[str, Any]:
    corpus, qs = subset(eval_dir)
    figures = {"embed_text": Settings().ingest.embed_text, **slice_figures(corpus, qs, cache)}
    figures["user_questions"] = {}
    for lang in USER_LANGS:
        corpus, same = user_subset(eval_dir, lang)
        sets = [same]
        if lang == CROSS[1]:
            sets.append(tutorial_questions(eval_dir, CROSS[0], lang))
        found = slices_figures(corpus, sets, cache)
        figures["user_questions"][lang] = found[0]
        if len(found) > 1:
            figures["user_questions"][" -> ".join(CROSS)] = found[1]
    figures["translator"] = translator_name()
    return figures


def translator_name(settings: Settings | None = None) -> str:
    """Which translator ``settings`` (default: Sabio's defaults) runs here ("none" when none is installed)."""
    return Container(settings).translator_name  # not its class: a remembering wrapper has its own


def record(eval_dir: Path, cache: Path | None, path: Path) -> dict[str, Any]:
    figures = {**measure(eval_dir, cache), "recorded": datetime.now(UTC).isoformat(timespec="seconds")}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return figures
