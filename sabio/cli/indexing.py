"""``sabio index`` and ``sabio sync git|web``: a folder, a Git repository or a website into the store."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from chalicelib.ingest.folder_walk import folder
from sabio.cli.index_report import IndexProgress, print_report
from sabio.cli.store_options import container_for


def cmd_index(args: argparse.Namespace) -> int:
    folder(args.path)  # before the store opens: a refused run leaves no empty store behind
    c = container_for(args)
    source_id = args.source_id or c.settings.default_source_id
    with IndexProgress() as progress:
        report = c.ingestor(progress=progress).index_folder(
            args.path,
            source_id,
            delete_missing=not args.keep_missing,
            confirm_deletions=args.confirm_deletions,
        )
    print(f"\nIndexed {args.path} as source {source_id!r} into {c.settings.store_path}")
    _searchable(c)
    return print_report(c, report, str(args.path))


def cmd_sync_git(args: argparse.Namespace) -> int:
    from chalicelib.sync import git
    from chalicelib.sync.git_repository import GitSource
    from chalicelib.sync.held import git_source_id, workdir
    from chalicelib.sync.targets import IndexTarget

    c = container_for(args)
    source_id = args.source_id or git_source_id(args.repository)
    source = GitSource(args.repository, workdir(c.settings.store_path, source_id), args.branch)
    with IndexProgress() as progress:
        target = IndexTarget(c.ingestor(progress=progress))
        report, changes = git.sync(target, source, source_id, confirm_deletions=args.confirm_deletions)
    since = f"since {changes.previous[:12]}" if changes.previous else "every file (first sync)"
    print(f"\nSynced {args.repository} at {changes.commit[:12]} ({since}) as source {source_id!r}")
    _searchable(c)
    return print_report(c, report, args.repository)


def cmd_sync_web(args: argparse.Namespace) -> int:
    from chalicelib.sync import web
    from chalicelib.sync.held import web_source_id, workdir
    from chalicelib.sync.targets import IndexTarget
    from chalicelib.sync.web_site import WebSource

    c = container_for(args)
    source_id = args.source_id or web_source_id(args.url)
    try:
        # the larger limit here; indexing holds text to SABIO_MAX_FILE_BYTES, PDF and Office to the other
        limit = max(c.settings.ingest.max_file_bytes, c.settings.ingest.max_document_bytes)
        source = WebSource(args.url, workdir(c.settings.store_path, source_id), args.max_pages, limit)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with IndexProgress() as progress:
        target = IndexTarget(c.ingestor(progress=progress))
        report, fetched = web.sync(target, source, source_id, confirm_deletions=args.confirm_deletions)
    print(f"\nSynced {args.url} (pages listed by its {fetched.listed_by}) as source {source_id!r}")
    _searchable(c)
    return print_report(c, report, args.url)


def _searchable(c: Any) -> None:
    """The embedded store's search files (vectors, BM25 postings, neighbours) brought up to date and saved
    beside it, so that the next process to open it (``sabio query``, ``sabio serve``) reads them instead of
    building them."""
    if c.settings.vector_index != "sqlite":
        return
    started = time.perf_counter()
    c.store.warm()
    print(f"Search files ready beside the store ({time.perf_counter() - started:.1f} s)")


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The parsers of index and sync (git, web)."""
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
