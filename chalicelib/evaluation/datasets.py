"""The evaluation datasets of ../shared/eval in BEIR shape (corpus, queries, qrels)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Dataset:
    name: str
    corpus: dict[str, dict[str, str]]  # doc id -> {"title", "text"}
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def load_beir(folder: Path, name: str) -> Dataset:
    corpus = {}
    for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        corpus[row["_id"]] = {"title": row.get("title", ""), "text": row["text"]}
    queries = {}
    for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        queries[row["_id"]] = row["text"]
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, score = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(score)
    return Dataset(name, corpus, queries, qrels)


def hard_spanish_pool(eval_dir: Path) -> Dataset:
    """XQuAD-es plus the SQuAD-es paragraphs that are not XQuAD's (matched by shared question ids, because
    SQuAD-es is a different machine translation of the same English paragraphs)."""
    xquad = load_beir(eval_dir / "derived" / "xquad_es", "hard-es")
    xquad_question_ids = set(xquad.queries)
    squad = json.loads((eval_dir / "squad_es" / "dev-v1.1-es_small.json").read_text(encoding="utf-8"))
    corpus = dict(xquad.corpus)
    for a, article in enumerate(squad["data"]):
        for p, paragraph in enumerate(article["paragraphs"]):
            if any(qa["id"] in xquad_question_ids for qa in paragraph["qas"]):
                continue  # the same paragraph as an XQuAD one: a duplicate, not a distractor
            corpus[f"squad_{a}_{p}"] = {
                "title": article["title"].replace("_", " "),
                "text": paragraph["context"],
            }
    return Dataset("hard-es", corpus, xquad.queries, xquad.qrels)
