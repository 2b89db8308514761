"""Turn raw bytes of a supported file into an ExtractedDocument, or fail with a clear reason."""

from __future__ import annotations

from pathlib import PurePosixPath

from chalicelib.errors import ExtractionError
from chalicelib.extraction.code import LANGUAGES, extract_code
from chalicelib.extraction.html import extract_html
from chalicelib.extraction.markdown import extract_markdown, extract_text
from chalicelib.models.extraction import ExtractedDocument

FORMATS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".html": "html",
    ".htm": "html",
    ".txt": "text",
    ".text": "text",
    ".rst": "text",
    ".csv": "csv",
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    **{ext: "code" for ext in LANGUAGES},
}
BINARY = {"pdf", "docx", "pptx", "xlsx"}  # read from their bytes, never decoded as text
MAX_DOCUMENT_BYTES = 30_000_000


def format_for(key: str) -> str | None:
    """The format Sabio reads ``key`` as, or None when the extension is not supported."""
    return FORMATS.get(PurePosixPath(key).suffix.lower())


def decode(data: bytes) -> str:
    """UTF-8 text of ``data``; binaries and other encodings are refused with the reason."""
    if b"\x00" in data[:8192]:
        raise ExtractionError("binary file (contains NUL bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExtractionError(
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}; re-save the file as UTF-8"
        ) from exc
    controls = sum(1 for c in text[:8192] if ord(c) < 32 and c not in "\n\r\t\f")
    if controls > 0.05 * min(len(text), 8192):
        raise ExtractionError("binary file (too many control characters)")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def extract(
    key: str,
    data: bytes,
    *,
    max_bytes: int,
    max_document_bytes: int = MAX_DOCUMENT_BYTES,
    max_pdf_pages: int | None = None,
) -> ExtractedDocument:
    fmt = format_for(key)
    if fmt is None:
        raise ExtractionError(f"unsupported file type {PurePosixPath(key).suffix or '(none)'!r}")
    limit = max_document_bytes if fmt in BINARY else max_bytes
    if len(data) > limit:
        raise ExtractionError(f"file too large: {len(data):,} bytes (limit {limit:,})")
    if not data.strip():
        raise ExtractionError("empty document")
    fallback = PurePosixPath(key).stem.replace("-", " ").replace("_", " ").strip() or key
    if fmt in BINARY:
        doc = _extract_binary(fmt, data, fallback, max_pdf_pages)
    else:
        doc = _extract_text(fmt, decode(data), key, fallback)
    if not doc.text.strip():
        raise ExtractionError("no indexable text after extraction")
    return doc


def _extract_binary(fmt: str, data: bytes, fallback: str, max_pdf_pages: int | None) -> ExtractedDocument:
    if fmt == "pdf":
        from chalicelib.extraction.pdf import MAX_PAGES, extract_pdf

        return extract_pdf(data, fallback, max_pages=max_pdf_pages or MAX_PAGES)
    if fmt == "xlsx":
        from chalicelib.extraction.sheets import extract_xlsx

        return extract_xlsx(data, fallback)
    from chalicelib.extraction.office import extract_docx, extract_pptx

    return extract_docx(data, fallback) if fmt == "docx" else extract_pptx(data, fallback)


def _extract_text(fmt: str, text: str, key: str, fallback: str) -> ExtractedDocument:
    if not text.strip():
        raise ExtractionError("empty document")
    if fmt == "csv":
        from chalicelib.extraction.sheets import extract_csv

        return extract_csv(text, fallback)
    if fmt == "markdown":
        doc = extract_markdown(text, fallback)
    elif fmt == "html":
        doc = extract_html(text, fallback)
    elif fmt == "code":
        doc = extract_code(text, key)
    else:
        doc = extract_text(text, fallback)
    return doc
