"""Documents as extracted and cut: blocks, sections, the extracted document, chunk drafts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

BlockKind = Literal[
    "heading", "paragraph", "list", "code", "table", "source"
]  # source: raw lines of a code file


@dataclass(frozen=True)
class Block:
    """One structural unit of a document; never cut unless it alone exceeds the token budget."""

    kind: BlockKind
    text: str
    line_start: int = 0
    line_end: int = 0
    cut: bool = False  # cut inside a word: the text had no space or line break within the token budget


@dataclass
class Section:
    """A heading and the blocks under it, up to the next heading of any level."""

    heading_path: tuple[str, ...]
    level: int
    blocks: list[Block] = field(default_factory=list)
    anchor: str | None = None
    alone: bool = False  # never shares a chunk with a neighbour (a spreadsheet's sheet)
    context: tuple[str, ...] = ()  # code: what situates it (enclosing doc comments, the file's purpose)


@dataclass
class ExtractedDocument:
    title: str
    format: str
    sections: list[Section]
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str | None = None  # the file's text, kept for code so chunks are exact line slices
    # what a block's line_start/line_end count: lines of the file, pages of a PDF, slides, a sheet's rows;
    # none for a Word file (its pages exist only when a program lays it out)
    unit: Literal["line", "page", "slide", "row", "none"] = "line"

    @property
    def text(self) -> str:
        return "\n\n".join(b.text for s in self.sections for b in s.blocks)


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk as cut by the chunker, before language, enrichment and embedding."""

    ord: int
    heading_path: tuple[str, ...]
    text: str
    line_start: int
    line_end: int
    anchors: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    hard_cut: bool = False  # holds a piece cut inside a word (see chunking.splitting.split_block)
    context: tuple[str, ...] = ()  # code: its sections' situating lines (extraction.code_context)
