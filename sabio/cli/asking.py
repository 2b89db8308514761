"""``sabio query``, ``sabio answer`` and ``sabio chat``: a question on the store, its chunks or its answer with
citations; a conversation, each question read in its thread."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, TextIO

from chalicelib.models.api import LANG_CHOICES
from sabio.cli.store_options import as_arguments, container_for

QUOTE_WIDTH = 150  # a citation's quote as printed: longer ones are cut between words, marked "…"


def _request(args: argparse.Namespace, **thread: Any) -> Any:
    from chalicelib.models.api import RetrieveRequest

    body: dict[str, Any] = {"query": args.query, "lang": args.lang, "top_k": args.top_k, **thread}
    filters = {k: v for k, v in (("product", args.product), ("content_type", args.content_type)) if v}
    if filters:
        body["filters"] = filters
    if args.source_id:
        body["scope"] = {"source_id": args.source_id}
    return RetrieveRequest.model_validate(body)


def _print_items(items: list[Any]) -> None:
    for i, it in enumerate(items, start=1):
        section = " > ".join(it.heading_path[1:] or it.heading_path) or it.section_title
        print(f"  {i}. [{it.score:.4f}] {it.title} — {section}  ({it.lang}, {it.product}, {it.content_type})")


def _warm(container: Any) -> float:
    """Load the models (embedding, language id) before the question's clock starts; the load time in ms."""
    from chalicelib.language_id import detect

    started = time.perf_counter()
    detect("warm up")
    warm_up = getattr(container.embedder, "warm_up", None)
    if warm_up is not None:
        warm_up()
    return (time.perf_counter() - started) * 1000


def _print_stages(applied: dict[str, str]) -> None:
    """How the question was searched beyond its own words: translated, rewritten, reranked."""
    for key, text in applied.items():
        if key.startswith("translation_"):  # the documents are in another language: how it was asked
            print(f"   searched in {key.removeprefix('translation_')} as: {text}")
        elif key == "rewrites":
            print(f"   searched also as: {text}")
        elif key == "rerank":
            print(f"   reranked: {text}")


def cmd_query(args: argparse.Namespace) -> int:
    from chalicelib.usage.query_log import asked_span

    container = container_for(args, reads=True)
    load_ms = _warm(container)
    request = _request(args)
    container.trace()  # one trace of the question when SABIO_TRACING is on (docs/observability.md)
    with asked_span("retrieve", request):
        response = container.retrieval.retrieve(request, container.local_reader)
    if args.json:
        print(json.dumps(response.model_dump(), ensure_ascii=False, indent=2))
        _notices(container, args.query, response, sys.stderr)
        return 0
    print(
        f"Q: {args.query}   (namespaces: {response.namespaces or 'all'}, {response.timings_ms['total']:.0f} ms; "
        f"model loaded in {load_ms:.0f} ms)"
    )
    _print_stages(response.applied)
    _print_items(response.items)
    for note in response.notes:
        print(f"  note: {note}")
    _notices(container, args.query, response, sys.stdout)
    return 0


def cmd_answer(args: argparse.Namespace) -> int:
    from chalicelib.usage.query_log import asked_span

    container = container_for(args, reads=True)
    load_ms = _warm(container)
    request = _request(args)
    container.trace()
    with asked_span("answer", request):
        response = container.answerer.answer(request, container.local_reader)
    if args.json:
        print(json.dumps(response.model_dump(), ensure_ascii=False, indent=2))
        _notices(container, args.query, response, sys.stderr)
        return 0
    print(f"\nQ: {args.query}")
    _print_stages(response.applied)
    print(f"Top results ({response.timings_ms['total']:.0f} ms; model loaded in {load_ms:.0f} ms):")
    _print_items(response.items)
    _print_answer(response, container.extractive.min_confidence)
    _notices(container, args.query, response, sys.stdout)
    return 0


def _print_answer(response: Any, threshold: float) -> None:
    """Who answered and how sure (with the decimals that tell it from ``threshold``: a held-back 0.7908 is not
    "0.79" beside a threshold of 0.79), the answer, why Sabio kept quiet (its last note, in the question's
    words) when it did, and the quotes under their sources."""
    from chalicelib.answer.confidence import apart

    by = response.answered_by + (f" {response.model}" if response.model else "")
    by += (
        f", confidence {apart(response.confidence, threshold)[0]}" if response.confidence is not None else ""
    )
    dropped = "" if response.verified else ", citations dropped: " + "; ".join(response.citation_issues)
    print(f"Answer ({by}{dropped}):")
    print("\n".join("  " + line for line in response.answer.split("\n")))
    if not response.answered and response.notes:
        print(f"  ({response.notes[-1]})")
    _print_citations(response.citations)


