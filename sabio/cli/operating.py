"""Commands that look after a store: stats, insights, keys, verify, reconcile, and the S3 worker."""

from __future__ import annotations

import argparse
import json
from typing import Any

from sabio.cli.store_options import container_for


def cmd_stats(args: argparse.Namespace) -> int:
    status = container_for(args, reads=True).index_status()
    print(json.dumps(status.model_dump(), ensure_ascii=False, indent=2))
    return 0


def cmd_insights(args: argparse.Namespace) -> int:
    """The knowledge-gap report, as a docs owner reads it (or its JSON, as GET /insights returns it)."""
    from chalicelib.usage.insights import gap_report

    c = container_for(args, reads=True)
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
        f"# What Sabio was asked ({_counted(days, 'day')}): {_counted(report.queries, 'question')}, {report.weak} not answered "
        f"by the documents; feedback {fb.get('helpful', 0)} helpful, {fb.get('unhelpful', 0)} unhelpful",
        "",
        "## Missing topics (write these)",
    ]
    for n, c in enumerate(report.missing_topics, start=1):
        langs = ", ".join(f"{k} {v}" for k, v in c.langs.items())
        marked = f", {c.unhelpful} marked unhelpful" if c.unhelpful else ""
        out.append(f"{n}. {_counted(c.count, 'question')} ({langs}{marked}): " + " | ".join(c.examples))
    if not report.missing_topics:
        out.append("(none)")
    out += ["", "## Not answered, but the closest passages are in another language (translate these?)"]
    for n, c in enumerate(report.other_language, start=1):
        where = ", ".join(f"{k} {v}" for k, v in c.exists_in.items())
        out.append(
            f"{n}. {_counted(c.count, 'question')} (closest passages: {where}): " + " | ".join(c.examples)
        )
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


def _counted(n: float, noun: str) -> str:
    """ "1 question", "3 questions", "0.5 days"."""
    return f"{n:g} {noun}{'' if n == 1 else 's'}"


def _use_line(u: Any, what: str | None) -> str:
    line = f"- {u.title} ({u.lang}, {u.source_id}/{u.key})"
    if what == "asked in":
        line += " — asked in " + ", ".join(f"{k} {v}x" for k, v in u.asked_in.items())
    elif what:
        line += f" — {what} {u.count}x"
    return line + (f": {u.error}" if u.error else "")


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

    c = container_for(args, reads=True)
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

    c = container_for(args)
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
    c = container_for(args)
    indexer = c.s3_indexer()
    print(f"Polling {args.queue_url} (Ctrl-C stops)", flush=True)
    run(c.aws_client("sqs"), args.queue_url, indexer, once=args.once, wait_s=args.wait)
    print(f"processed: {dict(indexer.outcomes)}")
    return 1 if indexer.outcomes.get("poison") or indexer.outcomes.get("error") else 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The parsers of stats, insights, key, verify, reconcile and worker."""
    p = sub.add_parser(
        "stats",
        help="counts by source, language, product, content type; failures, held deletions, translator",
    )
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
