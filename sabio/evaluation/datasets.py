"""The evaluation datasets of ../shared/eval in BEIR shape (corpus, queries, qrels)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from chalicelib.models.records import StoredChunk


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
    # XQuAD-es keeps the English article titles; give its paragraphs their article's Spanish title (same
    # article order in both), so that no title tells the relevant paragraphs from the distractors
    titles = [article["title"].replace("_", " ") for article in squad["data"]]
    corpus = {
        doc_id: {**doc, "title": titles[int(doc_id.split("_")[0])]} for doc_id, doc in xquad.corpus.items()
    }
    for a, article in enumerate(squad["data"]):
        for p, paragraph in enumerate(article["paragraphs"]):
            if any(qa["id"] in xquad_question_ids for qa in paragraph["qas"]):
                continue  # the same paragraph as an XQuAD one: a duplicate, not a distractor
            corpus[f"squad_{a}_{p}"] = {
                "title": article["title"].replace("_", " "),
                "text": paragraph["context"],
            }
    return Dataset("hard-es", corpus, xquad.queries, xquad.qrels)


# ---------------------------------------------------------------------------------------------- tasks
# A task indexes files through Sabio's own pipeline and asks questions of the result. ``targets`` says which
# qrels ids a retrieved chunk counts as; ``plain`` is one document per qrels id, for the yardstick baselines.


@dataclass
class Corpus:
    name: str
    files: dict[str, bytes]  # object key -> bytes, indexed exactly like an upload
    # the yardstick's "one document per paragraph / section": (qrels id, text) in corpus order; an id
    # repeats where the source lists a section twice (see ``fastapi_corpus``)
    plain: list[tuple[str, str]]
    lang: str  # the language of ``plain``; "mixed" for both
    targets: Callable[[StoredChunk], list[str]]


@dataclass
class QuerySet:
    name: str
    corpus: str  # Corpus.name
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    lang: str  # what the request asks for ("auto", the API's default, unless the set is about namespaces)
    query_lang: str
    note: str = ""
    either_language: bool = False  # a hit is the document in any language: "es/7_1" and "en/7_1" are one
    # per query, ids that answer it as fully as its target (the user-question set's ``also``): a run that
    # holds one counts as holding the target, once
    equivalent: dict[str, dict[str, str]] = field(default_factory=dict)


def _paragraph_file(title: str, text: str, lang: str) -> bytes:
    return f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\nlang: {lang}\n---\n{text}\n".encode()


def paragraph_corpus(name: str, parts: dict[str, Dataset], *, prefixed: bool) -> Corpus:
    """One Markdown file per paragraph, ``<lang>/<id>.md``; qrels ids are ``id`` (or ``lang/id`` when the
    corpus mixes languages and a hit must be in the asked language)."""
    files: dict[str, bytes] = {}
    plain: list[tuple[str, str]] = []
    for lang, data in parts.items():
        for doc_id, doc in data.corpus.items():
            files[f"{lang}/{doc_id}.md"] = _paragraph_file(doc["title"], doc["text"], lang)
            plain.append((f"{lang}/{doc_id}" if prefixed else doc_id, doc["text"]))

    def targets(chunk: StoredChunk) -> list[str]:
        stem = chunk.key.removesuffix(".md")
        return [stem if prefixed else stem.split("/", 1)[1]]

    return Corpus(name, files, plain, next(iter(parts)) if len(parts) == 1 else "mixed", targets)


def fastapi_corpus(eval_dir: Path, lang: str) -> Corpus:
    """The FastAPI docs as real Markdown files; a chunk counts for every (file, anchor) section it holds."""
    root = eval_dir / "fastapi_docs" / lang
    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*.md"))
        if p.name != "_llm-test.md"
    }
    # Every row of the sections file is a document, as BEIR's title + " " + text (the heading as the title):
    # the rendering and the reading that reproduce the yardstick. The English file lists 945 rows whose
    # (file, anchor) repeats (the release notes' version headings have no anchor; no query points at them);
    # they stay separate documents under one id, and a ranking keeps an id once (see ``runner.as_run``).
    plain = []
    for line in (
        (eval_dir / "derived" / f"fastapi_sections_{lang}.jsonl").read_text(encoding="utf-8").splitlines()
    ):
        row = json.loads(line)
        if row["file"] != "_llm-test.md":
            plain.append((f"{row['file']}#{row['anchor']}", f"{row['heading']} {row['text']}".strip()))

    def targets(chunk: StoredChunk) -> list[str]:
        return [f"{chunk.key}#{anchor}" for anchor in chunk.anchors]

    return Corpus(f"fastapi-{lang}", files, plain, lang, targets)


def heading_queries(eval_dir: Path, lang: str) -> QuerySet:
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    path = eval_dir / "derived" / f"fastapi_heading_queries_{lang}.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if not row["gold"].startswith("_llm-test.md"):
            queries[row["_id"]] = row["text"]
            qrels[row["_id"]] = {row["gold"]: 1}
    return QuerySet(f"FastAPI heading queries {lang}", f"fastapi-{lang}", queries, qrels, "auto", lang)


def user_questions(eval_dir: Path, question_lang: str, docs_lang: str) -> QuerySet:
    """The user-question set (derived/fastapi_intent_dev.jsonl): questions written the way developers ask,
    each with the section that answers it and the other sections that answer it as fully. Anchors are the
    same in both languages, so es -> en and en -> es ask one language's questions of the other's docs."""
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    equivalent: dict[str, dict[str, str]] = {}
    for line in (eval_dir / "derived" / "fastapi_intent_dev.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["lang"] != question_lang:
            continue
        target = f"{row['file']}#{row['anchor']}"
        queries[row["id"]] = row["question"]
        qrels[row["id"]] = {target: 1}
        equivalent[row["id"]] = {f"{a['file']}#{a['anchor']}": target for a in row.get("also", [])}
    name = (
        f"user questions {question_lang}"
        if question_lang == docs_lang
        else f"user questions {question_lang} -> {docs_lang}"
    )
    note = "A hit is the section that answers the question or one that answers it as fully (its `also`)."
    return QuerySet(
        name, f"fastapi-{docs_lang}", queries, qrels, "auto", question_lang, note, equivalent=equivalent
    )


def as_targets(runs: dict[str, list[str]], qs: QuerySet) -> dict[str, list[str]]:
    """Runs with each query's equivalent sections read as its target (each counted once)."""
    if not qs.equivalent:
        return runs
    return {
        q: list(dict.fromkeys(qs.equivalent.get(q, {}).get(d, d) for d in run)) for q, run in runs.items()
    }


