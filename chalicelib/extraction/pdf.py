"""PDF -> sections with page ranges: text in reading order, headings from the outline or from font size and
weight, tables as Markdown tables, running headers/footers and page numbers dropped, line-end hyphens
joined; pages with no text layer OCR'd when Tesseract is installed (``ocr.py``).

Each block's ``line_start``/``line_end`` hold its first and last *page* (the document's unit is ``page``).
"""

from __future__ import annotations

import io
import re
import statistics
import subprocess
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from chalicelib.errors import ExtractionError
from chalicelib.extraction import ocr
from chalicelib.extraction.markdown import markdown_table, sections_from_blocks
from chalicelib.models.extraction import Block, ExtractedDocument

MAX_PAGES = 1000
_MARGIN = 0.09  # the top and bottom share of a page where running headers and footers live
_PAGE_NUMBER = re.compile(
    r"^\s*(?:[-–—]\s*)?(?:(?:p(?:age|ágina|ag)?\.?|pág\.?)\s*)?\d{1,4}(?:\s*(?:/|of|de)\s*\d{1,4})?(?:\s*[-–—])?\s*$",
    re.I,
)
_BULLET = re.compile(r"^\s*(?:[•◦▪▫■□●○‣⁃∙·\-–*]|\d{1,3}[.)]|[a-z][.)])\s+")
_SENTENCE_END = re.compile(r"[.!?:;…)\]”\"»]$")


@dataclass
class _Line:
    page: int
    text: str
    top: float
    bottom: float
    x0: float
    size: float
    bold: bool
    page_height: float


def extract_pdf(data: bytes, fallback_title: str, *, max_pages: int = MAX_PAGES) -> ExtractedDocument:
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError

    try:
        pdf = pdfplumber.open(io.BytesIO(data))
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise ExtractionError("encrypted PDF: it needs a password; save an unencrypted copy") from exc
    except PDFSyntaxError as exc:
        raise ExtractionError(f"corrupt PDF: {exc}") from exc
    except Exception as exc:  # pdfplumber wraps pdfminer's many errors for a damaged file
        cause = exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc
        if isinstance(cause, (PDFPasswordIncorrect, PDFEncryptionError)):
            raise ExtractionError("encrypted PDF: it needs a password; save an unencrypted copy") from exc
        raise ExtractionError(f"corrupt PDF: {type(cause).__name__}: {cause}".rstrip(": ")) from exc
    with pdf:
        pages = len(pdf.pages)
        if pages > max_pages:
            raise ExtractionError(
                f"PDF has {pages:,} pages; the limit is {max_pages:,} (SABIO_MAX_PDF_PAGES)"
            )
        lines, tables, scanned = _read_pages(pdf, data)
        meta = _metadata(pdf)
        outline = _outline(pdf)
    if not lines and not tables:
        if scanned and not ocr.available():
            raise ExtractionError(
                f"needs OCR: {len(scanned)} page(s) without a text layer and Tesseract is not installed "
                "(Debian: tesseract-ocr tesseract-ocr-spa)"
            )
        raise ExtractionError("no indexable text in the PDF")
    lines = _numbered_steps(_drop_running_lines(lines, pages))
    blocks = _blocks(lines, tables, outline)
    sections = sections_from_blocks(blocks)
    title = str(meta.pop("title", None) or _first_heading(blocks) or fallback_title)
    if scanned and ocr.available():
        meta["ocr_pages"] = len(scanned)
    elif scanned:  # indexed without them, and the index report says so (never a silent loss)
        meta["pages_without_text"] = scanned
    return ExtractedDocument(title=title, format="pdf", sections=sections, metadata=meta, unit="page")


# ---------------------------------------------------------------------------------------------- pages


def _read_pages(pdf: Any, data: bytes) -> tuple[list[_Line], list[tuple[int, float, str]], list[int]]:
    """Every page's text lines (outside tables), its tables as (page, top, markdown), and the pages that had
    no text layer (OCR'd when Tesseract is installed)."""
    lines: list[_Line] = []
    tables: list[tuple[int, float, str]] = []
    scanned: list[int] = []
    for number, page in enumerate(pdf.pages, 1):
        if not page.chars:
            if page.images:
                scanned.append(number)
                lines.extend(_ocr_lines(data, number, float(page.height)))
            continue
        found = page.find_tables()
        boxes = [t.bbox for t in found]
        for table in found:
            markdown = _table_markdown(table.extract())
            if markdown:
                tables.append((number, float(table.bbox[1]), markdown))
        for line in page.extract_text_lines(return_chars=True, strip=True):
            if any(_inside(line, box) for box in boxes) or not line["text"].strip():
                continue
            chars = [c for c in line["chars"] if c["text"].strip()]
            if not chars:
                continue
            size = statistics.median(round(float(c["size"]), 1) for c in chars)
            bold = sum("bold" in str(c.get("fontname", "")).lower() for c in chars) > 0.8 * len(chars)
            lines.append(
                _Line(
                    number,
                    line["text"],
                    float(line["top"]),
                    float(line["bottom"]),
                    float(line["x0"]),
                    size,
                    bold,
                    float(page.height),
                )  # fmt: skip
            )
    return lines, tables, scanned


