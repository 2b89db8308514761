"""Stable identifiers shared by every backend: content hashes and document ids."""

from __future__ import annotations

import hashlib


def sha256(data: bytes | str) -> str:
    raw = data.encode() if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def document_id(source_id: str, key: str) -> str:
    """The id of object ``key`` of ``source_id``; chunk ids start with it (``<document_id>:<ord>:<hash>``)."""
    return sha256(f"{source_id}\x00{key}")[:20]