def _turn(container: Any, args: argparse.Namespace, line: str, conversation: str | None) -> Any:
    """One question of the conversation answered (None when it is refused: the error is printed)."""
    from pydantic import ValidationError

    from chalicelib.errors import SabioError, invalid_input

    args.query = line
    try:
        request = _request(args, **({"conversation_id": conversation} if conversation else {}))
        return container.conversations.answer(request, container.local_reader)
    except ValidationError as exc:
        print(f"error: {invalid_input(exc).message}", file=sys.stderr)
    except SabioError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
    return None


def _print_turn(response: Any, threshold: float) -> None:
    if response.thread is not None and response.thread.resolved_by != "alone":
        print(f"  (searched as: {response.standalone_query})")
    if response.thread is not None and (response.thread.expired or response.thread.forgotten):
        for note in response.notes:
            print(f"  ({note})")
    _print_answer(response, threshold)


def cmd_chat(args: argparse.Namespace) -> int:
    """Questions from the terminal (or a pipe), one a line, each read in the conversation so far."""
    container = container_for(args, reads=True)
    _warm(container)
    container.trace()
    interactive = sys.stdin.isatty()
    if interactive:
        print(
            "Ask in any language; a follow-up is read in context. /new starts a new conversation, /quit ends."
        )
    conversation: str | None = None
    while True:
        try:
            line = input("> " if interactive else "").strip()
        except EOFError:
            break
        if line in ("/quit", "/exit"):
            break
        if line == "/new":
            conversation = None
            # with --json, stdout holds JSON lines only
            print("(a new conversation)", file=sys.stderr if args.json else sys.stdout)
        if not line or line == "/new":
            continue
        response = _turn(container, args, line, conversation)
        if response is None:
            continue
        conversation = response.conversation_id
        if args.json:
            print(json.dumps(response.model_dump(), ensure_ascii=False))
            continue
        if not interactive:  # the question beside its answer, as a transcript
            print(f"> {line}")
        _print_turn(response, container.extractive.min_confidence)
    return 0


def _print_citations(citations: list[Any]) -> None:
    """Each source once (``[n] Title (where) — Section:``), then every span quoted from it."""
    by_n: dict[int, list[Any]] = {}
    for c in citations:
        by_n.setdefault(c.n, []).append(c)
    for n, quoted in by_n.items():
        first = quoted[0]
        where = f" ({first.where()})" if first.page_start or first.slide_start or first.sheet else ""
        lines = "" if where else _lines(quoted)
        print(f"  [{n}] {first.title}{where} — {first.section_title}{lines}:")
        for c in quoted:
            print(f'      "{_clipped(" ".join(c.quote.split()), QUOTE_WIDTH)}"')


def _clipped(text: str, width: int) -> str:
    """``text`` up to ``width`` characters, cut between words and marked "…" when it goes on."""
    if len(text) <= width:
        return text
    cut = text.rfind(" ", 0, width)
    return f"{text[: cut if cut > width // 2 else width].rstrip()} …"


def _lines(quoted: list[Any]) -> str:
    """`` (lines 5, 7-9)``: the lines the quotes of one source come from, when it is lines of a file."""
    spans = sorted({(c.line_start, c.line_end or c.line_start) for c in quoted if c.line_start is not None})
    if not spans:
        return ""
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    shown = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in merged)
    return f" (line{'s' if len(merged) > 1 or merged[0][0] != merged[0][1] else ''} {shown})"


def _notices(container: Any, question: str, response: Any, out: TextIO) -> None:
    """Once, in the question's language: the store is empty, or the question would have been translated
    into the documents' language had a translator been installed."""
    from chalicelib.language_id import detect
    from sabio.cli import notices

    lang = detect(question, container.settings.languages).lang
    said = notices.empty_store(container, lang) if not response.items else None
    if said is None and "untranslated" in response.applied:
        said = notices.translation(container, lang)
    if said:
        print(f"note: {said}", file=out)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The parsers of query, answer and chat."""
    for name, func, help_ in (
        ("query", cmd_query, "retrieve chunks for a question"),
        ("answer", cmd_answer, "answer a question with citations"),
    ):
        p = sub.add_parser(name, help=help_)
        p.add_argument("query")
        _asking_options(p, "print the API response as JSON")
        p.set_defaults(func=func)
    p = sub.add_parser("chat", help="a conversation: questions one a line, each follow-up read in context")
    _asking_options(p, "print each answer as the API's JSON, one a line")
    p.set_defaults(func=cmd_chat)


def _asking_options(p: argparse.ArgumentParser, json_help: str) -> None:
    """What every asking command takes: the language, how many results, the filters, JSON output and the
    identity it asks as."""
    p.add_argument("--lang", default="auto", choices=LANG_CHOICES)
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--product")
    p.add_argument("--content-type")
    p.add_argument("--source-id")
    p.add_argument("--json", action="store_true", help=json_help)
    as_arguments(p)
