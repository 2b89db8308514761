"""Follow-up questions in conversations (datasets/threads): each training company folder indexed as a user
indexes it, each thread asked turn by turn in one conversation (/answer's code path with conversation_id), and
every follow-up turn asked twice more: as its standalone form (written by the set's authors) and as typed with
no history.

    python -m sabio.evaluation.threads [--split train|test] [--only water] [--show missed] [--cache FILE]
                                       [--out FILE]

``--split test`` asks the threads written blind over the test folders (datasets/threads-test) and keeps no
turn's row: per language and per company figures only.

Per follow-up turn: hit@5 (a chunk of a gold document in the top 5), answer correct (the quotes and the
cited sections' titles hold a gold answer string) and confidently wrong (answered, and not correct), and whether the question Sabio searched is in the user's
language (the language the turn was typed in, by Sabio's language detection). datasets/threads/README.md says
how the set was made.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sabio.evaluation.companyset import judge

ROOT = Path(__file__).resolve().parents[2] / "datasets"
# train: threads over the training folders (a turn's result may be read to find a bug); test: threads over the
# test folders, written blind and read in aggregate only (its run keeps no turn's row)
SPLITS = {
    "train": (ROOT / "threads" / "threads.jsonl", ROOT / "company-train"),
    "test": (ROOT / "threads-test" / "threads.jsonl", ROOT / "company-test"),
}
THREADS, FOLDERS = SPLITS["train"]
WAYS = ("followed", "standalone", "no history")  # how a follow-up turn is asked
# the bar: follow-ups within 5 points of their standalone form, far above the follow-up alone, and
# searched in the user's language
MARGIN, FAR, IN_LANGUAGE = 5.0, 20.0, 95.0


def load(path: Path = THREADS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _question(thread: dict[str, Any], n: int, text: str) -> dict[str, Any]:
    """A turn as the company set's judge reads a question."""
    turn = thread["turns"][n]
    return {
        "id": f"{thread['id']}/{n + 1}",
        "kind": "first" if n == 0 else "follow-up",
        "question": text,
        "lang": turn["lang"],
        "docs": turn["docs"],
        "answers": turn["answers"],
        "steps": [],
    }


def _asked(container: Any, keys: dict[str, str], question: dict[str, Any], response: Any) -> dict[str, Any]:
    row = judge(question, response, [keys.get(i.document_id, "") for i in response.items])
    row["searched"] = response.standalone_query or response.query
    return row


def run_thread(container: Any, thread: dict[str, Any], keys: dict[str, str]) -> list[dict[str, Any]]:
    """One thread in one conversation; each follow-up also asked standalone and with no history."""
    from chalicelib.language_id import detect
    from chalicelib.models.api import RetrieveRequest

    rows, conversation = [], None
    served = container.settings.languages
    for n, turn in enumerate(thread["turns"]):
        body = {"query": turn["question"], **({"conversation_id": conversation} if conversation else {})}
        response = container.conversations.answer(RetrieveRequest.model_validate(body), None)
        conversation = response.conversation_id
        row = _asked(container, keys, _question(thread, n, turn["question"]), response)
        row["resolved_by"] = response.thread.resolved_by if response.thread else "alone"
        row["took"] = response.thread.took if response.thread else []
        row["in_language"] = detect(row["searched"], served).lang == turn["lang"]
        row["switched"] = n > 0 and turn["lang"] != thread["turns"][n - 1]["lang"]
        row["company"] = thread["company"]
        if n:
            for way, text in (("standalone", turn["standalone"]), ("no history", turn["question"])):
                alone = container.usage.answer(RetrieveRequest(query=text), None)
                judged = _asked(container, keys, _question(thread, n, text), alone)
                row[way] = {k: judged[k] for k in ("hit5", "correct", "answered")}
        rows.append(row)
    return rows


def run_company(
    company: str,
    threads: list[dict[str, Any]],
    workdir: Path,
    cache: str | None,
    log: Callable[[str], None],
    folders: Path = FOLDERS,
) -> list[dict[str, Any]]:
    """Index ``company``'s folder into a fresh store and ask its threads."""
    from chalicelib.composition import Container
    from chalicelib.settings import Settings

    settings = Settings(store_path=str(workdir / f"{company}.db"), embedding_cache=cache, query_log=False)
    container = Container(settings)
    started = time.perf_counter()
    report = container.ingestor().index_folder(folders / company, company)
    log(f"{company}: {report.chunks_written} chunks in {time.perf_counter() - started:.1f} s")
    keys = {d.document_id: d.key for d in container.chunk_store.list_documents()}
    rows = [row for thread in threads for row in run_thread(container, thread, keys)]
    container.store.close()
    return rows


