"""Office files are ZIP containers: opened only after their directory says they expand to a bounded size
(a zip bomb is refused before it is inflated), and their core properties (title, author, dates, language)
read as document metadata (with the custom property ``sabio-read``: who may read it)."""

from __future__ import annotations

import io
import zipfile
import zlib
from typing import Any
from xml.etree import ElementTree

from chalicelib.errors import ExtractionError

MAX_EXPANDED_BYTES = 300_000_000
MAX_RATIO = 200  # a real document compresses far less than this; a bomb compresses far more
MAX_ENTRIES = 20_000
_CORE = {
    "{http://purl.org/dc/elements/1.1/}title": "title",
    "{http://purl.org/dc/elements/1.1/}creator": "author",
    "{http://purl.org/dc/elements/1.1/}description": "description",
    "{http://purl.org/dc/elements/1.1/}language": "lang",
    "{http://purl.org/dc/terms/}created": "created",
    "{http://purl.org/dc/terms/}modified": "modified",
}


def open_container(data: bytes, kind: str) -> zipfile.ZipFile:
    """The ZIP of an Office file, or a clear reason it is not one (corrupt, a bomb, too many parts)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ExtractionError(f"corrupt {kind} file: not a valid ZIP container ({exc})") from exc
    expanded = sum(e.file_size for e in entries)
    if len(entries) > MAX_ENTRIES:
        raise ExtractionError(f"refused {kind} file: {len(entries):,} parts (limit {MAX_ENTRIES:,})")
    if expanded > MAX_EXPANDED_BYTES or expanded > MAX_RATIO * max(len(data), 1):
        raise ExtractionError(
            f"refused {kind} file: it expands to {expanded:,} bytes from {len(data):,} "
            f"(limit {MAX_EXPANDED_BYTES:,} bytes or {MAX_RATIO}x; a zip bomb?)"
        )
    try:
        bad = archive.testzip()  # reads every part once: bounded by the limits just checked
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
        raise ExtractionError(f"corrupt {kind} file: a part is damaged ({exc})") from exc
    if bad is not None:
        raise ExtractionError(f"corrupt {kind} file: part {bad!r} is damaged")
    return archive


def core_properties(archive: zipfile.ZipFile) -> dict[str, Any]:
    """docProps/core.xml: title, author, description, language, created and modified dates."""
    try:
        root = ElementTree.fromstring(archive.read("docProps/core.xml"))
    except (KeyError, ElementTree.ParseError):
        return {}
    meta: dict[str, Any] = {}
    for child in root:
        name = _CORE.get(child.tag)
        value = " ".join((child.text or "").split())
        if name and value:
            meta[name] = value[:10] if name in ("created", "modified") else value
    meta.update(_custom_properties(archive))
    if "lang" in meta:  # the authoring tool's locale as often as the text's: ingest weighs it (declared_lang)
        meta["declared_lang"] = str(meta.pop("lang")).split("-")[0].lower()
    return meta


def _custom_properties(archive: zipfile.ZipFile) -> dict[str, str]:
    """docProps/custom.xml's ``sabio-read`` (File > Properties > Custom in Word, Excel, PowerPoint): who may
    read the document (chalicelib.access.principals)."""
    try:
        root = ElementTree.fromstring(archive.read("docProps/custom.xml"))
    except (KeyError, ElementTree.ParseError):
        return {}
    for prop in root:
        if str(prop.get("name") or "").strip().lower() == "sabio-read":
            return {"sabio-read": " ".join("".join(prop.itertext()).split())}
    return {}
