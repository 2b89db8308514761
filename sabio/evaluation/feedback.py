"""Does feedback help without hurting? XQuAD questions split in two halves by id: half A is asked by three
keys through the logged API path and gets the feedback a careful user would give (helpful on the gold
paragraph when it was shown, unhelpful on a wrong first result); half B is held apart. Both halves are
measured before and after: B must not get worse, A shows what feedback buys.

    python -m sabio.evaluation.feedback [--data ../shared/eval] [--cache bench/cache/embeddings.sqlite]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from sabio.evaluation.answers import _paragraph
from sabio.evaluation.datasets import load_beir, paragraph_corpus

KEYS = ("reviewer-1", "reviewer-2", "reviewer-3")


def ranks(container: Any, questions: list[dict[str, Any]], paragraph_of: dict[str, str]) -> list[int | None]:
    """The rank (1-based, within 10) of each question's first gold paragraph."""
    from chalicelib.models.api import RetrieveRequest

    out: list[int | None] = []
    for q in questions:
        items = container.retrieval.retrieve(RetrieveRequest(query=q["text"], top_k=10), None).items
        found = [n for n, i in enumerate(items, start=1) if paragraph_of.get(i.chunk_id) in q["gold"]]
        out.append(found[0] if found else None)
    return out


def metrics(found: list[int | None]) -> dict[str, float]:
    n = len(found) or 1
    return {
        "recall@1": round(100 * sum(r == 1 for r in found) / n, 1),
        "recall@5": round(100 * sum(r is not None and r <= 5 for r in found) / n, 1),
        "mrr@10": round(100 * sum(1 / r for r in found if r) / n, 1),
    }


def give_feedback(container: Any, questions: list[dict[str, Any]], paragraph_of: dict[str, str]) -> int:
    from chalicelib.access.keys import KeyPolicy
    from chalicelib.models.api import FeedbackRequest, RetrieveRequest

    given = 0
    for key in KEYS:
        who = KeyPolicy(name=key)
        for q in questions:
            response = container.usage.retrieve(RetrieveRequest(query=q["text"], top_k=5), who)
            shown = [i.chunk_id for i in response.items]
            gold = [c for c in shown if paragraph_of.get(c) in q["gold"]]
            votes = [(True, gold)] if gold else []
            if shown and shown[0] not in gold:
                votes.append((False, shown[:1]))
            for helpful, chunk_ids in votes:
                request = FeedbackRequest(
                    query_id=response.query_id or "", helpful=helpful, chunk_ids=chunk_ids
                )
                container.usage.feedback(request, who)
                given += 1
    return given


def held_out(eval_dir: Path, lang: str, cache: str | None, limit: int | None = None) -> dict[str, Any]:
    from chalicelib.composition import Container
    from chalicelib.settings import Settings

    data = load_beir(eval_dir / "derived" / f"xquad_{lang}", f"xquad-{lang}")
    corpus = paragraph_corpus(f"xquad-{lang}", {lang: data}, prefixed=False)
    questions = [
        {"id": qid, "text": text, "gold": set(data.qrels[qid])} for qid, text in sorted(data.queries.items())
    ][:limit]
    half_a, half_b = questions[0::2], questions[1::2]
    with tempfile.TemporaryDirectory() as tmp:
        container = Container(Settings(store_path=f"{tmp}/s.db", embedding_cache=cache))
        objects = [(key, functools.partial(bytes, body)) for key, body in corpus.files.items()]
        container.ingestor().index_objects(f"xquad-{lang}", objects)
        store = container.chunk_store
        paragraph_of = {
            c.chunk_id: _paragraph(c.key) for c in store.get_chunks(sorted(store.all_chunk_ids()))
        }
        before = {"A": ranks(container, half_a, paragraph_of), "B": ranks(container, half_b, paragraph_of)}
        given = give_feedback(container, half_a, paragraph_of)
        after = {"A": ranks(container, half_a, paragraph_of), "B": ranks(container, half_b, paragraph_of)}
    return {
        "questions": {"A": len(half_a), "B": len(half_b)},
        "feedback_given": given,
        "A (feedback given)": {"before": metrics(before["A"]), "after": metrics(after["A"])},
        "B (held apart)": {"before": metrics(before["B"]), "after": metrics(after["B"])},
        "B changed": sum(x != y for x, y in zip(before["B"], after["B"], strict=True)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default="../shared/eval")
    parser.add_argument("--cache", default="bench/cache/embeddings.sqlite")
    parser.add_argument("--limit", type=int, default=None, help="the first N questions of each language")
    parser.add_argument("--out", default="bench/results/feedback.json")
    args = parser.parse_args()
    results = {lang: held_out(Path(args.data), lang, args.cache, args.limit) for lang in ("es", "en")}
    print(json.dumps(results, indent=2))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
