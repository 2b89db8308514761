"""The evaluation sets of datasets/ checked as data: ids, gold files, kinds, the counts their READMEs give,
and every gold answer and anchor where the scorer will look for it (text as Sabio extracts it; no embedding).

The JSONL files are the sets' only copy, so what their generators once checked before writing them is
checked here. datasets/company-test is not read here: it is the blind set, which nobody reads."""

from __future__ import annotations

import json
import re
import tarfile
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from chalicelib.extraction.dispatch import extract
from chalicelib.text import fold
from sabio.evaluation import coderepos, codeset, companyset
from tests.conftest import ROOT

COMPANY = ROOT / "datasets" / "company-dev"
CODE = ROOT / "datasets" / "code"
COMPANIES = ("cafetal-norte", "tramo", "albor")
STYLES = {"normal", "keywords", "typo", "rambling"}
LANGS = {"es", "en"}


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def table(readme: Path, header: str) -> dict[str, list[str]]:
    """The Markdown table of ``readme`` whose first header cell is ``header``: first cell -> the others."""
    rows: dict[str, list[str]] = {}
    inside = False
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == header:
            inside = True
        elif inside and not line.startswith("|"):
            break
        elif inside and not set(cells[0]) <= set("-: "):
            rows[cells[0].strip("`").rstrip("/")] = cells[1:]
    assert rows, f"{readme} has no table headed {header!r}"
    return rows


def said(readme: Path, pattern: str) -> list[int]:
    """The numbers of the first sentence of ``readme`` matching ``pattern`` (its groups)."""
    found = re.search(pattern, " ".join(readme.read_text(encoding="utf-8").split()))
    assert found, f"{readme} no longer says {pattern!r}"
    return [int(n) for n in found.groups()]


def assert_unique_ids(rows: list[dict[str, Any]]) -> None:
    repeated = [i for i, n in Counter(r["id"] for r in rows).items() if n > 1]
    assert not repeated, f"ids used twice: {repeated}"


# ------------------------------------------------------------------------------------------ company-dev


@pytest.fixture(scope="module")
def company() -> list[dict[str, Any]]:
    return jsonl(COMPANY / "questions.jsonl")


def test_company_questions_are_well_formed(company):
    assert_unique_ids(company)
    fields = {"id", "company", "lang", "kind", "style", "question", "docs", "answers", "steps"}
    for q in company:
        assert set(q) == fields, q["id"]
        assert q["company"] in COMPANIES and q["lang"] in LANGS and q["style"] in STYLES, q["id"]
        assert q["kind"] in companyset.KINDS, f"{q['id']}: unknown kind {q['kind']!r}"
        assert q["question"].strip() and (q["answers"] or not q["docs"]), q["id"]
        assert q["kind"].startswith("unanswerable") == (not q["docs"]), (
            f"{q['id']}: unanswerable questions, and only they, have no documents"
        )
        assert bool(q["steps"]) <= (q["kind"] == "howto"), f"{q['id']}: steps belong to how-to questions"


def test_company_gold_documents_exist(company):
    missing = [
        f"{q['id']}: {q['company']}/{doc}"
        for q in company
        for doc in q["docs"]
        if not gold_file(q, doc).is_file()
    ]
    assert not missing


def test_company_gold_answers_and_steps_are_in_a_gold_document_as_sabio_extracts_it(company):
    """What the scorer counts as correct can be quoted: each answer and step is in one of its gold files."""
    problems = []
    for q in company:
        texts = [extracted(q["company"], doc) for doc in q["docs"]]
        for answer in q["answers"] + q["steps"]:
            if not any(fold(" ".join(answer.split())) in text for text in texts):
                problems.append(f"{q['id']}: {answer!r} is in none of {q['docs']}")
    assert not problems


