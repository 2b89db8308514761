"""``sabio sync git``: a repository's changes since the last sync, through the one indexing path.

Only the files that changed are read; a rename deletes the old key and adds the new one; a deletion of too
much of the source at once is held by the mass-delete guard (and the sync is then not marked done, so the
next run proposes it again, and ``--confirm-deletions`` applies it). The folder rules hold as for ``sabio
index`` (the repository's ``.gitignore``, dependency folders, lock files, hidden files). Each document's
citation link is its page at the synced commit.
"""

from __future__ import annotations

import functools

from chalicelib.ingest.folder_walk import list_folder
from chalicelib.ingest.indexer import IndexReport
from chalicelib.sync.git_repository import Changes, GitSource
from chalicelib.sync.targets import Batch, Target


def sync(
    target: Target, source: GitSource, source_id: str, *, confirm_deletions: bool = False
) -> tuple[IndexReport, Changes]:
    changes = source.sync()
    listing = list_folder(source.checkout)
    eligible = set(listing.keys)
    changed = set(changes.upserted) | set(changes.deleted)
    keys = [k for k in changes.upserted if k in eligible]
    objects = [(k, functools.partial((source.checkout / k).read_bytes)) for k in keys]
    metadata = {k: {"url": url} for k in keys if (url := source.web_url(changes.commit, k))}
    batch = Batch(source_id, objects, metadata, confirm_deletions)
    first = changes.previous is None
    if first:
        report = target.replace(batch)
    else:
        deleted = [*changes.deleted, *(k for k in changes.upserted if k not in eligible)]
        report = target.update(batch, deleted)
    report.skipped += [
        (k, why) for k, why in listing.skipped if not k.startswith(".git") and (first or k in changed)
    ]
    if not report.held:
        source.mark_synced(changes.commit)
    return report, changes