def _ocr_lines(data: bytes, number: int, height: float) -> list[_Line]:
    if not ocr.available():
        return []
    try:
        text = ocr.page_text(data, number - 1)
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        raise ExtractionError(f"OCR failed on page {number}: {exc}") from exc
    out = []
    for i, paragraph in enumerate(p for p in re.split(r"\n\s*\n", text) if p.strip()):
        joined = _join_lines([ln.strip() for ln in paragraph.splitlines() if ln.strip()])
        # one line per OCR paragraph, spaced so each starts a paragraph; size 0 never reads as a heading
        out.append(
            _Line(
                number, joined, height * 0.2 + i * 40.0, height * 0.2 + i * 40.0 + 10, 0, 0.0, False, height
            )
        )
    return out


def _inside(line: dict[str, Any], box: tuple[float, float, float, float]) -> bool:
    x0, top, x1, bottom = box
    return bool(
        line["top"] >= top - 1
        and line["bottom"] <= bottom + 1
        and line["x0"] >= x0 - 1
        and line["x1"] <= x1 + 1
    )


def _table_markdown(rows: list[list[str | None]]) -> str:
    cells = [[" ".join(str(c or "").split()).replace("|", "\\|") for c in row] for row in rows if row]
    cells = [row for row in cells if any(row)]
    if len(cells) < 2 or max(len(r) for r in cells) < 2:
        return ""
    return "\n".join(markdown_table(cells))


# ---------------------------------------------------------------------------------------------- cleaning


