"""The blind company sets (datasets/company-train and company-test), checked as data: ids, fields, kinds, gold
files, the counts their READMEs give, and every gold answer, step and part where the scorer will look for it
(the text as Sabio extracts it). Nothing here prints a test question: a failure names ids and counts only."""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from chalicelib.extraction.dispatch import extract
from chalicelib.text import fold
from sabio.evaluation import companyset

SPLITS = ("train", "test")
FIELDS = {"id", "company", "lang", "kind", "style", "question", "docs", "answers", "steps", "parts"}


def questions(split: str) -> list[dict[str, Any]]:
    path = companyset.root_of(split) / "questions.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def extracted(split: str, company: str, doc: str) -> str:
    path = companyset.root_of(split) / company / doc
    return " ".join(fold(extract(doc, path.read_bytes(), max_bytes=10_000_000).text).split())


@pytest.mark.parametrize("split", SPLITS)
def test_questions_are_well_formed(split):
    rows = questions(split)
    assert [i for i, n in Counter(r["id"] for r in rows).items() if n > 1] == []
    wrong = []
    for q in rows:
        shape = (
            set(q) == FIELDS
            and q["kind"] in companyset.KINDS
            and q["lang"] in ("es", "en")
            and q["kind"].startswith("unanswerable") == (not q["docs"])
            and bool(q["steps"]) <= (q["kind"] == "howto")
            and bool(q["parts"]) == (q["kind"] == "multi-part")
            and bool(q["answers"] or q["steps"] or q["parts"] or not q["docs"])
        )
        if not shape:
            wrong.append(q["id"])
    assert wrong == []


def test_no_question_id_is_shared_between_the_sets():
    ids = [q["id"] for split in ("dev", *SPLITS) for q in questions(split)]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("split", SPLITS)
def test_gold_documents_exist_and_hold_every_gold_string_as_sabio_extracts_them(split):
    root = companyset.root_of(split)
    missing = [
        q["id"] for q in questions(split) for d in q["docs"] if not (root / q["company"] / d).is_file()
    ]
    assert missing == []
    unheld = []
    for q in questions(split):
        texts = [extracted(split, q["company"], d) for d in q["docs"]]
        groups = ([q["answers"]] if q["answers"] else []) + [[s] for s in q["steps"]] + list(q["parts"])
        if not all(any(fold(" ".join(a.split())) in t for a in g for t in texts) for g in groups):
            unheld.append(q["id"])
    assert unheld == [], f"{len(unheld)} questions hold a gold string their documents do not"


@pytest.mark.parametrize("split", SPLITS)
def test_the_readme_gives_the_counts_per_kind(split):
    readme = " ".join((companyset.root_of(split) / "README.md").read_text(encoding="utf-8").split())
    counts = Counter(q["kind"] for q in questions(split))
    for kind, n in counts.items():
        said = re.search(rf"{re.escape(kind)}(?: \|)? (\d+)", readme)
        assert said and int(said.group(1)) == n, f"{split}: the README's count of {kind}"
    total = re.search(r"(\d+) questions", readme)
    assert total and int(total.group(1)) == sum(counts.values())


def test_each_company_folder_is_the_folder_its_questions_name():
    for split in SPLITS:
        root: Path = companyset.root_of(split)
        named = {q["company"] for q in questions(split)}
        assert named == {p.name for p in root.iterdir() if p.is_dir()}
