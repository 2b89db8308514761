"""``sabio sync git``: a repository's changes since the last sync, through the one indexing path.

Only the files that changed are read; a rename deletes the old key and adds the new one; a deletion of too
much of the source at once is held by the mass-delete guard (and the sync is then not marked done, so the
next run proposes it again, and ``--confirm-deletions`` applies it). The folder rules hold as for ``sabio
index`` (the repository's ``.gitignore``, dependency folders, lock files, hidden files). Each document's
citation link is its page at the synced commit.
"""

from __future__ import annotations

import functools

from chalicelib.pipelines import deletion_guard
from chalicelib.pipelines.folder import list_folder
from chalicelib.pipelines.ingest import IndexReport, Ingestor
from chalicelib.sources.git import Changes, GitSource


def sync(
    ingestor: Ingestor, source: GitSource, source_id: str, *, confirm_deletions: bool = False
) -> tuple[IndexReport, Changes]:
    changes = source.sync()
    listing = list_folder(source.checkout)
    eligible = set(listing.keys)
    changed = set(changes.upserted) | set(changes.deleted)
    keys = [k for k in changes.upserted if k in eligible]
    objects = [(k, functools.partial((source.checkout / k).read_bytes)) for k in keys]
    metadata = {k: {"url": url} for k in keys if (url := source.web_url(changes.commit, k))}
    first = changes.previous is None
    report = ingestor.index_objects(
        source_id, objects, delete_missing=first, metadata=metadata, confirm_deletions=confirm_deletions
    )
    if not first:
        _delete(
            ingestor,
            source_id,
            [*changes.deleted, *(k for k in changes.upserted if k not in eligible)],
            report,
            confirm_deletions,
        )
    report.skipped += [
        (k, why) for k, why in listing.skipped if not k.startswith(".git") and (first or k in changed)
    ]
    if not report.held:
        source.mark_synced(changes.commit)
    return report, changes


def _delete(
    ingestor: Ingestor, source_id: str, keys: list[str], report: IndexReport, confirmed: bool
) -> None:
    """The keys the diff removed (or that the folder rules now leave out), held when they are too many."""
    records = [ingestor.chunks.get_document(source_id, k) for k in keys]
    gone = [r for r in records if r is not None and r.status != "deleted"]
    live = sum(1 for r in ingestor.chunks.list_documents(source_id) if r.status != "deleted")
    for record in deletion_guard.held_or_gone(
        ingestor.chunks, source_id, gone, live, ingestor.config, confirmed, report
    ):
        report.chunks_deleted += record.chunk_count
        ingestor.delete(source_id, record.key)
        report.deleted += 1
