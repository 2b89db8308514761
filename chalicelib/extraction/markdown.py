"""Markdown (and plain text) -> blocks -> sections with heading paths; YAML front matter -> metadata."""

from __future__ import annotations

import re
from typing import Any

import yaml

from chalicelib.errors import ExtractionError
from chalicelib.models.extraction import Block, ExtractedDocument, Section

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_ANCHOR = re.compile(r"\s*\{\s*#([\w\-.:]+)\s*\}\s*$")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_LIST_ITEM = re.compile(r"^\s{0,3}([-*+]|\d{1,9}[.)])\s+\S")
_TABLE_DELIM = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_THEMATIC = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")


def split_front_matter(text: str) -> tuple[dict[str, Any], str, int]:
    """Return (metadata, body, number of lines consumed by the front matter)."""
    if not text.startswith("---"):
        return {}, text, 0
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text, 0
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            raw = "\n".join(lines[1:i])
            try:
                meta = yaml.safe_load(raw) or {}
            except yaml.YAMLError as exc:
                raise ExtractionError(f"front matter is not valid YAML: {str(exc).splitlines()[0]}") from exc
            if not isinstance(meta, dict):
                raise ExtractionError("front matter must be a YAML mapping")
            return meta, "\n".join(lines[i + 1 :]), i + 1
    return {}, text, 0


def parse_blocks(text: str, *, line_offset: int = 0, atx_headings: bool = True) -> list[Block]:
    """Cut text into headings, paragraphs, lists, code blocks and tables (line numbers are 1-based)."""
    lines = text.split("\n")
    blocks: list[Block] = []
    i, n = 0, len(lines)

    def add(kind: str, start: int, end: int, body: str | None = None) -> None:
        content = body if body is not None else "\n".join(lines[start:end]).strip("\n")
        if content.strip():
            blocks.append(Block(kind, content, start + 1 + line_offset, end + line_offset))  # type: ignore[arg-type]

    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            j = _fence_end(lines, i, fence.group(2))
            add("code", i, j)
            i = j
            continue
        if atx_headings and _ATX.match(line):
            add("heading", i, i + 1)
            i += 1
            continue
        if _THEMATIC.match(line):
            i += 1
            continue
        if _is_table_start(lines, i):
            j = i + 1
            while j < n and lines[j].strip() and "|" in lines[j]:
                j += 1
            add("table", i, j)
            i = j
            continue
        if _LIST_ITEM.match(line):
            j = _list_end(lines, i)
            add("list", i, j)
            i = j
            continue
        if i + 1 < n and _SETEXT.match(lines[i + 1]) and len(line.strip()) < 120:
            level = 1 if lines[i + 1].strip().startswith("=") else 2
            add("heading", i, i + 2, "#" * level + " " + line.strip())
            i += 2
            continue
        j = i + 1
        while j < n and lines[j].strip() and not _starts_block(lines, j, atx_headings):
            j += 1
        add("paragraph", i, j)
        i = j
    return blocks


def _fence_end(lines: list[str], i: int, marker: str) -> int:
    for j in range(i + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped.startswith(marker[0] * len(marker)) and set(stripped) <= {marker[0]}:
            return j + 1
    return len(lines)


def _is_table_start(lines: list[str], i: int) -> bool:
    line = lines[i]
    if line.lstrip().startswith("|") and line.count("|") >= 2:
        return True
    return "|" in line and i + 1 < len(lines) and bool(_TABLE_DELIM.match(lines[i + 1]))


def _starts_block(lines: list[str], j: int, atx: bool) -> bool:
    line = lines[j]
    return bool(
        _FENCE.match(line)
        or (atx and _ATX.match(line))
        or _LIST_ITEM.match(line)
        or _is_table_start(lines, j)
        or (_SETEXT.match(line) and line.strip().startswith("="))
    )


def _list_end(lines: list[str], i: int) -> int:
    """A list runs over its items, their indented continuations and blank lines between items."""
    j, n = i + 1, len(lines)
    while j < n:
        line = lines[j]
        if not line.strip():
            k = j
            while k < n and not lines[k].strip():
                k += 1
            if k < n and (_LIST_ITEM.match(lines[k]) or lines[k].startswith(("  ", "\t"))):
                j = k
                continue
            return j
        fence = _FENCE.match(line)
        if fence and line.startswith((" ", "\t")):
            j = _fence_end(lines, j, fence.group(2))
            continue
        if _FENCE.match(line) or _ATX.match(line) or _is_table_start(lines, j):
            return j
        j += 1
    return n


def heading_text(block: Block) -> tuple[int, str, str | None]:
    """(level, text, explicit anchor) of a heading block."""
    m = _ATX.match(block.text.split("\n")[0])
    if not m:
        return 1, block.text.strip(), None
    text = m.group(2)
    anchor = _ANCHOR.search(text)
    if anchor:
        text = text[: anchor.start()]
    return len(m.group(1)), text.strip(), anchor.group(1) if anchor else None


def markdown_table(rows: list[list[str]]) -> list[str]:
    """Rows of cell texts (``|`` already escaped) as Markdown table lines: the first row is the header, and
    short rows are padded to the widest."""
    width = max(len(r) for r in rows)
    cells = [r + [""] * (width - len(r)) for r in rows]
    return [
        "| " + " | ".join(cells[0]) + " |",
        "|" + "---|" * width,
        *("| " + " | ".join(r) + " |" for r in cells[1:]),
    ]


def slugify(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower()).strip("-")


def sections_from_blocks(blocks: list[Block]) -> list[Section]:
    """Group blocks under their nearest heading; the heading path is the chain of open headings."""
    sections: list[Section] = [Section(heading_path=(), level=0)]
    stack: list[tuple[int, str]] = []
    for block in blocks:
        if block.kind == "heading":
            level, text, anchor = heading_text(block)
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
            sections.append(
                Section(
                    heading_path=tuple(t for _, t in stack),
                    level=level,
                    blocks=[block],
                    anchor=anchor or slugify(text),
                )
            )
        else:
            sections[-1].blocks.append(block)
    return [s for s in sections if s.blocks]


def extract_markdown(text: str, fallback_title: str) -> ExtractedDocument:
    meta, body, offset = split_front_matter(text)
    blocks = parse_blocks(body, line_offset=offset)
    sections = sections_from_blocks(blocks)
    title = str(meta.get("title") or _first_h1(sections) or fallback_title)
    return ExtractedDocument(title=title, format="markdown", sections=sections, metadata=meta)


def extract_text(text: str, fallback_title: str) -> ExtractedDocument:
    blocks = parse_blocks(text, atx_headings=False)
    first = blocks[0] if blocks else None
    if (
        first is not None
        and first.kind == "paragraph"
        and "\n" not in first.text
        and len(first.text) < 80
        and not first.text.rstrip().endswith((".", ":", ";", ","))
    ):
        # a short first line on its own ("POLÍTICA DE PRIVACIDAD") is the document's title
        blocks[0] = Block("heading", "# " + first.text.strip(), first.line_start, first.line_end)
    sections = sections_from_blocks(blocks)
    return ExtractedDocument(
        title=_first_h1(sections) or fallback_title, format="text", sections=sections, metadata={}
    )


def _first_h1(sections: list[Section]) -> str | None:
    for s in sections:
        if s.level == 1 and s.heading_path:
            return s.heading_path[-1]
    return None