def _shape(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def _drop_running_lines(lines: list[_Line], pages: int) -> list[_Line]:
    """Running headers and footers (the same line, digits aside, in the margin of many pages) and bare page
    numbers in the margins."""

    def in_margin(line: _Line) -> bool:
        return line.top < _MARGIN * line.page_height or line.bottom > (1 - _MARGIN) * line.page_height

    seen = Counter(
        _shape(ln.text) for ln in {(ln.page, _shape(ln.text)): ln for ln in lines if in_margin(ln)}.values()
    )
    repeated = {s for s, n in seen.items() if n >= 2 and n >= 0.4 * pages}
    return [
        ln
        for ln in lines
        if not (in_margin(ln) and (_shape(ln.text) in repeated or _PAGE_NUMBER.match(ln.text)))
    ]


_STEP = re.compile(r"^(\d{1,2})\s+(?=\S)")


def _numbered_steps(lines: list[_Line]) -> list[_Line]:
    """Steps numbered without a stop ("1 Revisar la escalera...", "2 Apoyarla..."), as a list drawn with its
    numbers apart prints them: a run of lines at one indent numbered 1, 2, 3... reads as a numbered list
    ("1. Revisar..."). A lone line that starts with a number ("12 personas...") stays prose."""
    out = list(lines)
    run: list[int] = []  # indexes of the run being followed
    for i, ln in enumerate(lines):
        m = _STEP.match(ln.text)
        if m is None or _BULLET.match(ln.text):
            continue
        n = int(m.group(1))
        previous = lines[run[-1]] if run else None
        follows = previous is not None and abs(previous.x0 - ln.x0) < 2 and n == len(run) + 1
        run = [*run, i] if follows else ([i] if n == 1 else [])
        if len(run) >= 2:
            for k, at in enumerate(run, 1):
                out[at] = replace(lines[at], text=_STEP.sub(f"{k}. ", lines[at].text, count=1))
    return out


def _join_lines(parts: list[str]) -> str:
    """Lines of one paragraph as one text: a word hyphenated at a line end is joined again."""
    out = ""
    for part in parts:
        if not out:
            out = part
        elif re.search(r"\w-$", out) and part[:1].islower():
            out = out[:-1] + part
        else:
            out = out + " " + part
    return out


# ---------------------------------------------------------------------------------------------- structure


def _heading_levels(lines: list[_Line]) -> tuple[float, dict[float, int]]:
    """The body's font size (the most used), and a level for each clearly larger size (largest = 1)."""
    sizes = Counter()  # type: Counter[float]
    for ln in lines:
        if ln.size:
            sizes[ln.size] += len(ln.text)
    if not sizes:
        return 0.0, {}
    body = sizes.most_common(1)[0][0]
    larger = sorted({s for s in sizes if s >= body * 1.15}, reverse=True)[:4]
    return body, {s: i + 1 for i, s in enumerate(larger)}


def _is_heading_text(text: str) -> bool:
    return 0 < len(text) <= 120 and not _SENTENCE_END.search(text.rstrip()) and any(c.isalpha() for c in text)


def _blocks(lines: list[_Line], tables: list[tuple[int, float, str]], outline: dict[str, int]) -> list[Block]:
    body, levels = _heading_levels(lines)
    if outline:
        # an outline names the headings; a title above them (larger than any of them) is level 1 on top
        named = [ln.size for ln in lines if _shape(ln.text) in outline]
        top = max(named, default=0.0)
        titles = {s for s in levels if s > top}
        outline = {k: v + (1 if titles else 0) for k, v in outline.items()}
        outline_titles = {_shape(ln.text) for ln in lines if ln.size in titles and _is_heading_text(ln.text)}
        outline.update({t: 1 for t in outline_titles})
    items: list[tuple[int, float, str, Any]] = [(ln.page, ln.top, "line", ln) for ln in lines]
    items += [(page, top, "table", md) for page, top, md in tables]
    items.sort(key=lambda x: (x[0], x[1]))
    blocks: list[Block] = []
    para: list[_Line] = []

    def flush() -> None:
        if not para:
            return
        kind = "list" if _BULLET.match(para[0].text) else "paragraph"
        if kind == "list":
            text = "\n".join(
                ("- " + _BULLET.sub("", ln.text, count=1)) if _BULLET.match(ln.text) else "  " + ln.text
                for ln in para
            )
        else:
            text = _join_lines([ln.text for ln in para])
        blocks.append(Block(kind, text, para[0].page, para[-1].page))  # type: ignore[arg-type]
        para.clear()

    for page, _, kind, value in items:
        if kind == "table":
            flush()
            blocks.append(Block("table", value, page, page))
            continue
        ln: _Line = value
        level = _level(ln, body, levels, outline)
        if level:
            flush()
            blocks.append(Block("heading", "#" * level + " " + " ".join(ln.text.split()), page, page))
            continue
        if para and not _continues(para[-1], ln, body):
            flush()
        para.append(ln)
    flush()
    return _merge_headings(blocks)


def _level(ln: _Line, body: float, levels: dict[float, int], outline: dict[str, int]) -> int:
    text = " ".join(ln.text.split())
    if outline:
        return min(outline.get(_shape(text), 0), 6)
    if not _is_heading_text(text):
        return 0
    if ln.size in levels:
        return levels[ln.size]
    if ln.bold and body and abs(ln.size - body) < 0.6 and len(text) <= 80:
        return min(len(levels) + 1, 6)
    return 0


def _continues(prev: _Line, ln: _Line, body: float) -> bool:
    """Whether ``ln`` goes on the paragraph that ``prev`` ends: the next line, or the top of the next page
    after a line that did not end its sentence."""
    if _BULLET.match(ln.text) and not _BULLET.match(prev.text):
        return False
    if ln.page == prev.page:
        height = max(prev.bottom - prev.top, 1.0)
        return 0 <= ln.top - prev.bottom < 0.9 * height and abs(ln.size - prev.size) < 0.6
    return ln.page == prev.page + 1 and not _SENTENCE_END.search(prev.text) and ln.text[:1].islower()


def _merge_headings(blocks: list[Block]) -> list[Block]:
    """A heading that wrapped onto two lines (two heading blocks of one level in a row) is one heading."""
    out: list[Block] = []
    for b in blocks:
        prev = out[-1] if out else None
        if (
            prev is not None
            and b.kind == prev.kind == "heading"
            and b.text.split(" ", 1)[0] == prev.text.split(" ", 1)[0]
            and b.line_start == prev.line_end
        ):
            out[-1] = Block("heading", prev.text + " " + b.text.split(" ", 1)[1], prev.line_start, b.line_end)
            continue
        out.append(b)
    return out


def _first_heading(blocks: list[Block]) -> str | None:
    return next((b.text.lstrip("#").strip() for b in blocks if b.kind == "heading"), None)


# ---------------------------------------------------------------------------------------------- metadata


def _metadata(pdf: Any) -> dict[str, Any]:
    """The PDF's document information: title, author, dates; its catalog's /Lang."""
    info = pdf.metadata or {}
    meta: dict[str, Any] = {}
    for key, name in (("Title", "title"), ("Author", "author"), ("Subject", "description")):
        value = _text(info.get(key))
        if value:
            meta[name] = value
    for key, name in (("CreationDate", "created"), ("ModDate", "modified")):
        date = _pdf_date(_text(info.get(key)))
        if date:
            meta[name] = date
    try:
        lang = pdf.doc.catalog.get("Lang")
        lang = _text(lang.resolve() if hasattr(lang, "resolve") else lang)
    except Exception:
        lang = ""
    if lang:
        meta["declared_lang"] = lang.split("-")[0].lower()
    return meta


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        for encoding in ("utf-16", "utf-8", "latin-1"):
            try:
                value = value.decode(encoding)
                break
            except UnicodeDecodeError:
                continue
    return " ".join(str(value or "").split()).strip()


def _pdf_date(value: str) -> str | None:
    m = re.match(r"^D?:?(\d{4})(\d{2})?(\d{2})?", value)
    if not m:
        return None
    return "-".join(p for p in (m.group(1), m.group(2) or "01", m.group(3) or "01"))


def _outline(pdf: Any) -> dict[str, int]:
    """The outline's titles (bookmarks) and their levels, when the PDF has one."""
    try:
        entries = list(pdf.doc.get_outlines())
    except Exception:
        return {}
    return {_shape(_text(title)): level for level, title, *_ in entries if _text(title)}
