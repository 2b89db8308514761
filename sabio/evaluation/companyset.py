"""Answers on company folders (datasets/company-dev): each company indexed into its own store as a user indexes
a folder, each question answered by ``/answer``'s code path with its defaults, scored per kind.

    python -m sabio.evaluation.companyset [--root datasets/company-train] [--only albor] [--show wrong]
                                          [--cache FILE] [--out FILE]

Per kind: hit@1 / hit@5 (a chunk of a gold document first / in the top 5), answer correct (the quotes and
the cited sections' titles hold a gold answer string; for how-to questions, every step; for multi-part
ones, every part), abstained, and
confidently wrong (answered and not correct). datasets/company-dev/README.md says how the set was made.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2] / "datasets" / "company-dev"
KINDS = (
    "literal",
    "paraphrase",
    "cross-language",
    "table",
    "identifier",
    "near-duplicate",
    "howto",
    "multi-part",
    "unanswerable-in",
    "unanswerable-off",
)
# the bar: (metric, kinds it is measured on, at least / at most, value)
TARGETS = (
    ("answer correct", "answerable", ">=", 80.0),
    ("abstained", "unanswerable-in", ">=", 80.0),
    ("abstained", "unanswerable-off", ">=", 80.0),
    ("confidently wrong", "all", "<=", 8.0),
    ("hit@1", "identifier", ">=", 95.0),
    ("hit@5", "cross-language", ">=", 90.0),
    ("answer correct", "near-duplicate", ">=", 90.0),
    ("answer correct", "howto", ">=", 70.0),
)


def fold(text: str) -> str:
    nfkd = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in nfkd if not unicodedata.combining(c)).split())


def load_questions(root: Path = ROOT) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / "questions.jsonl").read_text("utf-8").splitlines() if line]


def judge(question: dict[str, Any], response: Any, keys: list[str]) -> dict[str, Any]:
    """One answered question's scores: ``response`` an AnswerResponse, ``keys`` the retrieved chunks' files."""
    gold = set(question["docs"])
    shown = fold(
        " \n ".join([c.quote for c in response.citations] + [c.section_title for c in response.citations])
    )
    unanswerable = not gold
    if unanswerable:
        correct = not response.answered
    elif not response.answered:
        correct = False
    elif question["steps"]:
        correct = all(fold(step) in shown for step in question["steps"])
    elif question.get("parts"):  # multi-part (company-train): every part, each in one of its wordings
        correct = all(any(fold(a) in shown for a in part) for part in question["parts"])
    else:
        correct = any(fold(answer) in shown for answer in question["answers"])
    return {
        "id": question["id"],
        "kind": question["kind"],
        "question": question["question"],
        "lang": question["lang"],
        "hit1": bool(keys[:1]) and keys[0] in gold,
        "hit5": any(k in gold for k in keys[:5]),
        "answered": response.answered,
        "correct": correct,
        "wrong": response.answered and not correct,
        "evidence": response.evidence,
        "answer": response.answer,
        "top": keys[:3],
        "notes": list(response.notes),
        "applied": dict(response.applied),
    }


def run_company(
    company: str,
    questions: list[dict[str, Any]],
    workdir: Path,
    cache: str | None,
    log: Callable[[str], None] = print,
    retrieval: dict[str, Any] | None = None,
    root: Path = ROOT,
    **overrides: Any,
) -> list[dict[str, Any]]:
    """Index ``company``'s folder (under ``root``) into a fresh store and answer its questions
    (``retrieval``: RetrievalConfig fields changed for this run; ``overrides``: Settings)."""
    from chalicelib.composition import Container
    from chalicelib.models.api import RetrieveRequest
    from chalicelib.settings import Settings

    settings = Settings(store_path=str(workdir / f"{company}.db"), embedding_cache=cache, **overrides)
    container = Container(settings)
    t = time.perf_counter()
    report = container.ingestor().index_folder(root / company, company)
    log(
        f"{company}: {report.chunks_written} chunks from {report.added} files in {time.perf_counter() - t:.1f} s"
    )
    if report.failed:
        raise RuntimeError(f"{company}: files failed to index: {report.failed}")
    if retrieval:
        # before anything reads it: every stage (gather, cross-language, priors, selection) sees the change
        container.retriever = container.retriever.reconfigured(**retrieval)
    rows = []
    for q in questions:
        request = RetrieveRequest(query=q["question"])
        t = time.perf_counter()
        retrieved = container.retrieval.run(request, None)
        response = container.answerer.answer_retrieved(request, retrieved)
        row = judge(q, response, [c.key for c in retrieved.chunks])
        row["company"] = company
        row["ms"] = round((time.perf_counter() - t) * 1000, 1)
        rows.append(row)
    container.store.close()
    return rows


def _share(rows: list[dict[str, Any]], key: str) -> float | None:
    return round(100 * sum(bool(r[key]) for r in rows) / len(rows), 1) if rows else None


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kind and overall: hit@1, hit@5, answer correct, abstained, confidently wrong (%)."""

    def line(group: list[dict[str, Any]]) -> dict[str, Any]:
        answerable = [r for r in group if not r["kind"].startswith("unanswerable")]
        return {
            "questions": len(group),
            "hit@1": _share(answerable, "hit1"),
            "hit@5": _share(answerable, "hit5"),
            "answer correct": _share(group, "correct"),
            "abstained": round(100 * sum(not r["answered"] for r in group) / len(group), 1)
            if group
            else None,
            "confidently wrong": _share(group, "wrong"),
        }

    asked = {r["kind"] for r in rows}  # a set without multi-part questions (company-dev) shows no such row
    kinds = {kind: line([r for r in rows if r["kind"] == kind]) for kind in KINDS if kind in asked}
    answerable = [r for r in rows if not r["kind"].startswith("unanswerable")]
    out = {
        "kinds": kinds,
        "answerable": line(answerable),
        "unanswerable": line([r for r in rows if r["kind"].startswith("unanswerable")]),
        "all": line(rows),
        "by language": {lang: line([r for r in rows if r["lang"] == lang]) for lang in ("es", "en")},
        "answer p50 ms": round(statistics.median(r["ms"] for r in rows), 1) if rows else None,
    }
    out["targets"] = [_target(out, *t) for t in TARGETS]
    return out


