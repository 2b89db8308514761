"""Word and PowerPoint files: .docx through mammoth to HTML, then the HTML path (headings from styles,
lists, tables, footnotes); .pptx one section per slide (its title as heading, body, tables, speaker notes),
numbered by slide. Core properties fill the metadata that front matter fills for Markdown."""

from __future__ import annotations

import io
from typing import Any

from chalicelib.errors import ExtractionError
from chalicelib.extraction.containers import core_properties, open_container
from chalicelib.extraction.html import extract_html
from chalicelib.extraction.markdown import markdown_table, slugify
from chalicelib.models.extraction import Block, ExtractedDocument, Section


def extract_docx(data: bytes, fallback_title: str) -> ExtractedDocument:
    import mammoth

    archive = open_container(data, ".docx")
    if "word/document.xml" not in archive.namelist():
        raise ExtractionError("corrupt .docx file: no word/document.xml (is it a Word document?)")
    meta = core_properties(archive)
    try:
        html = mammoth.convert_to_html(io.BytesIO(data)).value
    except Exception as exc:  # mammoth raises what its XML and ZIP readers raise
        raise ExtractionError(f"corrupt .docx file: {type(exc).__name__}: {exc}") from exc
    doc = extract_html(f"<html><body>{html}</body></html>", fallback_title)
    title = meta.pop("title", None)
    doc.metadata = {**doc.metadata, **meta}
    if title:
        doc.title = str(title)
    doc.format = "docx"
    doc.unit = "none"
    return doc


def extract_pptx(data: bytes, fallback_title: str) -> ExtractedDocument:
    from pptx import Presentation

    archive = open_container(data, ".pptx")
    meta = core_properties(archive)
    try:
        deck = Presentation(io.BytesIO(data))
    except Exception as exc:
        raise ExtractionError(f"corrupt .pptx file: {type(exc).__name__}: {exc}") from exc
    sections = []
    for number, slide in enumerate(deck.slides, 1):
        title = _slide_title(slide) or f"Slide {number}"
        blocks = [Block("heading", f"# {title}", number, number)]
        blocks += [Block(kind, text, number, number) for kind, text in _slide_body(slide)]  # type: ignore[arg-type]
        notes = _notes(slide)
        if notes:
            blocks.append(Block("paragraph", notes, number, number))
        sections.append(Section((title,), 1, blocks, anchor=f"slide-{number}-{slugify(title)}"))
    if not any(len(s.blocks) > 1 or s.heading_path[0] != f"Slide {i}" for i, s in enumerate(sections, 1)):
        raise ExtractionError("no indexable text in the slides")
    title = str(meta.pop("title", None) or (sections[0].heading_path[0] if sections else fallback_title))
    return ExtractedDocument(title=title, format="pptx", sections=sections, metadata=meta, unit="slide")


def _slide_title(slide: Any) -> str:
    shape = slide.shapes.title
    return " ".join(shape.text_frame.text.split()) if shape is not None and shape.has_text_frame else ""


def _slide_body(slide: Any) -> list[tuple[str, str]]:
    title = slide.shapes.title
    out: list[tuple[str, str]] = []
    for shape in sorted(slide.shapes, key=lambda s: (s.top or 0, s.left or 0)):
        if title is not None and shape.shape_id == title.shape_id:
            continue
        if shape.has_table:
            rows = [[" ".join(c.text.split()).replace("|", "\\|") for c in r.cells] for r in shape.table.rows]
            if rows:
                out.append(("table", "\n".join(markdown_table(rows))))
        elif shape.has_text_frame:
            out.extend(_text_frame(shape.text_frame))
    return out


def _text_frame(frame: Any) -> list[tuple[str, str]]:
    """Paragraphs of a text box; indented or several short ones read as a list."""
    paragraphs = [(p.level, " ".join("".join(r.text for r in p.runs).split())) for p in frame.paragraphs]
    paragraphs = [(level, text) for level, text in paragraphs if text]
    if not paragraphs:
        return []
    if len(paragraphs) > 1:
        return [("list", "\n".join("  " * level + "- " + text for level, text in paragraphs))]
    return [("paragraph", paragraphs[0][1])]


def _notes(slide: Any) -> str:
    if not slide.has_notes_slide:
        return ""
    text = " ".join(slide.notes_slide.notes_text_frame.text.split())
    return f"Notes: {text}" if text else ""
