"""The blind company sets (datasets/company-train and company-test, and the threads over the test folders in
datasets/threads-test), checked as data: ids, fields, kinds, gold
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
from tests.conftest import ROOT

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


# ------------------------------------------------------------------------- threads over the test folders


def blind_threads() -> list[dict[str, Any]]:
    from sabio.evaluation import threads

    return threads.load(threads.SPLITS["test"][0])


def test_the_blind_threads_are_well_formed_and_answerable_from_their_gold_documents():
    """datasets/threads-test: ids unique, two or three turns, every turn's gold files present and holding one
    of its answer strings as Sabio extracts them (failures name ids only)."""
    rows = blind_threads()
    assert [i for i, n in Counter(t["id"] for t in rows).items() if n > 1] == []
    companies = {p.name for p in companyset.root_of("test").iterdir() if p.is_dir()}
    fields = {"question", "lang", "standalone", "docs", "answers"}
    wrong = []
    for t in rows:
        for n, turn in enumerate(t["turns"], start=1):
            shape = t["company"] in companies and len(t["turns"]) in (2, 3) and set(turn) == fields
            docs = [companyset.root_of("test") / t["company"] / d for d in turn["docs"]]
            if (
                not shape
                or turn["lang"] not in ("es", "en")
                or not docs
                or not all(d.is_file() for d in docs)
            ):
                wrong.append(f"{t['id']}/{n}")
                continue
            texts = [extracted("test", t["company"], d) for d in turn["docs"]]
            if not any(fold(" ".join(a.split())) in x for a in turn["answers"] for x in texts):
                wrong.append(f"{t['id']}/{n}")
    assert wrong == [], f"{len(wrong)} turns are malformed or hold no answer their documents hold"


def test_the_blind_threads_readme_gives_their_counts():
    rows = blind_threads()
    readme = " ".join((ROOT / "datasets" / "threads-test" / "README.md").read_text(encoding="utf-8").split())
    turns = [turn for t in rows for turn in t["turns"]]
    switched = sum(
        any(a["lang"] != b["lang"] for a, b in zip(t["turns"], t["turns"][1:], strict=False)) for t in rows
    )
    expected = (
        f"{len(rows)} threads ({sum(len(t['turns']) == 2 for t in rows)} of two turns, "
        f"{sum(len(t['turns']) == 3 for t in rows)} of three)",
        f"{Counter(x['lang'] for x in turns)['es']} turns in Spanish, {Counter(x['lang'] for x in turns)['en']} "
        f"in English; {len(turns) - len(rows)} follow-ups; {switched} threads switch language",
    )
    for sentence in expected:
        assert sentence in readme
    for company, n in Counter(t["company"] for t in rows).items():
        assert f"| `{company}` | {n} |" in readme


def test_the_blind_threads_are_scored_in_aggregate_only(monkeypatch, capsys):
    """The test split's result keeps no turn's row, and --show is refused before anything runs."""
    from sabio.evaluation import threads

    with pytest.raises(SystemExit):
        threads.main(["--split", "test", "--show", "missed"])
    assert "aggregate" in capsys.readouterr().err

    def turn(company: str, n: int) -> dict[str, Any]:
        alone = {"hit5": True, "correct": True, "answered": True}
        return {"id": f"x/{n}", "kind": "follow-up" if n > 1 else "first", "lang": "es", "company": company,
                "hit5": True, "correct": n % 2 == 0, "answered": True, "in_language": True, "switched": False,
                "resolved_by": "offline", "standalone": alone, "no history": alone}  # fmt: skip

    monkeypatch.setattr(
        threads, "run_company", lambda company, *a, **k: [turn(company, n) for n in (1, 2, 3)]
    )
    test, train = (
        threads.run(split="test", log=lambda _: None),
        threads.run(split="train", log=lambda _: None),
    )
    assert "rows" not in test and "rows" not in threads.compact(test)
    # turn 2 is answered right, turn 3 answered wrong: what the aggregate says of each
    followed = test["all"]["followed"]
    assert (followed["answer correct"], followed["confidently wrong"]) == (50.0, 50.0)
    assert test["all"]["standalone"]["confidently wrong"] == 0.0
    assert len(train["rows"]) == 3 * len({t["company"] for t in threads.load(threads.SPLITS["train"][0])})