def _target(out: dict[str, Any], metric: str, group: str, op: str, value: float) -> dict[str, Any]:
    line = out["kinds"].get(group) or out.get(group) or {}
    got = line.get(metric)
    met = got is not None and (got >= value if op == ">=" else got <= value)
    return {"what": f"{metric} ({group}) {op} {value:g}", "value": got, "met": met}


def run(
    cache: str | None = None,
    only: list[str] | None = None,
    log: Callable[[str], None] = print,
    retrieval: dict[str, Any] | None = None,
    root: Path = ROOT,
    **overrides: Any,
) -> dict[str, Any]:
    questions = load_questions(root)
    companies = list(dict.fromkeys(q["company"] for q in questions))
    companies = [c for c in companies if not only or c in only]
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sabio-companyset-") as tmp:
        for company in companies:
            asked = [q for q in questions if q["company"] == company]
            rows += run_company(company, asked, Path(tmp), cache, log, retrieval, root, **overrides)
    result = summary(rows)
    result["per company"] = {c: summary([r for r in rows if r["company"] == c])["all"] for c in companies}
    result["rows"] = rows
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def compact(result: dict[str, Any]) -> dict[str, Any]:
    """A run's figures as the report keeps them: per kind, per company, the targets, and each question's
    scores without its answer text."""
    keep = ("id", "kind", "lang", "hit1", "hit5", "answered", "correct", "wrong", "evidence")
    return {**result, "rows": [{k: r[k] for k in keep} for r in result["rows"]]}


def print_table(result: dict[str, Any]) -> None:
    head = ("hit@1", "hit@5", "answer correct", "abstained", "confidently wrong")
    print(f"{'kind':<18} {'n':>4} " + " ".join(f"{h:>17}" for h in head))
    groups = {**result["kinds"], "answerable": result["answerable"], "unanswerable": result["unanswerable"]}
    groups["all"] = result["all"]
    for name, line in groups.items():
        cells = " ".join(f"{'-' if line[h] is None else line[h]:>17}" for h in head)
        print(f"{name:<18} {line['questions']:>4} {cells}")
    for t in result["targets"]:
        print(f"  {'met ' if t['met'] else 'MISS'} {t['what']}: {t['value']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="the set's folder: questions.jsonl and a folder per company (default datasets/company-dev; "
        "the training set: datasets/company-train)",
    )
    parser.add_argument("--only", nargs="*", help="companies (folder names)")
    parser.add_argument("--cache", help="embedding cache (SQLite) shared with sabio eval")
    parser.add_argument("--out", default="bench/results/companyset.json")
    parser.add_argument("--show", choices=("wrong", "missed", "all"), help="print these questions' answers")
    parser.add_argument(
        "--set", nargs="*", default=[], metavar="FIELD=VALUE", help="RetrievalConfig fields for this run"
    )
    args = parser.parse_args(argv)
    retrieval = {k: json.loads(v) for k, v in (item.split("=", 1) for item in args.set)}
    result = run(args.cache, args.only, retrieval=retrieval, root=args.root)
    print_table(result)
    if args.show:
        for r in result["rows"]:
            if (
                args.show == "all"
                or (args.show == "wrong" and r["wrong"])
                or (args.show == "missed" and not r["correct"])
            ):
                print(
                    f"\n{r['id']} [{r['kind']}] {r['question']!r} correct={r['correct']} answered={r['answered']} "
                    f"evidence={r['evidence']} top={r['top']}\n  {r['answer'][:300]!r}\n  notes={r['notes']}"
                )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {args.out} ({result['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
