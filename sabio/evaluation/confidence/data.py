"""Labelled answers for the answer confidence: every question of a set answered without abstaining, with the
signals its answer left and whether it was right (an answer to an unanswerable question never is).

Sources: company folders (each indexed into its own store, scored as the company sets are) and XQuAD (each
language's paragraphs, questions in both languages, each asked with its paragraph in the pool and again with
it taken out). The rows are what ``confidence.fit`` fits on; the test set's rows are never written anywhere.

    python -m sabio.evaluation.confidence.data [--sets dev train xquad] [--cache FILE] [--stores DIR] [--out FILE]
"""

from __future__ import annotations

import functools
import gzip
import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from sabio.evaluation.answers import contains
from sabio.evaluation.companyset import never_abstaining, right
from sabio.evaluation.datasets import load_beir, paragraph_corpus

Row = dict[str, Any]


def _row(split: str, group: str, qid: str, kind: str, lang: str, label: bool, signals: Any) -> Row:
    values = {k: round(v, 5) if isinstance(v, float) else v for k, v in asdict(signals).items()}
    return {
        "split": split,
        "group": group,
        "id": qid,
        "kind": kind,
        "lang": lang,
        "label": int(label),
        **values,
    }


def company_rows(
    split: str,
    root: Path,
    questions: list[Row],
    cache: str | None,
    log: Callable[[str], None] = print,
    stores: Path | None = None,
) -> Iterator[tuple[Row, Row]]:
    """(question, row) for each question of each company folder under ``root`` that an answer could quote
    (``stores``: a folder whose store files are kept and brought up to date, instead of fresh ones)."""
    from chalicelib.composition import Container
    from chalicelib.models.api import RetrieveRequest
    from chalicelib.settings import Settings

    companies = list(dict.fromkeys(q["company"] for q in questions))
    with tempfile.TemporaryDirectory(prefix="sabio-confidence-") as tmp:
        for company in companies:
            path = (stores or Path(tmp)) / root.name / f"{company}.db"
            path.parent.mkdir(parents=True, exist_ok=True)
            container = Container(Settings(store_path=str(path), embedding_cache=cache))
            report = container.ingestor().index_folder(root / company, company)
            log(f"{company}: {report.chunks_written} chunks written, {report.unchanged} unchanged")
            answerer = never_abstaining(container)
            for q in (q for q in questions if q["company"] == company):
                request = RetrieveRequest(query=q["question"])
                retrieved = container.retrieval.run(request, None)
                response, signals = answerer.answer_with_signals(request, retrieved)
                if signals is None:
                    continue
                yield q, _row(split, company, q["id"], q["kind"], q["lang"], right(q, response), signals)
            container.store.close()


def xquad_rows(eval_dir: Path, pool: str, cache: str | None, limit: int | None = None) -> Iterator[Row]:
    """Rows of ``pool``'s XQuAD paragraphs: its questions in both languages, each with its paragraph in the
    pool (kind ``answerable``) and without it (``unanswerable``)."""
    from chalicelib.composition import Container
    from chalicelib.models.api import RetrieveRequest
    from chalicelib.settings import Settings

    data = load_beir(eval_dir / "derived" / f"xquad_{pool}", f"xquad-{pool}")
    corpus = paragraph_corpus(f"xquad-{pool}", {pool: data}, prefixed=False)
    gold_text = _answers(eval_dir, pool)
    with tempfile.TemporaryDirectory(prefix="sabio-confidence-") as tmp:
        container = Container(Settings(store_path=f"{tmp}/s.db", embedding_cache=cache))
        objects = [(key, functools.partial(bytes, raw)) for key, raw in corpus.files.items()]
        container.ingestor().index_objects("xquad", objects)
        answerer = never_abstaining(container)
        for lang in (pool, "en" if pool == "es" else "es"):
            questions = _questions(eval_dir, lang)[:limit] if limit else _questions(eval_dir, lang)
            for q in questions:
                request = RetrieveRequest(query=q["text"], top_k=5)
                retrieved = container.retrieval.run(request, None)
                gold = set(data.qrels[q["_id"]])
                for kind, asked in (("answerable", retrieved), ("unanswerable", _without(retrieved, gold))):
                    response, signals = answerer.answer_with_signals(request, asked)
                    if signals is None:
                        continue
                    right = kind == "answerable" and contains(
                        [c.quote for c in response.citations], gold_text[q["_id"]]
                    )
                    yield _row("xquad", f"xquad-{pool}", f"{lang}-{q['_id']}", kind, lang, right, signals)
        container.store.close()


def _questions(eval_dir: Path, lang: str) -> list[Row]:
    path = eval_dir / "derived" / f"xquad_{lang}" / "queries.jsonl"
    return sorted((json.loads(line) for line in path.read_text("utf-8").splitlines()), key=lambda q: q["_id"])


def _answers(eval_dir: Path, pool: str) -> dict[str, str]:
    """Each question's gold answer as the pool's paragraph words it."""
    return {q["_id"]: q["answer"] for q in _questions(eval_dir, pool)}


def _without(retrieved: Any, gold: set[str]) -> Any:
    """The same retrieval with the gold paragraph gone from the pool."""
    kept = [c for c in retrieved.chunks if c.key.removesuffix(".md").split("/", 1)[1] not in gold]
    return replace(retrieved, chunks=kept)


def write(rows: list[Row], path: Path) -> None:
    """The rows as JSON lines, gzip-compressed when the name ends in .gz (as the shipped file does)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows).encode("utf-8")
    path.write_bytes(gzip.compress(text, mtime=0) if path.suffix == ".gz" else text)


def read(path: Path) -> list[Row]:
    data = path.read_bytes()
    text = (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def main(argv: list[str] | None = None) -> int:
    import argparse

    from sabio.evaluation import companyset

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/eval"))
    parser.add_argument("--cache", help="embedding cache (SQLite), e.g. bench/cache/embeddings.sqlite")
    parser.add_argument("--out", type=Path, default=Path("datasets/confidence/signals.jsonl.gz"))
    parser.add_argument("--limit", type=int, help="XQuAD questions per language (a quick look)")
    parser.add_argument("--stores", type=Path, help="keep the company folders' stores here between runs")
    parser.add_argument(
        "--sets", nargs="+", default=["dev", "train", "xquad"], choices=["dev", "train", "xquad"]
    )
    args = parser.parse_args(argv)
    rows: list[Row] = []
    for name in (s for s in args.sets if s != "xquad"):
        root = companyset.root_of(name)
        questions = companyset.load_questions(root)
        rows += [row for _, row in company_rows(name, root, questions, args.cache, stores=args.stores)]
        print(f"{name}: {len(rows)} rows so far", flush=True)
    if "xquad" in args.sets:
        for pool in ("es", "en"):
            rows += list(xquad_rows(args.data, pool, args.cache, args.limit))
            print(f"xquad {pool}: {len(rows)} rows so far", flush=True)
    write(rows, args.out)
    print(f"wrote {len(rows)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
