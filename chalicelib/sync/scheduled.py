"""The stack's scheduled sync: each configured Git repository or website written into the bucket (under its
prefix, each object with its citation link), whose events the indexer follows like any other upload. The
sync's state (last commit, pages' ETags) is kept in the bucket under ``_sabio/sync/``, never indexed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chalicelib.config.ingest import IngestConfig
from chalicelib.ingest.config import IndexReport
from chalicelib.ingest.s3_events import RESERVED_PREFIX
from chalicelib.sync import git, web
from chalicelib.sync.git_repository import GitSource
from chalicelib.sync.targets import BucketTarget
from chalicelib.sync.web_site import WebSource


def run(spec: dict[str, Any], s3: Any, bucket: str, config: IngestConfig, workroot: Path) -> IndexReport:
    """One source of ``SABIO_SYNC_SOURCES``: ``{"kind": "git" | "web", "location": URL, "source_id": ...,
    "prefix": "<source_id>/", "branch": ..., "max_pages": ...}``."""
    source_id = spec["source_id"]
    prefix = spec.get("prefix") or f"{source_id}/"
    workdir = workroot / source_id
    state = f"{RESERVED_PREFIX}sync/{source_id}/state.json"
    _restore(s3, bucket, state, workdir / "state.json")
    target = BucketTarget(s3, bucket, prefix, config)
    if spec["kind"] == "git":
        report, _ = git.sync(target, GitSource(spec["location"], workdir, spec.get("branch")), source_id)
    elif spec["kind"] == "web":
        limit = max(config.max_file_bytes, config.max_document_bytes)
        source = WebSource(spec["location"], workdir, int(spec.get("max_pages", 1000)), limit)
        report, _ = web.sync(target, source, source_id)
    else:
        raise ValueError(f"sync source {source_id!r}: kind must be git or web, not {spec['kind']!r}")
    if (workdir / "state.json").exists():
        s3.put_object(Bucket=bucket, Key=state, Body=(workdir / "state.json").read_bytes())
    return report


def _restore(s3: Any, bucket: str, key: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.write_bytes(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
    except s3.exceptions.NoSuchKey:
        path.unlink(missing_ok=True)  # a first sync