def test_company_counts_are_those_its_readme_gives(company):
    readme = COMPANY / "README.md"
    assert said(readme, r"and (\d+) questions") == [len(company)]
    kinds = table(readme, "kind")
    assert Counter(q["kind"] for q in company) == {k: int(v[0]) for k, v in kinds.items()}
    assert set(kinds) <= set(companyset.KINDS)  # every kind it has is scored (multi-part: company-train's)
    spanish, english, *styles = said(
        readme,
        r"(\d+) Spanish, (\d+) English; (\d+) written as full questions, (\d+) as search-box keywords, "
        r"(\d+) with slips and no accents, (\d+) long and rambling",
    )
    assert Counter(q["lang"] for q in company) == {"es": spanish, "en": english}
    assert Counter(q["style"] for q in company) == dict(
        zip(("normal", "keywords", "typo", "rambling"), styles, strict=True)
    )


def test_company_folders_hold_the_documents_and_formats_its_readme_gives():
    folders = table(COMPANY / "README.md", "folder")
    assert set(folders) == set(COMPANIES)
    for name, (_, documents, formats, _) in folders.items():
        files = [p for p in (COMPANY / name).rglob("*") if p.is_file()]
        assert len(files) == int(documents), name
        assert {p.suffix.lstrip(".") for p in files} == {f.strip() for f in formats.split(",")}, name


def gold_file(question: dict[str, Any], doc: str) -> Path:
    return COMPANY / question["company"] / doc


@cache
def extracted(company: str, doc: str, root: Path = COMPANY) -> str:
    """A document's text as Sabio indexes it, folded and with its white space collapsed ("" if absent)."""
    path = root / company / doc
    if not path.is_file():
        return ""
    return " ".join(fold(extract(doc, path.read_bytes(), max_bytes=10_000_000).text).split())


# ------------------------------------------------------------------------------------------ threads

TRAIN = ROOT / "datasets" / "company-train"
THREADS = ROOT / "datasets" / "threads"


@pytest.fixture(scope="module")
def threads() -> list[dict[str, Any]]:
    return jsonl(THREADS / "threads.jsonl")


def test_threads_are_well_formed(threads):
    assert_unique_ids(threads)
    companies = {p.name for p in TRAIN.iterdir() if p.is_dir()}
    fields = {"question", "lang", "standalone", "docs", "answers"}
    for t in threads:
        assert set(t) == {"id", "company", "turns"} and t["company"] in companies, t["id"]
        assert len(t["turns"]) in (2, 3), f"{t['id']}: a thread has two or three turns"
        for turn in t["turns"]:
            assert set(turn) == fields and turn["lang"] in LANGS, t["id"]
            assert turn["question"].strip() and turn["standalone"].strip(), t["id"]
            assert turn["docs"] and turn["answers"], f"{t['id']}: every turn is answerable"


def test_thread_gold_documents_exist(threads):
    missing = [
        f"{t['id']}: {t['company']}/{doc}"
        for t in threads
        for turn in t["turns"]
        for doc in turn["docs"]
        if not (TRAIN / t["company"] / doc).is_file()
    ]
    assert not missing


# gold strings Sabio does not index, and why (README): a PDF's running header, dropped from every page
UNQUOTABLE = {"res-t07/2: 'Rev. 12'"}


def test_thread_gold_answers_are_in_a_gold_document_as_sabio_extracts_it(threads):
    """Every turn can be answered correctly: its answer strings are in a gold file as Sabio extracts it (but
    the ones listed, each turn of which has another)."""
    absent, unanswerable = set(), []
    for t in threads:
        for n, turn in enumerate(t["turns"], start=1):
            texts = [extracted(t["company"], doc, TRAIN) for doc in turn["docs"]]
            missing = [a for a in turn["answers"] if not any(fold(" ".join(a.split())) in x for x in texts)]
            absent |= {f"{t['id']}/{n}: {answer!r}" for answer in missing}
            if len(missing) == len(turn["answers"]):
                unanswerable.append(f"{t['id']}/{n}: none of {turn['answers']} is in {turn['docs']}")
    assert not unanswerable
    assert absent == UNQUOTABLE