def _prefixed(data: Dataset, lang: str) -> dict[str, dict[str, int]]:
    return {q: {f"{lang}/{d}": r for d, r in rel.items()} for q, rel in data.qrels.items()}


def standard_suite(eval_dir: Path) -> tuple[list[Corpus], list[QuerySet]]:
    """Every corpus and query set of the standard report (../shared/eval/README.md)."""
    es = load_beir(eval_dir / "derived" / "xquad_es", "xquad-es")
    en = load_beir(eval_dir / "derived" / "xquad_en", "xquad-en")
    hard = hard_spanish_pool(eval_dir)
    corpora = [
        paragraph_corpus("hard-es", {"es": hard}, prefixed=False),
        paragraph_corpus("xquad-es", {"es": es}, prefixed=False),
        paragraph_corpus("xquad-en", {"en": en}, prefixed=False),
        paragraph_corpus("xquad-es+en", {"es": es, "en": en}, prefixed=True),
        fastapi_corpus(eval_dir, "es"),
        fastapi_corpus(eval_dir, "en"),
    ]
    sets = [
        QuerySet("hard Spanish pool", "hard-es", hard.queries, hard.qrels, "auto", "es"),
        QuerySet("XQuAD es", "xquad-es", es.queries, es.qrels, "auto", "es"),
        QuerySet("XQuAD en", "xquad-en", en.queries, en.qrels, "auto", "en"),
        QuerySet("cross-lingual es -> en", "xquad-en", es.queries, en.qrels, "auto", "es"),
        QuerySet("cross-lingual en -> es", "xquad-es", en.queries, es.qrels, "auto", "en"),
        QuerySet(
            "mixed es+en, es questions, lang=auto",
            "xquad-es+en",
            es.queries,
            _prefixed(es, "es"),
            "auto",
            "es",
            "A hit is the Spanish paragraph.",
        ),
        QuerySet(
            "mixed es+en, en questions, lang=auto",
            "xquad-es+en",
            en.queries,
            _prefixed(en, "en"),
            "auto",
            "en",
            "A hit is the English paragraph.",
        ),
        QuerySet(
            "mixed es+en, es questions, lang=all",
            "xquad-es+en",
            es.queries,
            es.qrels,
            "all",
            "es",
            "A hit is the paragraph in either language (its twin counts once).",
            either_language=True,
        ),
        heading_queries(eval_dir, "es"),
        heading_queries(eval_dir, "en"),
        user_questions(eval_dir, "es", "es"),
        user_questions(eval_dir, "en", "en"),
        user_questions(eval_dir, "es", "en"),
        user_questions(eval_dir, "en", "es"),
    ]
    return corpora, sets
