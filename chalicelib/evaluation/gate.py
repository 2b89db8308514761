"""The regression gate: Sabio's default configuration on a fixed slice of the hard Spanish pool.

The full run (``sabio eval``) records the slice's figures in ``bench/eval_gate.json``; ``make test`` measures
the slice again from nothing (real model, real SQLite, no cache) and fails if Recall@5 falls below the record.
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chalicelib.evaluation.datasets import QuerySet, hard_spanish_pool, paragraph_corpus
from chalicelib.evaluation.metrics import summary
from chalicelib.evaluation.runner import build, pipeline
from chalicelib.settings import Settings

ARTICLES = 3  # the first three XQuAD articles, their questions, and every SQuAD-es paragraph of them


def subset(eval_dir: Path) -> tuple[Any, QuerySet]:
    pool = hard_spanish_pool(eval_dir)
    # ids are "<article>_<paragraph>" (XQuAD) and "squad_<article>_<paragraph>" (the distractors)
    docs = {d for d in pool.corpus if int(d.removeprefix("squad_").split("_")[0]) < ARTICLES}
    pool.corpus = {d: pool.corpus[d] for d in docs}
    qrels = {q: rel for q, rel in pool.qrels.items() if set(rel) <= docs}
    queries = {q: pool.queries[q] for q in qrels}
    corpus = paragraph_corpus("gate", {"es": pool}, prefixed=False)
    return corpus, QuerySet("gate: hard Spanish pool slice", "gate", queries, qrels, "auto", "es")


def measure(eval_dir: Path, cache: Path | None) -> dict[str, Any]:
    corpus, qs = subset(eval_dir)
    embed_text = Settings().embed_text
    with tempfile.TemporaryDirectory(prefix="sabio-gate-") as tmp:
        built = build(corpus, embed_text, Path(tmp), cache)
        outcome = pipeline(built, qs)
        built.container.store.close()
    row = summary(outcome.runs, qs.qrels)
    return {
        "documents": len(corpus.plain),
        "queries": len(qs.queries),
        "embed_text": embed_text,
        **{k: row[k] for k in ("recall@1", "recall@5", "mrr@10")},
    }


def record(eval_dir: Path, cache: Path | None, path: Path) -> dict[str, Any]:
    figures = {**measure(eval_dir, cache), "recorded": datetime.now(UTC).isoformat(timespec="seconds")}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return figures
