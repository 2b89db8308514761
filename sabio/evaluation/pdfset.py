"""The PDF set: the FastAPI docs (es) rendered to PDF, one PDF per page of the docs, and the heading query
set mapped to pages. Each Markdown page is rendered to HTML (markdown-it) and printed to PDF by LibreOffice
headless (``soffice``), once, into the cache folder; a heading's target is the page it is printed on, and a
retrieved chunk hits the targets printed on its pages. Compared with the same questions over the Markdown."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from chalicelib.models.records import StoredChunk
from sabio.evaluation.datasets import Corpus, QuerySet, fastapi_corpus, heading_queries

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*\{[ \t]*#([\w\-.:]+)[ \t]*\}[ \t]*$", re.M)
_INCLUDE = re.compile(r"^\{\*.*\*\}$", re.M)  # mkdocs code includes: their files are not in the docs
_ADMONITION = re.compile(r"^///.*$", re.M)
NAME = "pdf-fastapi-es"


def available() -> str | None:
    """Why the PDF set cannot be built here (None when it can)."""
    return None if shutil.which("soffice") else "LibreOffice (soffice) is not installed"


def _html(markdown: str, title: str) -> str:
    from markdown_it import MarkdownIt

    body = _HEADING.sub(lambda m: f"{m.group(1)} {m.group(2)}", markdown)
    body = _ADMONITION.sub("", _INCLUDE.sub("", body))
    rendered = MarkdownIt("commonmark").enable("table").render(body)
    return f'<!DOCTYPE html><html lang="es"><head><meta charset="utf-8"><title>{title}</title></head><body>{rendered}</body></html>'


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[`*_]", "", text).lower().split())


def _pages_of_headings(pdf_bytes: bytes, headings: list[tuple[str, str]]) -> dict[str, int]:
    """anchor -> the page its heading is printed on (searched in order; an unfound heading takes the page
    of the one before it)."""
    import io

    import pdfplumber

    with pdfplumber.open(io.BytesIO(pdf_bytes)) as pdf:
        pages = [{_norm(line["text"]) for line in p.extract_text_lines()} for p in pdf.pages]
    found: dict[str, int] = {}
    at = 0
    for anchor, heading in headings:
        wanted = _norm(heading)
        hit = next((i for i in range(at, len(pages)) if wanted in pages[i]), None)
        if hit is not None:
            at = hit
        found[anchor] = at + 1
    return found


def render(eval_dir: Path, cache: Path) -> Path:
    """The PDFs and their heading pages (``pages.json``) in ``cache/pdf-fastapi-es-<commit>``, built once."""
    root = eval_dir / "fastapi_docs" / "es"
    commit = (eval_dir / "fastapi_docs" / "COMMIT").read_text().strip()[:12]
    out = cache / f"{NAME}-{commit}"
    if (out / "pages.json").exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    sources = {
        p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*.md")) if p.name != "_llm-test.md"
    }
    flat = {key: key.removesuffix(".md").replace("/", "__") for key in sources}
    with tempfile.TemporaryDirectory(prefix="sabio-pdfset-") as tmp:
        for key, path in sources.items():
            text = path.read_text(encoding="utf-8")
            title = next((m.group(2) for m in _HEADING.finditer(text)), key)
            (Path(tmp) / f"{flat[key]}.html").write_text(_html(text, title), encoding="utf-8")
        subprocess.run(
            [
                "soffice",
                "--headless",
                "--convert-to",
                "pdf",
                "--outdir",
                str(out),
                *sorted(Path(tmp).glob("*.html")),
            ],
            check=True,
            capture_output=True,
            timeout=3600,
        )
    pages = {}
    for key, path in sources.items():
        pdf = out / f"{flat[key]}.pdf"
        headings = [(m.group(3), m.group(2)) for m in _HEADING.finditer(path.read_text(encoding="utf-8"))]
        pages[key] = {"pdf": pdf.name, "anchors": _pages_of_headings(pdf.read_bytes(), headings)}
    (out / "pages.json").write_text(json.dumps(pages, indent=1, ensure_ascii=False), encoding="utf-8")
    return out


def pdf_corpus(eval_dir: Path, cache: Path) -> Corpus:
    folder = render(eval_dir, cache)
    pages: dict[str, dict[str, Any]] = json.loads((folder / "pages.json").read_text(encoding="utf-8"))
    files = {
        f"{key.removesuffix('.md')}.pdf": (folder / row["pdf"]).read_bytes() for key, row in pages.items()
    }
    by_pdf = {f"{key.removesuffix('.md')}.pdf": (key, row["anchors"]) for key, row in pages.items()}

    def targets(chunk: StoredChunk) -> list[str]:
        key, anchors = by_pdf.get(chunk.key, ("", {}))
        first, last = chunk.page_start or 0, chunk.page_end or chunk.page_start or 0
        return [f"{key}#{anchor}" for anchor, page in anchors.items() if first <= page <= last]

    markdown = fastapi_corpus(eval_dir, "es")
    return Corpus(NAME, files, markdown.plain, "es", targets)


def pdf_queries(eval_dir: Path) -> QuerySet:
    markdown = heading_queries(eval_dir, "es")
    note = (
        "The FastAPI docs (es) printed to PDF by LibreOffice, one PDF per page; a hit is a chunk whose pages "
        "hold the heading. Compare with the same questions over the Markdown."
    )
    return QuerySet(
        "FastAPI heading queries es, as PDF", NAME, markdown.queries, markdown.qrels, "auto", "es", note
    )
