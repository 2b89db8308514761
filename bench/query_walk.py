"""How often one request reads its question: the files a retrieve (and a retrieve + answer) enters while the
question is passed along, how many times each, and how many times the question is folded and its language
detected. Prints the figures and writes them as JSON.

    .venv/bin/python bench/query_walk.py [--store .sabio/sabio.db] [--question "..."] [--out FILE]

A "stop" is a call into chalicelib whose arguments hold the question (its text, the request or the ``Query``
read from it; the ``Query``'s own methods are the value read once, not stops); a file is "entered" each time
the walk arrives in it from another file. Folds count the
computations of the question's fold (remembered folds do not count); detections count every call.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def walk(store: str, question: str, answer: bool) -> dict[str, object]:
    import chalicelib.text as text
    from chalicelib.composition import Container
    from chalicelib.models.api import RetrieveRequest
    from chalicelib.settings import Settings

    container = Container(Settings(store_path=store))
    request = RetrieveRequest(query=question)
    run = container.answerer.answer if answer else container.retrieval.run
    run(request, None)  # warm: models loaded, caches of the store filled
    text._fold_short.cache_clear()
    text._short_words.cache_clear()
    counts: collections.Counter[str] = collections.Counter()
    with counted(question, counts):
        stops = stops_of(run, request, question)
    entries = collections.Counter(f for n, f in enumerate(stops) if n == 0 or stops[n - 1] != f)
    return {
        "stops": len(stops),
        "files": len(entries),
        "entries": dict(entries.most_common()),
        "most_entered": entries.most_common(1)[0] if entries else None,
        "walk": [f for n, f in enumerate(stops) if n == 0 or stops[n - 1] != f],
        "question_folded": counts["folded"],
        "language_detected": counts["detected"],
    }


@contextlib.contextmanager
def counted(question: str, counts: collections.Counter[str]) -> Iterator[None]:
    """While inside: each fold of the question adds to ``counts["folded"]``, each language detection (by
    whichever module holds ``detect``) to ``counts["detected"]``."""
    import chalicelib.language_id as language
    import chalicelib.text as text

    fold, detect = text._fold, language.detect

    def counted_fold(s: str) -> str:
        if s.strip().casefold() == question.strip().casefold():
            counts["folded"] += 1
        return fold(s)

    def counted_detect(*args: object, **kwargs: object) -> object:
        counts["detected"] += 1
        return detect(*args, **kwargs)  # type: ignore[arg-type]

    text._fold = counted_fold
    patched = [m for m in list(sys.modules.values()) if getattr(m, "detect", None) is detect]
    for module in patched:
        module.detect = counted_detect  # type: ignore[attr-defined]
    try:
        yield
    finally:
        text._fold = fold
        for module in patched:
            module.detect = detect  # type: ignore[attr-defined]


def stops_of(run: Callable[..., object], request: object, question: str) -> list[str]:
    """The chalicelib files (under chalicelib/) of the calls passed the question, in call order, as ``run``
    answers ``request``."""
    from chalicelib.question.query import Query

    stops: list[str] = []

    def holds_question(frame: object) -> bool:
        """The call is passed the question (a method of the ``Query`` value reads what was read once:
        its own calls are not stops)."""
        for name, value in frame.f_locals.items():  # type: ignore[attr-defined]
            if name == "self" and isinstance(value, Query):
                return False
            if value is request or isinstance(value, Query) or (isinstance(value, str) and value == question):
                return True
        return False

    def profile(frame: object, event: str, arg: object) -> None:
        name = frame.f_code.co_filename  # type: ignore[attr-defined]
        if event == "call" and "/chalicelib/" in name and holds_question(frame):
            stops.append(name.split("/chalicelib/")[-1])

    sys.setprofile(profile)
    try:
        run(request, None)
    finally:
        sys.setprofile(None)
    return stops


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=".sabio/sabio.db", help="a store to ask (make demo makes one)")
    parser.add_argument("--question", default="¿Cuánto cuesta Faro?")
    parser.add_argument("--out", default="bench/results/query_walk.json")
    args = parser.parse_args()
    if not Path(args.store).exists():
        print(f"no store at {args.store}: run make demo first, or pass --store", file=sys.stderr)
        return 2
    found = {
        kind: walk(args.store, args.question, kind == "retrieve + answer")
        for kind in ("retrieve", "retrieve + answer")
    }
    for kind, row in found.items():
        print(
            f"{kind}: {row['stops']} stops in {row['files']} files, most entered {row['most_entered']}, "
            f"question folded {row['question_folded']}x, language detected {row['language_detected']}x"
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps({"question": args.question, **found}, indent=2, ensure_ascii=False) + "\n"
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
