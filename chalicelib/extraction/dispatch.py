"""Turn raw bytes of a supported file into an ExtractedDocument, or fail with a clear reason."""

from __future__ import annotations

from pathlib import PurePosixPath

from chalicelib.errors import ExtractionError, NotIndexed
from chalicelib.extraction.code import extract_code, language_for
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
}
BINARY = {"pdf", "docx", "pptx", "xlsx"}  # read from their bytes, never decoded as text
MAX_DOCUMENT_BYTES = 30_000_000
# prose files known by name (README, LICENSE, ...): read as text, not as line windows
PROSE_NAMES = {
    "readme", "license", "licence", "copying", "notice", "authors", "contributors", "changelog", "changes",
    "history", "news", "contributing", "install", "todo", "pkg-info",
}  # fmt: skip
# never read as text: images, archives, compiled code, media, fonts, databases, other office formats
BINARY_TYPES = {
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".icns", ".webp", ".tif", ".tiff", ".psd", ".svg",
    ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".jar", ".war", ".whl", ".egg",
    ".so", ".dll", ".dylib", ".exe", ".o", ".a", ".lib", ".obj", ".class", ".pyc", ".pyo", ".wasm", ".node",
    ".mp3", ".mp4", ".wav", ".ogg", ".flac", ".mov", ".avi", ".mkv", ".webm",
    ".woff", ".woff2", ".ttf", ".otf", ".eot",
    ".db", ".sqlite", ".sqlite3", ".parquet", ".pkl", ".npy", ".npz", ".bin", ".dat",
    ".doc", ".ppt", ".xls", ".odt", ".ods", ".odp", ".key", ".pages", ".numbers", ".rtf", ".epub",
}  # fmt: skip
# a code file whose lines average more than this many characters was minified or generated
MINIFIED_LINE = 400


def format_for(key: str) -> str | None:
    """The format Sabio reads ``key`` as; None when the type is unknown (it is then sniffed: text is read
    in line windows, anything else is left out and named)."""
    path = PurePosixPath(key)
    if language_for(key):
        return "code"
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None and path.stem.lower() in PROSE_NAMES:
        return "text"
    return fmt


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
    suffix = PurePosixPath(key).suffix.lower()
    if fmt is None and suffix in BINARY_TYPES:
        raise NotIndexed(f"binary file type ({suffix})")
    limit = max_document_bytes if fmt in BINARY else max_bytes
    # code, configuration and unknown files are left out with the reason; a document is a failure
    Refusal = NotIndexed if fmt in (None, "code") else ExtractionError
    if len(data) > limit:
        raise Refusal(f"file too large: {len(data):,} bytes (limit {limit:,})")
    if not data.strip():
        raise Refusal("empty file" if Refusal is NotIndexed else "empty document")
    if fmt is None:
        return _extract_unknown(key, data)
    fallback = PurePosixPath(key).stem.replace("-", " ").replace("_", " ").strip() or key
    if fmt in BINARY:
        doc = _extract_binary(fmt, data, fallback, max_pdf_pages)
    else:
        try:
            text = decode(data)
        except ExtractionError as exc:
            raise Refusal(exc.message) from exc
        doc = _extract_text(fmt, text, key, fallback)
    if not doc.text.strip():
        raise ExtractionError("no indexable text after extraction")
    return doc


def _extract_unknown(key: str, data: bytes) -> ExtractedDocument:
    """A file of a type Sabio does not know: text is read in line windows, anything else is named."""
    suffix = PurePosixPath(key).suffix.lower() or "no extension"
    try:
        text = decode(data)
    except ExtractionError as exc:
        raise NotIndexed(f"unknown file type ({suffix}), not text: {exc.message}") from exc
    return _extract_lines(text, key)


def _extract_lines(text: str, key: str) -> ExtractedDocument:
    """Code, configuration or other text read by lines; a file of very long lines is minified or generated."""
    lines = text.count("\n") + 1
    if len(text) > 2 * MINIFIED_LINE and len(text) / lines > MINIFIED_LINE:
        raise NotIndexed(f"minified or generated: lines average {len(text) // lines:,} characters")
    return extract_code(text, key)


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
        doc = _extract_lines(text, key)
    else:
        doc = extract_text(text, fallback)
    return doc
