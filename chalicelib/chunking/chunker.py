"""Structure-aware chunking: heading sections first, then whole blocks; tiny sections merge with siblings.

Rules (source doc 001): never cut inside a paragraph, list, code block or table unless that block alone
exceeds the token budget; every chunk carries the heading path where it starts; no overlap; a heading
is never left alone at the end of a chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from chalicelib.chunking.splitting import split_block
from chalicelib.config.chunking import ChunkingConfig
from chalicelib.extraction.code_context import not_in
from chalicelib.models.extraction import Block, ChunkDraft, ExtractedDocument, Section
from chalicelib.text import token_estimate


@dataclass
class _Group:
    sections: list[Section]
    tokens: int

    @property
    def parent(self) -> tuple[str, ...]:
        return self.sections[0].heading_path[:-1]


def chunk_document(doc: ExtractedDocument, config: ChunkingConfig | None = None) -> list[ChunkDraft]:
    cfg = config or ChunkingConfig()
    counts: dict[str, int] = {}

    def count(text: str) -> int:
        if text not in counts:
            counts[text] = token_estimate(text)
        return counts[text]

    drafts: list[ChunkDraft] = []
    for group in _merge_small_sections(doc.sections, cfg, count):
        for blocks in _pack(group, cfg.max_tokens, count):
            drafts.append(_draft(len(drafts), blocks))
    return drafts


def _section_tokens(section: Section, count: Callable[[str], int]) -> int:
    return sum(count(b.text) for b in section.blocks)


def _merge_small_sections(
    sections: list[Section], cfg: ChunkingConfig, count: Callable[[str], int]
) -> list[_Group]:
    """Consecutive sections under one parent share a chunk while one of them is tiny and both fit."""
    groups: list[_Group] = []
    for section in sections:
        tokens = _section_tokens(section, count)
        if groups and _tail(section) and _tail_of(groups[-1]):
            groups[-1].sections.append(section)  # a closing brace is no chunk of its own
            groups[-1].tokens += tokens
            continue
        if groups and not section.alone and not groups[-1].sections[-1].alone:
            last = groups[-1]
            same_parent = section.heading_path[: len(last.parent)] == last.parent
            small = last.tokens < cfg.min_tokens or tokens < cfg.min_tokens
            last_bare = all(b.kind == "heading" for s in last.sections for b in s.blocks)
            bare = all(b.kind == "heading" for b in section.blocks)  # opens a group: content follows it
            fits = last.tokens + tokens <= cfg.max_tokens
            if fits and (last_bare or (same_parent and small and not bare) or _members(last, section)):
                last.sections.append(section)
                last.tokens += tokens
                continue
        groups.append(_Group([section], tokens))
    return groups


# a line that only closes what came before it: `}`, `};  // namespace leveldb`, `end`, `#endif  // DB_H_`
_CLOSING = re.compile(r"\s*(?:[})\];,]+|end|#\s*endif\b.*)?\s*(?://.*|/\*.*\*/)?\s*")


def _closes(text: str) -> bool:
    return all(_CLOSING.fullmatch(line) for line in text.split("\n"))


def _tail(section: Section) -> bool:
    """Code that only closes what came before it (a class's or namespace's closing lines): no chunk of its
    own, whatever the budget."""
    return all(b.kind == "source" and _closes(b.text) for b in section.blocks)


def _tail_of(group: _Group) -> bool:
    last = group.sections[-1]
    return not last.alone and all(b.kind == "source" for b in last.blocks)


def _members(group: _Group, section: Section) -> bool:
    """Code: ``section`` is a member of the type the group is in (a method after its class's opening lines
    or after a sibling method): a class with short methods is one chunk, as far as the budget goes."""
    if not all(b.kind == "source" for s in (group.sections[0], section) for b in s.blocks):
        return False
    enclosing = section.heading_path[1:-1]  # the types it is in, its file left out
    inside = (s.heading_path[1 : len(enclosing) + 1] for s in group.sections)
    return bool(enclosing) and any(path == enclosing for path in inside)


def _pack(group: _Group, max_tokens: int, count: Callable[[str], int]) -> list[list[tuple[Section, Block]]]:
    """Greedy packing of whole blocks; an over-budget block is cut on its own."""
    chunks: list[list[tuple[Section, Block]]] = []
    current: list[tuple[Section, Block]] = []
    used = 0

    def emit() -> None:
        nonlocal current, used
        carry: list[tuple[Section, Block]] = []
        while current and current[-1][1].kind == "heading":
            carry.insert(0, current.pop())  # a heading travels with the content below it
        if current:
            chunks.append(current)
        current = carry
        used = sum(count(b.text) for _, b in carry)

    for section in group.sections:
        for block in section.blocks:
            cost = count(block.text)
            if cost > max_tokens:
                emit()
                if current:  # headings carried over: give them their own small chunk with the first piece
                    pieces = split_block(block, max(16, max_tokens - used), count)
                    chunks.append([*current, (section, pieces[0])])
                    current, used = [], 0
                    pieces = pieces[1:]
                else:
                    pieces = split_block(block, max_tokens, count)
                chunks.extend([(section, p)] for p in pieces)
                continue
            tail = block.kind == "source" and _closes(block.text)
            if tail and not current and chunks:
                chunks[-1].append((section, block))  # after a cut symbol's last piece
                continue
            if current and used + cost > max_tokens and not tail:
                emit()
            current.append((section, block))
            used += cost
    if current:
        chunks.append(current)
    return chunks


MAX_NAMED_SYMBOLS = 4


def _code_path(members: list[tuple[Section, Block]]) -> tuple[str, ...]:
    """A code chunk's heading path: its main symbol's (the most lines, not the imports it starts with); a
    chunk that holds several symbols names each of them ("struct Sack, fn reorder_point"), so that its title
    says what it holds."""
    main = max(members, key=lambda m: (m[1].line_end - m[1].line_start, len(m[0].heading_path)))[0]
    paths = [s.heading_path for s, _ in members if len(s.heading_path) > 1]
    named = list(dict.fromkeys(p[-1] for p in paths))
    if len(named) < 2:
        return main.heading_path
    common = paths[0][:-1]  # the class or module they all sit in stays in the path
    for p in paths[1:]:
        while common and p[: len(common)] != common:
            common = common[:-1]
    shown = ", ".join(named[:MAX_NAMED_SYMBOLS]) + (", …" if len(named) > MAX_NAMED_SYMBOLS else "")
    return (*(common or main.heading_path[:1]), shown)


def _draft(ord_: int, members: list[tuple[Section, Block]]) -> ChunkDraft:
    first_section = members[0][0]
    heading_path = first_section.heading_path
    if all(b.kind == "source" for _, b in members):
        heading_path = _code_path(members)
    anchors: list[str] = []
    for section, _ in members:
        if section.anchor and section.anchor not in anchors:
            anchors.append(section.anchor)
    text = "\n\n".join(b.text for _, b in members)
    return ChunkDraft(
        ord=ord_,
        heading_path=heading_path,
        text=text,
        line_start=min(b.line_start for _, b in members),
        line_end=max(b.line_end for _, b in members),
        anchors=tuple(anchors),
        kinds=tuple(b.kind for _, b in members),
        hard_cut=any(b.cut for _, b in members),
        context=not_in([line for section, _ in members for line in section.context], text),
    )