def test_thread_counts_are_those_its_readme_gives(threads):
    readme = THREADS / "README.md"
    turns = [turn for t in threads for turn in t["turns"]]
    switched = sum(
        any(a["lang"] != b["lang"] for a, b in zip(t["turns"], t["turns"][1:], strict=False)) for t in threads
    )
    assert said(readme, r"(\d+) threads \((\d+) of two turns, (\d+) of three\)") == [
        len(threads),
        sum(len(t["turns"]) == 2 for t in threads),
        sum(len(t["turns"]) == 3 for t in threads),
    ]
    spanish, english, follow_ups, changes = said(
        readme, r"(\d+) turns in Spanish, (\d+) in English; (\d+) follow-ups; (\d+) threads switch language"
    )
    assert Counter(turn["lang"] for turn in turns) == {"es": spanish, "en": english}
    assert (follow_ups, changes) == (len(turns) - len(threads), switched)
    assert Counter(t["company"] for t in threads) == {
        k: int(v[0]) for k, v in table(readme, "folder").items()
    }


def test_the_thread_scorer_compares_each_way_a_follow_up_is_asked():
    """sabio.evaluation.threads: follow-up turns only, each way they were asked, and the bar."""
    from sabio.evaluation import threads as scorer

    def turn(n: int, ok: bool, std: bool, bare: bool, bare_said: bool = True) -> dict[str, Any]:
        row = {"id": f"t/{n}", "kind": "first" if n == 1 else "follow-up", "lang": "es", "company": "water"}
        row |= {"hit5": True, "correct": ok, "answered": True, "in_language": True, "switched": False}
        row |= {"resolved_by": "offline"}
        if n > 1:
            row |= {
                "standalone": {"hit5": True, "correct": std, "answered": True},
                "no history": {"hit5": False, "correct": bare, "answered": bare_said},
            }
        return row

    rows = [turn(1, False, False, False), *(turn(2, n < 9, n < 10, n < 2, n < 5) for n in range(10))]
    result = scorer.summary(rows)
    follow = result["all"]
    assert follow["turns"] == 10 and result["threads"] == 1 and result["first turns"]["answer correct"] == 0.0
    assert follow["followed"]["answer correct"] == 90.0 and follow["standalone"]["answer correct"] == 100.0
    # answered and not correct: the one wrong follow-up; three of the five said with no history
    assert (
        follow["followed"]["confidently wrong"] == 10.0 and follow["standalone"]["confidently wrong"] == 0.0
    )
    assert follow["no history"] == {"hit@5": 0.0, "answer correct": 20.0, "confidently wrong": 30.0}
    assert [t["met"] for t in result["targets"]] == [True, True, False, True, True]  # 90 < 100 - 5


# ------------------------------------------------------------------------------------------ code: click


@pytest.fixture(scope="module")
def click() -> list[dict[str, Any]]:
    return jsonl(CODE / "questions.jsonl")


def test_click_questions_are_well_formed_and_counted_as_the_readme_says(click):
    assert_unique_ids(click)
    readme = CODE / "README.md"
    kinds = table(readme, "kind")
    for q in click:
        assert set(q) == {"id", "lang", "kind", "question", "targets"}, q["id"]
        assert q["lang"] in LANGS and q["kind"] in kinds and q["question"].strip(), q["id"]
        assert q["targets"] and all(t["file"] and t["anchor"] for t in q["targets"]), q["id"]
    total, english, spanish = said(readme, r"(\d+) questions \((\d+) English, (\d+) Spanish\)")
    assert (len(click), Counter(q["lang"] for q in click)) == (total, {"en": english, "es": spanish})
    documented = {(k, lang): int(n[i]) for k, n in kinds.items() for i, lang in enumerate(("en", "es"))}
    assert Counter((q["kind"], q["lang"]) for q in click) == documented


