"""The ``sabio`` command: index a folder, query, answer, stats, and serve the API (or MCP) locally."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from chalicelib.errors import ConfigurationError, SabioError
from chalicelib.models.api import LANG_CHOICES


class IndexProgress:
    """rich progress bars on stderr, one per stage (reading, enriching, embedding); stdout keeps the report."""

    LABELS = {"read": "reading", "enrich": "enriching", "embed": "embedding"}

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("{task.description:<9}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[detail]}"),
            console=Console(stderr=True),
        )
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> IndexProgress:
        self.progress.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.progress.stop()

    def __call__(self, stage: str, done: int, total: int, detail: str) -> None:
        if total <= 0:
            return
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(self.LABELS.get(stage, stage), total=total, detail="")
        self.progress.update(self.tasks[stage], completed=done, total=total, detail=detail[-40:])


def _report_table(rows: list[tuple[str, Any]]) -> Any:
    from rich import box
    from rich.table import Table

    table = Table(box=box.ASCII, show_header=False)  # ASCII: readable in any log or terminal
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, value in rows:
        table.add_row(name, str(value))
    return table


def _container(args: argparse.Namespace) -> Any:
    from chalicelib.composition import Container
    from chalicelib.settings import Settings

    overrides: dict[str, Any] = {"store_path": args.store} if getattr(args, "store", None) else {}
    if getattr(args, "as_user", None) or getattr(args, "groups", None):  # --as: read as that user
        overrides |= {"as_user": args.as_user, "as_groups": args.groups or ""}
    return Container(Settings(**overrides))


def _as_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--as", dest="as_user", metavar="USER", help="read as this user (user:USER; testing permissions)"
    )
    p.add_argument("--groups", help="the groups of --as, comma-separated (group:NAME each)")


def cmd_index(args: argparse.Namespace) -> int:
    c = _container(args)
    source_id = args.source_id or c.settings.default_source_id
    with IndexProgress() as progress:
        report = c.ingestor(progress=progress).index_folder(
            args.path,
            source_id,
            delete_missing=not args.keep_missing,
            confirm_deletions=args.confirm_deletions,
        )
    print(f"\nIndexed {args.path} as source {source_id!r} into {c.settings.store_path}")
    return _print_report(c, report, str(args.path))


def cmd_sync_git(args: argparse.Namespace) -> int:
    from chalicelib.sync import git
    from chalicelib.sync.git_repository import GitSource
    from chalicelib.sync.targets import IndexTarget

    c = _container(args)
    source_id = args.source_id or Path(args.repository.rstrip("/")).name.removesuffix(".git")
    workdir = Path(c.settings.store_path).parent / "sync" / source_id
    source = GitSource(args.repository, workdir, args.branch)
    with IndexProgress() as progress:
        target = IndexTarget(c.ingestor(progress=progress))
        report, changes = git.sync(target, source, source_id, confirm_deletions=args.confirm_deletions)
    since = f"since {changes.previous[:12]}" if changes.previous else "every file (first sync)"
    print(f"\nSynced {args.repository} at {changes.commit[:12]} ({since}) as source {source_id!r}")
    return _print_report(c, report, args.repository)


def cmd_sync_web(args: argparse.Namespace) -> int:
    import urllib.parse

    from chalicelib.sync import web
    from chalicelib.sync.targets import IndexTarget
    from chalicelib.sync.web_site import WebSource

    c = _container(args)
    source_id = args.source_id or urllib.parse.urlsplit(args.url).hostname or "web"
    workdir = Path(c.settings.store_path).parent / "sync" / source_id
    try:
        # the larger limit here; indexing holds text to SABIO_MAX_FILE_BYTES, PDF and Office to the other
        limit = max(c.settings.ingest.max_file_bytes, c.settings.ingest.max_document_bytes)
        source = WebSource(args.url, workdir, args.max_pages, limit)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with IndexProgress() as progress:
        target = IndexTarget(c.ingestor(progress=progress))
        report, fetched = web.sync(target, source, source_id, confirm_deletions=args.confirm_deletions)
    print(f"\nSynced {args.url} (pages listed by its {fetched.listed_by}) as source {source_id!r}")
    return _print_report(c, report, args.url)


def _print_report(c: Any, report: Any, where: str) -> int:
    """The run's table, then every failure, note, skipped path and held deletion; exit 1 for the last two
    kinds of trouble (a failed document, a held deletion)."""
    from rich.console import Console

    rows = [
        ("added", report.added),
        ("updated", report.updated),
        ("unchanged", report.unchanged),
        ("deleted", report.deleted),
        *((("deletions held", len(report.held)),) if report.held else ()),
        ("failed", len(report.failed)),
        ("skipped", len(report.skipped)),
        ("chunks written", report.chunks_written),
        ("chunks embedded", report.chunks_embedded),
        ("chunks reused", report.chunks_reused),
        *((("readers changed", report.readers_changed),) if report.readers_changed else ()),
        ("seconds", f"{report.seconds:.1f}"),
    ]
    enriched = report.enriched
    rows += [
        (f"enriched {kind}", enriched.get(kind, 0))
        for kind in ("llm", "fallback", "heuristic")
        if enriched.get(kind) or (kind != "heuristic" and c.llm is not None)
    ]
    if c.llm is not None:
        rows += [
            ("llm requests", report.llm_requests),
            ("tokens in", report.tokens_in),
            ("tokens out", report.tokens_out),
            ("cost (USD)", f"{c.pricing.cost_usd(report.tokens_in, report.tokens_out):.4f}"),
        ]
    Console(highlight=False).print(_report_table(rows))
    for key, reason in report.failed:
        print(f"FAILED  {key}: {reason}")
    for key, note in report.notes:
        print(f"NOTE    {key}: {note}")
    for key, reason in report.skipped:
        print(f"skipped {key}: {reason}")
    if report.readers_for_no_one:
        print(
            f"readers: {report.readers_for_no_one} document(s) name no readers and get the default, none: only "
            "a server without keys and keys that read all documents see them (sabio-read, .sabio-read or "
            "SABIO_DEFAULT_READERS=public: docs/permissions.md)"
        )
    if report.held:
        share = c.settings.ingest.delete_guard_share
        print(
            f"HELD    {len(report.held)} documents are gone from {where}, more than {share:.0%} of the "
            f"source: they stay searchable and are not deleted. If that is right, run again with "
            f"--confirm-deletions (e.g. {', '.join(report.held[:3])})"
        )
    return 1 if report.failed or report.held else 0


def _request(args: argparse.Namespace) -> Any:
    from chalicelib.models.api import RetrieveRequest

    body: dict[str, Any] = {"query": args.query, "lang": args.lang, "top_k": args.top_k}
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
    container = _container(args)
    load_ms = _warm(container)
    response = container.retrieval.retrieve(_request(args), container.local_reader)
    if args.json:
        print(json.dumps(response.model_dump(), ensure_ascii=False, indent=2))
        return 0
    print(
        f"Q: {args.query}   (namespaces: {response.namespaces or 'all'}, {response.timings_ms['total']:.0f} ms; "
        f"model loaded in {load_ms:.0f} ms)"
    )
    _print_stages(response.applied)
    _print_items(response.items)
    for note in response.notes:
        print(f"  note: {note}")
    return 0


def cmd_answer(args: argparse.Namespace) -> int:
    container = _container(args)
    load_ms = _warm(container)
    response = container.answerer.answer(_request(args), container.local_reader)
    if args.json:
        print(json.dumps(response.model_dump(), ensure_ascii=False, indent=2))
        return 0
    print(f"\nQ: {args.query}")
    _print_stages(response.applied)
    print(f"Top results ({response.timings_ms['total']:.0f} ms; model loaded in {load_ms:.0f} ms):")
    _print_items(response.items)
    by = response.answered_by + (f" {response.model}" if response.model else "")
    print(
        f"Answer ({by}{'' if response.verified else ', citations dropped: ' + '; '.join(response.citation_issues)}):"
    )
    print("\n".join("  " + line for line in response.answer.split("\n")))
    if (
        not response.answered and response.notes
    ):  # why Sabio kept quiet (the last note), in the question's words
        print(f"  ({response.notes[-1]})")
    for c in response.citations:
        where = f" ({c.where()})" if c.page_start or c.slide_start or c.sheet else ""
        print(f'  [{c.n}] {c.title}{where} — {c.section_title}: "{" ".join(c.quote.split())[:110]}"')
    return 0


def cmd_insights(args: argparse.Namespace) -> int:
    """The knowledge-gap report, as a docs owner reads it (or its JSON, as GET /insights returns it)."""
    from chalicelib.usage.insights import gap_report

    c = _container(args)
    report = gap_report(c.query_log, c.chunk_store, c.embedder.space, args.days)
    if args.json:
        print(json.dumps(report.model_dump(), ensure_ascii=False, indent=2))
    else:
        print(render_insights(report, args.days))
    return 0


def render_insights(report: Any, days: float) -> str:
    """Markdown: missing topics first, then what to translate, what is read, never found, failed."""
    fb = report.feedback
    out = [
        f"# What Sabio was asked ({days:g} days): {report.queries} questions, {report.weak} not answered "
        f"by the documents; feedback {fb.get('helpful', 0)} helpful, {fb.get('unhelpful', 0)} unhelpful",
        "",
        "## Missing topics (write these)",
    ]
    for n, c in enumerate(report.missing_topics, start=1):
        langs = ", ".join(f"{k} {v}" for k, v in c.langs.items())
        marked = f", {c.unhelpful} marked unhelpful" if c.unhelpful else ""
        out.append(f"{n}. {c.count} questions ({langs}{marked}): " + " | ".join(c.examples))
    if not report.missing_topics:
        out.append("(none)")
    out += ["", "## Not answered, but the closest passages are in another language (translate these?)"]
    for n, c in enumerate(report.other_language, start=1):
        where = ", ".join(f"{k} {v}" for k, v in c.exists_in.items())
        out.append(f"{n}. {c.count} questions (closest passages: {where}): " + " | ".join(c.examples))
    if not report.other_language:
        out.append("(none)")
    sections = (
        ("Answered only in another language (translate these)", report.translate, "asked in"),
        ("Most cited", report.most_cited, "cited"),
        ("Never retrieved", report.never_retrieved, None),
        ("Failed to index", report.failed_documents, None),
    )
    for title, uses, what in sections:
        out += ["", f"## {title}"]
        out += [_use_line(u, what) for u in uses] or ["(none)"]
    out += [f"\nnote: {note}" for note in report.notes]
    return "\n".join(out)


def _use_line(u: Any, what: str | None) -> str:
    line = f"- {u.title} ({u.lang}, {u.source_id}/{u.key})"
    if what == "asked in":
        line += " — asked in " + ", ".join(f"{k} {v}x" for k, v in u.asked_in.items())
    elif what:
        line += f" — {what} {u.count}x"
    return line + (f": {u.error}" if u.error else "")


def cmd_plan(args: argparse.Namespace) -> int:
    from chalicelib.settings import Settings
    from sabio import planning

    if args.chunks < 1:
        print("error: --chunks must be at least 1", file=sys.stderr)
        return 2
    root = Path(__file__).resolve().parent.parent
    path = args.figures or planning.find_figures(root)
    if not path.is_file():
        print(f"error: no benchmark figures at {path} (run `make bench`)", file=sys.stderr)
        return 2
    figures = json.loads(path.read_text(encoding="utf-8"))
    if not figures.get("scale"):
        print(f"error: {path} has no scale curve (run `make bench`)", file=sys.stderr)
        return 2
    settings = Settings()
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    result = planning.plan(
        figures,
        args.chunks,
        price_in=settings.llm.price_input_per_mtok,
        price_out=settings.llm.price_output_per_mtok,
        source=str(shown),
    )
    print(planning.render(result, args.queries_per_s))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    print(json.dumps(_container(args).chunk_store.stats().model_dump(), ensure_ascii=False, indent=2))
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """MCP over stdio on the embedded store: stdout is the protocol, every message for people goes to stderr."""
    from chalicelib.agents.mcp_server import run_stdio
    from chalicelib.composition import Container
    from chalicelib.settings import Settings
    from sabio.local_server import store_path

    store = store_path(args.store)
    if not store.exists():
        print(f"error: no store at {store}; index something first (sabio index PATH)", file=sys.stderr)
        return 2
    print(f"Sabio MCP server on {store} (stdio)", file=sys.stderr, flush=True)
    run_stdio(Container(Settings(store_path=str(store))))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from chalicelib.composition import Container
    from sabio.local_server import serve, store_path

    _ = Container().reranker  # a reranker that cannot work stops the server before it starts
    reader = {"SABIO_AS_USER": args.as_user or "", "SABIO_AS_GROUPS": args.groups or ""}
    return serve(args.host, args.port, store_path(args.store), reload=args.reload, env=reader)


def cmd_key(args: argparse.Namespace) -> int:
    """A new random API key and the configuration entry that admits it (only the digest is stored)."""
    import secrets

    from chalicelib.access.keys import key_digest

    key = "sabio_" + secrets.token_urlsafe(24)
    spec: dict[str, Any] = {"name": args.name}
    for field_name in ("source_ids", "source_refs", "tags", "groups"):
        values = getattr(args, field_name)
        if values:
            spec[field_name] = values
    if args.rate:
        spec["rate_per_minute"] = args.rate
    for flag in ("all_documents", "acts_for_users"):
        if getattr(args, flag):
            spec[flag] = True
    print(f"key (give it to the caller; it is not stored): {key}")
    print(f"configuration entry: {json.dumps({key_digest(key): spec})}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from chalicelib.ingest.verify import verify

    c = _container(args)
    report = verify(c.chunk_store, c.vector_index, c.embedder, source_id=args.source_id, repair=args.repair)
    print(f"documents {report.documents}, chunks {report.chunks}, vectors {report.vectors}")
    for label, ids in (
        ("missing vectors", report.missing_vectors),
        ("orphan vectors", report.orphan_vectors),
        ("orphan chunks", report.orphan_chunks),
        ("wrong chunk counts", report.wrong_counts),
        ("chunks whose readers are not their document's", report.wrong_readers),
    ):
        if ids:
            print(f"{label}: {len(ids)}  e.g. {', '.join(ids[:3])}")
    if report.ok:
        print("consistent")
        return 0
    print("repaired" if report.repaired else "inconsistent: run again with --repair")
    return 0 if report.repaired else 1


def cmd_reconcile(args: argparse.Namespace) -> int:
    from chalicelib.ingest.reconcile import reconcile

    c = _container(args)
    report = reconcile(c.s3_indexer(), args.bucket, repair=not args.dry_run, confirmed=args.confirm_deletions)
    print(f"{args.bucket}: {report.listed} objects listed")
    for label, keys in (("missing", report.missing), ("stale", report.stale), ("orphaned", report.orphaned)):
        print(f"{label:9} {len(keys):5}  {', '.join(keys[:5])}")
    for key, why in report.failed:
        print(f"FAILED  {key}: {why}")
    if report.held:
        print(
            f"HELD    {len(report.held)} deletions: too much of the source at once; --confirm-deletions applies them"
        )
    if args.dry_run and report.drift:
        print("drift found: run again without --dry-run to repair it")
    return 1 if report.failed or report.held or (args.dry_run and report.drift) else 0


def cmd_worker(args: argparse.Namespace) -> int:
    import logging

    from sabio.worker import run

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    c = _container(args)
    indexer = c.s3_indexer()
    print(f"Polling {args.queue_url} (Ctrl-C stops)", flush=True)
    run(c.aws_client("sqs"), args.queue_url, indexer, once=args.once, wait_s=args.wait)
    print(f"processed: {dict(indexer.outcomes)}")
    return 1 if indexer.outcomes.get("poison") or indexer.outcomes.get("error") else 0


def cmd_eval(args: argparse.Namespace) -> int:
    from sabio.evaluation import gate, report, suite

    eval_dir = Path(args.data).resolve()
    if not (eval_dir / "derived").is_dir():
        print(
            f"error: no evaluation data at {eval_dir} (expected ../shared/eval, see its README)",
            file=sys.stderr,
        )
        return 2
    unknown, names = suite.unmatched(eval_dir, args.only) if args.only else ([], [])
    if unknown:  # a typo would otherwise run nothing and merge nothing, in silence
        print(
            f"error: --only {', '.join(map(repr, unknown))} names no set; the sets: {'; '.join(names)}",
            file=sys.stderr,
        )
        return 2
    base = Path(args.merge) if args.merge else None
    if base is not None and not base.is_file():  # before the run, not after an hour of it
        print(f"error: no results to merge into at {base} (a full run's results.json)", file=sys.stderr)
        return 2
    cache = None if args.no_cache else Path(args.cache)
    if args.llm:
        from chalicelib.settings import Settings

        if not Settings().llm.base_url:
            print("error: --llm needs an OpenAI-compatible endpoint: set SABIO_LLM_BASE_URL", file=sys.stderr)
            return 2
    command = " ".join(["sabio", "eval", *sys.argv[2:]]) if sys.argv[1:2] == ["eval"] else "sabio eval"
    results = suite.run(
        eval_dir,
        cache,
        only=args.only,
        limit=args.limit,
        with_ablation=not args.no_ablation,
        llm=args.llm,
        rerank=args.rerank,
        rewrite=args.rewrite,
        modes=tuple(args.modes),
        log=lambda line: print(line, flush=True),
    )
    if not args.only and not args.limit and len(args.modes) == 3:
        results["gate"] = gate.record(eval_dir, cache, Path(args.gate_file))
        print(f"regression gate: default Recall@5 {results['gate']['recall@5']} recorded in {args.gate_file}")
    if base is not None:
        results = report.merge(json.loads(base.read_text(encoding="utf-8")), results, command)
        print(f"merged {', '.join(results['updates'][-1]['sets'])} into the results of {base}")
    notes = Path(args.notes).read_text(encoding="utf-8") if args.notes else ""
    path = report.write(results, Path(args.out), command, notes)
    print(f"wrote {path} (+ results.json, chart.png)")
    if args.publish:
        report.publish(Path(args.out), Path(args.publish))
        print(f"published {args.publish}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sabio", description=__doc__)
    parser.add_argument("--store", help="SQLite store file (default: $SABIO_STORE_PATH or .sabio/sabio.db)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("index", help="index a folder (incremental: unchanged files are skipped)")
    p.add_argument("path")
    p.add_argument("--source-id", help="source id for these documents (default: $SABIO_DEFAULT_SOURCE_ID)")
    p.add_argument("--keep-missing", action="store_true", help="do not delete documents gone from the folder")
    p.add_argument(
        "--confirm-deletions",
        action="store_true",
        help="delete documents gone from the folder even when they are more than SABIO_DELETE_GUARD_SHARE of "
        "the source (the mass-delete guard otherwise holds them)",
    )
    p.set_defaults(func=cmd_index)

    p = sub.add_parser(
        "sync",
        help="keep a source in step: sync git URL|PATH or sync web URL indexes what changed since the last sync",
    )
    kinds = p.add_subparsers(dest="kind", required=True)
    p = kinds.add_parser("git", help="a Git repository: only the files changed since the last synced commit")
    p.add_argument("repository", help="a clone URL (https, ssh) or a local repository's path")
    p.add_argument("--branch", help="the branch to follow (default: the remote's HEAD)")
    p.add_argument("--source-id", help="source id for its documents (default: the repository's name)")
    p.add_argument(
        "--confirm-deletions",
        action="store_true",
        help="apply deletions even when they are more than SABIO_DELETE_GUARD_SHARE of the source",
    )
    p.set_defaults(func=cmd_sync_git)
    p = kinds.add_parser(
        "web", help="a website: its sitemap (else a same-host crawl), only pages that changed"
    )
    p.add_argument("url", help="the site's address, e.g. https://docs.example.com/")
    p.add_argument("--source-id", help="source id for its pages (default: the host name)")
    p.add_argument("--max-pages", type=int, default=1000, help="pages one sync reads at most (default 1000)")
    p.add_argument(
        "--confirm-deletions",
        action="store_true",
        help="apply deletions even when they are more than SABIO_DELETE_GUARD_SHARE of the source",
    )
    p.set_defaults(func=cmd_sync_web)

    for name, func, help_ in (
        ("query", cmd_query, "retrieve chunks for a question"),
        ("answer", cmd_answer, "answer a question with citations"),
    ):
        p = sub.add_parser(name, help=help_)
        p.add_argument("query")
        p.add_argument("--lang", default="auto", choices=LANG_CHOICES)
        p.add_argument("--top-k", type=int, default=5)
        p.add_argument("--product")
        p.add_argument("--content-type")
        p.add_argument("--source-id")
        p.add_argument("--json", action="store_true", help="print the API response as JSON")
        _as_arguments(p)
        p.set_defaults(func=func)

    p = sub.add_parser("stats", help="counts by source, language, product, content type, category")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("insights", help="knowledge gaps: what was asked and not answered, what to translate")
    p.add_argument("--days", type=float, default=7.0, help="the period to report (default 7)")
    p.add_argument("--json", action="store_true", help="the report as GET /insights returns it")
    p.set_defaults(func=cmd_insights)

    p = sub.add_parser("key", help="create an API key and print its configuration entry (a digest)")
    p.add_argument("--name", required=True)
    p.add_argument("--source-ids", nargs="*", dest="source_ids")
    p.add_argument("--source-refs", nargs="*", dest="source_refs", help="object-key prefixes")
    p.add_argument("--tags", nargs="*")
    p.add_argument("--rate", type=float, help="requests per minute")
    p.add_argument("--groups", nargs="*", help="the groups the key reads as (besides public documents)")
    p.add_argument("--all-documents", action="store_true", help="reads every document, whoever it is for")
    p.add_argument(
        "--acts-for-users", action="store_true", help="may name a user (x-sabio-user, x-sabio-groups)"
    )
    p.set_defaults(func=cmd_key)

    p = sub.add_parser("verify", help="reconcile manifest, chunk store and vector index")
    p.add_argument("--source-id")
    p.add_argument(
        "--repair", action="store_true", help="delete orphans, re-embed missing vectors, fix counts"
    )
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("reconcile", help="repair drift between an S3 bucket and the manifest (lost events)")
    p.add_argument("--bucket", required=True)
    p.add_argument("--dry-run", action="store_true", help="report the drift, repair nothing")
    p.add_argument("--confirm-deletions", action="store_true", help="apply orphan deletions the guard holds")
    p.set_defaults(func=cmd_reconcile)

    p = sub.add_parser("worker", help="index S3 events from an SQS queue (the indexer job, as a loop)")
    p.add_argument("--queue-url", required=True)
    p.add_argument("--once", action="store_true", help="stop when the queue is empty")
    p.add_argument("--wait", type=int, default=20, help="long-poll seconds")
    p.set_defaults(func=cmd_worker)

    p = sub.add_parser(
        "eval", help="retrieval quality on ../shared/eval: every dataset x variant, with a report"
    )
    p.add_argument("--data", default="../shared/eval", help="evaluation data folder")
    p.add_argument("--out", default="bench/results/eval", help="results folder (JSON, Markdown, PNG)")
    p.add_argument("--only", nargs="*", help="only query sets whose name contains one of these")
    p.add_argument("--limit", type=int, help="only the first N queries of each set (a quick look)")
    p.add_argument("--cache", default="bench/cache/embeddings.sqlite", help="embedding cache (SQLite)")
    p.add_argument("--no-cache", action="store_true", help="embed everything afresh")
    p.add_argument("--no-ablation", action="store_true", help="skip the FastAPI chunking ablation")
    p.add_argument(
        "--llm",
        action="store_true",
        help="also answer the company set with the configured LLM (SABIO_LLM_BASE_URL), held to its citations",
    )
    p.add_argument(
        "--rerank",
        choices=["cross-encoder", "bedrock", "http", "llm"],
        help="add the default pipeline with this reranker as its second stage (its model, endpoint or "
        "region from SABIO_RERANKER_MODEL / _URL / _API_KEY, SABIO_AWS_REGION); "
        "the report says why when it cannot run",
    )
    p.add_argument(
        "--rewrite",
        action="store_true",
        help="add the default pipeline with LLM query rewriting (needs SABIO_LLM_BASE_URL)",
    )
    p.add_argument(
        "--modes",
        nargs="+",
        default=["raw", "contextual", "enriched"],
        choices=["raw", "contextual", "enriched"],
        help="embed_text configurations to build (the default one is always built)",
    )
    p.add_argument("--gate-file", default="bench/eval_gate.json", help="where the full run records the gate")
    p.add_argument("--notes", help="Markdown inserted at the top of the report (the findings)")
    p.add_argument("--publish", help="also write the report, chart and JSON here, e.g. docs/evaluation.md")
    p.add_argument(
        "--merge",
        help="a full run's results.json (e.g. docs/evaluation.json) whose query sets this run replaces",
    )
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("plan", help="size a corpus: embedded store, OpenSearch, DynamoDB, indexing, LLM cost")
    p.add_argument("--chunks", type=int, required=True, help="how many chunks the corpus will have")
    p.add_argument("--queries-per-s", type=float, help="expected peak queries per second")
    p.add_argument("--figures", type=Path, help="benchmark JSON to project from (default: the newest)")
    p.set_defaults(func=cmd_plan)

    p = sub.add_parser("serve", help="serve the HTTP API on the embedded store (chalice local)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--reload", action="store_true", help="restart when app.py or chalicelib/ changes")
    _as_arguments(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("mcp", help="serve the embedded store to an MCP client over stdio")
    p.set_defaults(func=cmd_mcp)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    started = time.perf_counter()
    try:
        return int(args.func(args))
    except SabioError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    except ConfigurationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted after {time.perf_counter() - started:.1f}s", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