def _share(rows: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> float | None:
    return round(100 * sum(bool(test(r)) for r in rows) / len(rows), 1) if rows else None


def line(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """hit@5, answer correct and confidently wrong (answered, not correct) of follow-up turns, each way they
    are asked."""
    follow = [r for r in rows if r["kind"] == "follow-up"]
    out: dict[str, Any] = {"turns": len(follow)}
    for way in WAYS:
        scored = [r if way == "followed" else r[way] for r in follow]
        out[way] = {
            "hit@5": _share(scored, lambda r: r["hit5"]),
            "answer correct": _share(scored, lambda r: r["correct"]),
            "confidently wrong": _share(scored, lambda r: r["answered"] and not r["correct"]),
        }
    out["in the user's language"] = _share(follow, lambda r: r["in_language"])
    return out


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    follow = [r for r in rows if r["kind"] == "follow-up"]
    firsts = [r for r in rows if r["kind"] == "first"]
    out: dict[str, Any] = {
        "threads": len(firsts),
        "all": line(rows),
        "first turns": {"turns": len(firsts), "hit@5": _share(firsts, lambda r: r["hit5"]),
                        "answer correct": _share(firsts, lambda r: r["correct"])},  # fmt: skip
        "by language": {lang: line([r for r in rows if r["lang"] == lang]) for lang in ("es", "en")},
        "language switched": line([r for r in rows if r["switched"]]),
        "per company": {c: line([r for r in rows if r["company"] == c]) for c in dict.fromkeys(r["company"] for r in rows)},
        "resolved by": dict(Counter(r["resolved_by"] for r in follow)),
    }  # fmt: skip
    out["targets"] = targets(out["all"])
    return out


def targets(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """The bar, each line with its measured value and whether it is met."""
    out = []
    for metric in ("hit@5", "answer correct"):
        alone, followed = figures["standalone"][metric], figures["followed"][metric]
        bare = figures["no history"][metric]
        out.append(_target(f"follow-up {metric} >= standalone - {MARGIN:g}", followed, ">=", alone - MARGIN))
        out.append(_target(f"no history {metric} <= standalone - {FAR:g}", bare, "<=", alone - FAR))
    share = figures["in the user's language"]
    out.append(_target(f"searched in the user's language >= {IN_LANGUAGE:g} %", share, ">=", IN_LANGUAGE))
    return out


def _target(what: str, value: float | None, op: str, bar: float) -> dict[str, Any]:
    met = value is not None and (value >= bar if op == ">=" else value <= bar)
    return {"what": what, "value": value, "bar": round(bar, 1), "met": met}


def run(
    cache: str | None = None,
    only: list[str] | None = None,
    log: Callable[[str], None] = print,
    split: str = "train",
) -> dict[str, Any]:
    """Every thread of ``split`` asked; the test split's result holds no turn's row."""
    path, folders = SPLITS[split]
    threads = load(path)
    companies = [c for c in dict.fromkeys(t["company"] for t in threads) if not only or c in only]
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sabio-threads-") as tmp:
        for company in companies:
            asked = [t for t in threads if t["company"] == company]
            rows += run_company(company, asked, Path(tmp), cache, log, folders)
    result = {**summary(rows), "split": split, "seconds": round(time.perf_counter() - started, 1)}
    return result if split == "test" else {**result, "rows": rows}


def compact(result: dict[str, Any]) -> dict[str, Any]:
    """A run's figures as the report keeps them: each turn's scores without its answer text."""
    keep = ("id", "kind", "lang", "hit5", "correct", "resolved_by", "in_language", "standalone", "no history")
    if "rows" not in result:
        return result
    return {**result, "rows": [{k: r[k] for k in keep if k in r} for r in result["rows"]]}


def print_table(result: dict[str, Any]) -> None:
    groups = {"all": result["all"], **result["by language"], "switched": result["language switched"]}
    print(
        f"{'follow-up turns':<16} {'n':>4} "
        + " ".join(f"{w + ' h@5/ok/wrong':>26}" for w in WAYS)
        + "  in lang"
    )
    for name, row in groups.items():
        cells = " ".join(f"{_cell(row[w]):>26}" for w in WAYS)
        share = row["in the user's language"]
        print(f"{name:<16} {row['turns']:>4} {cells}  {share}")
    first = result["first turns"]
    print(f"first turns: {first['turns']}, hit@5 {first['hit@5']}, answer correct {first['answer correct']}")
    print(f"resolved by: {result['resolved by']}")
    for t in result["targets"]:
        print(f"  {'met ' if t['met'] else 'MISS'} {t['what']}: {t['value']} (bar {t['bar']})")


def _cell(figures: dict[str, Any]) -> str:
    """hit@5 / answer correct / confidently wrong ("-" in a result written before it was counted)."""
    return " / ".join(str(figures.get(k, "-")) for k in ("hit@5", "answer correct", "confidently wrong"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=tuple(SPLITS), default="train", help="test: blind, aggregate only")
    parser.add_argument("--only", nargs="*", help="companies (folder names)")
    parser.add_argument("--cache", help="embedding cache (SQLite) shared with sabio eval")
    parser.add_argument("--out", default="bench/results/threads.json")
    parser.add_argument("--show", choices=("missed", "all"), help="print these follow-up turns")
    args = parser.parse_args(argv)
    if args.split == "test" and args.show:
        parser.error("--show: the test split is read in aggregate only")
    result = run(args.cache, args.only, split=args.split)
    print_table(result)
    for r in result.get("rows", []):
        if args.show and r["kind"] == "follow-up" and (args.show == "all" or not r["correct"]):
            print(
                f"\n{r['id']} {r['question']!r} -> {r['searched']!r} hit5={r['hit5']} correct={r['correct']}"
            )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {args.out} ({result['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
