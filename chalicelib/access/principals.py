"""Who may read a document: principals (``public``, ``group:<name>``, ``user:<email>``), how a document's are
declared (beside it, in it, by its folder, by its source, by the deployment) and which a caller holds.

A document's readers are stored with each of its chunks and matched inside every search (a pre-filter,
chalicelib.stores.sqlite.query_building / opensearch_queries): a caller reads a chunk when they share a principal.
An empty list is read by no one but a caller that reads every document (an operator: no keys and no
identity provider, or a key configured ``"all_documents": true``).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

PUBLIC = "public"
FIELD = "sabio-read"  # S3 metadata (x-amz-meta-sabio-read), front matter, Office custom property
FOLDER_FILE = ".sabio-read"  # a folder's default and its files' own lines (``name = principals``)
_EVERYONE = {"public", "*", "everyone", "group:all", "all"}
_NOBODY = {"none", "deny", "nobody", ""}


def parse(value: object) -> tuple[str, ...]:
    """``"group:finance, user:Ana@acme.com"`` or a list -> sorted, normalised principals. ``public`` (also
    ``*``, ``everyone``, ``group:all``) is everyone in the deployment; ``none`` / ``deny`` is nobody; a bare
    name is a group; users are e-mail addresses, compared without case."""
    items = value if isinstance(value, list | tuple | set) else str(value or "").replace(";", ",").split(",")
    out: set[str] = set()
    for raw in items:
        for word in str(raw).split():
            p = word.strip().strip("'\"")
            if p.lower() in _NOBODY:
                continue
            if p.lower() in _EVERYONE:
                out.add(PUBLIC)
            elif p.lower().startswith("user:"):
                out.add("user:" + p[5:].strip().lower())
            elif p.lower().startswith("group:"):
                out.add("group:" + p[6:].strip())
            else:
                out.add("group:" + p)
    return tuple(sorted(out))


def declared(metadata: Mapping[str, object]) -> tuple[str, ...] | None:
    """The readers a document or its metadata names (``sabio-read``), None when it names none."""
    found = metadata.get(FIELD)
    return None if found is None else parse(found)


@dataclass(frozen=True)
class Defaults:
    """What a document that names no readers gets: its source's default, else the deployment's."""

    deployment: tuple[str, ...] = ()  # deny: the safe default (docs/permissions.md)
    sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def for_source(self, source_id: str) -> tuple[str, ...]:
        return self.sources.get(source_id, self.deployment)

    @classmethod
    def of(cls, deployment: object, sources: Mapping[str, object]) -> Defaults:
        return cls(parse(deployment), {s: parse(v) for s, v in sources.items()})


FOLDER_DEFAULT = "sabio-read-folder"  # metadata a folder's ``.sabio-read`` gives the files under it


def resolve(
    beside: Mapping[str, object],
    inside: tuple[str, ...] | None,
    source_default: tuple[str, ...],
) -> tuple[str, ...]:
    """The most specific wins: beside the file (S3 metadata, its own line in ``.sabio-read``), then in it
    (front matter, an Office property), then its folder's default, then its source's."""
    for found in (declared(beside), inside):
        if found is not None:
            return found
    folder = beside.get(FOLDER_DEFAULT)
    return parse(folder) if folder is not None else source_default


# ---------------------------------------------------------------- local folders: .sabio-read files


def folder_readers(root: Path, keys: Iterable[str]) -> dict[str, dict[str, str]]:
    """Each key's readers as the ``.sabio-read`` files of its folder and the folders above it say, as
    metadata: a ``name = principals`` line names files (a glob, relative to that folder: ``sabio-read``),
    other lines are the folder's default (``sabio-read-folder``); the nearest folder that says something
    wins."""
    rules: dict[str, tuple[list[tuple[str, str]], str | None]] = {}
    out: dict[str, dict[str, str]] = {}
    for key in keys:
        parts = PurePosixPath(key).parts
        for depth in range(len(parts) - 1, -1, -1):
            folder = "/".join(parts[:depth])
            if folder not in rules:
                rules[folder] = _read_folder_file(root / folder / FOLDER_FILE)
            files, default = rules[folder]
            rest = "/".join(parts[depth:])
            own = next((p for pattern, p in files if fnmatch.fnmatchcase(rest, pattern)), None)
            if own is not None:
                out[key] = {FIELD: own}
                break
            if default is not None:
                out[key] = {FOLDER_DEFAULT: default}
                break
    return out


def _read_folder_file(path: Path) -> tuple[list[tuple[str, str]], str | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return [], None
    files: list[tuple[str, str]] = []
    default: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if "=" in line:
            pattern, principals = (s.strip() for s in line.split("=", 1))
            files.append((pattern, principals))
        else:
            default.append(line)
    return files, (",".join(default) if default else None)


# ---------------------------------------------------------------- callers


def group_names(text: str | None) -> list[str]:
    """Groups as a header, a claim or a flag lists them: ``"finance, legal"`` or ``"finance legal"``."""
    return (text or "").replace(",", " ").split()


def principals_of(user: str | None, groups: Iterable[str]) -> tuple[str, ...]:
    """What a caller reads as: everyone's ``public``, their groups, and themselves."""
    held = {PUBLIC, *("group:" + g.strip() for g in groups if g and g.strip())}
    if user and user.strip():
        held.add("user:" + user.strip().lower())
    return tuple(sorted(held))


def may_read(readers: tuple[str, ...] | None, chunk_readers: Iterable[str]) -> bool:
    """``readers``: the caller's principals (None: reads every document)."""
    return readers is None or not set(readers).isdisjoint(chunk_readers)
