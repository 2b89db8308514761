"""``sabio sync web``: a site's pages that changed since the last sync, through the one indexing path.

Pages are found by the sitemap (else a bounded crawl of the same host), fetched only when changed (ETag,
Last-Modified), and a page the site no longer has is deleted, held by the mass-delete guard when that is too
much of the source at once (the sync is then not saved, so the next run proposes it again). Each document's
citation link is its page's URL.
"""

from __future__ import annotations

from chalicelib.ingest.indexer import IndexReport
from chalicelib.sync.targets import Batch, Target
from chalicelib.sync.web_site import Fetched, WebSource


def sync(
    target: Target, source: WebSource, source_id: str, *, confirm_deletions: bool = False
) -> tuple[IndexReport, Fetched]:
    fetched = source.fetch()
    pages = fetched.changed
    objects = [(page.key, page.body.__bytes__) for page in pages]
    metadata = {page.key: {"url": page.url} for page in pages}
    report = target.update(Batch(source_id, objects, metadata, confirm_deletions), fetched.gone)
    report.unchanged += len(fetched.unchanged)
    report.failed += fetched.failed
    report.skipped += fetched.skipped
    if not report.held:
        source.save()
    return report, fetched