def test_click_anchors_are_lines_of_their_files_in_the_pinned_sdist(click):
    archive = codeset.DOWNLOADS / f"{codeset.PACKAGE}-{codeset.VERSION}.tar.gz"
    if not archive.exists():  # fetched from PyPI by the first `python -m sabio.evaluation.codeset`
        pytest.skip(f"{archive} is not downloaded")
    with tarfile.open(archive) as tar:
        files = read_files(tar, f"{codeset.PACKAGE}-{codeset.VERSION}/")
    assert not unanchored(click, files)


# ------------------------------------------------------------------------------------- code: repositories


@pytest.fixture(scope="module")
def repos() -> list[dict[str, Any]]:
    return jsonl(CODE / "repo_questions.jsonl")


@pytest.fixture(scope="module")
def archives() -> dict[str, dict[str, str]]:
    """Each pinned repository archive's files: repository -> path inside it -> text."""
    out = {}
    for archive in sorted(coderepos.REPOS.glob("*.tar.gz")):
        repo = archive.name.split("-")[0]
        with tarfile.open(archive) as tar:
            out[repo] = read_files(tar, f"{repo}/")
    return out


def test_repository_questions_are_well_formed_and_counted_as_the_readme_says(repos):
    assert_unique_ids(repos)
    for q in repos:
        assert set(q) == {"id", "repo", "lang", "kind", "question", "targets"}, q["id"]
        assert q["repo"] in coderepos.LANGUAGE and q["id"].startswith(f"{q['repo']}-"), q["id"]
        assert q["lang"] in LANGS and q["kind"] in {"identifier", "plain"} and q["question"].strip(), q["id"]
        assert q["targets"] and all(t["file"] and t["anchor"] for t in q["targets"]), q["id"]
    readme = CODE / "README.md"
    total, english, spanish = said(readme, r"(\d+) questions \((\d+) English, (\d+) Spanish; `repo_questions")
    assert (len(repos), Counter(q["lang"] for q in repos)) == (total, {"en": english, "es": spanish})
    kinds = {k: said(readme, rf"`{k}` \((\d+)\)")[0] for k in ("identifier", "plain")}
    assert Counter(q["kind"] for q in repos) == kinds


def test_repository_archives_are_the_pinned_commits_the_readme_gives(archives):
    rows = table(CODE / "README.md", "repository")
    pinned = {re.sub(r"\[([^]]+)\].*", r"\1", name).split("/")[1]: cells for name, cells in rows.items()}
    assert set(pinned) == set(archives) == set(coderepos.LANGUAGE)
    for repo, (language, commit, _, files) in pinned.items():
        assert language == coderepos.LANGUAGE[repo], repo
        assert (coderepos.REPOS / f"{repo}-{commit.strip('`')}.tar.gz").exists(), repo
        assert len(archives[repo]) == int(files), repo


def test_repository_anchors_are_lines_of_their_files(repos, archives):
    for repo, files in archives.items():
        assert not unanchored([q for q in repos if q["repo"] == repo], files), repo


def read_files(tar: tarfile.TarFile, prefix: str) -> dict[str, str]:
    """The archive's regular files under ``prefix``, by their path below it (undecodable bytes replaced)."""
    out = {}
    for member in tar.getmembers():
        handle = tar.extractfile(member) if member.isfile() else None
        if handle is not None and member.name.startswith(prefix):
            out[member.name[len(prefix) :]] = handle.read().decode("utf-8", "replace")
    return out


def unanchored(questions: list[dict[str, Any]], files: dict[str, str]) -> list[str]:
    """The targets whose file is absent or has no line holding the anchor (the scorer rejects the set)."""
    return [
        f"{q['id']}: {t['anchor']!r} is not a line of {t['file']}"
        for q in questions
        for t in q["targets"]
        if not any(t["anchor"] in line for line in files.get(t["file"], "").splitlines())
    ]
