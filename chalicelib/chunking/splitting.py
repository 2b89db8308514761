"""Cutting one block that alone exceeds the token budget, at line (then sentence, then word) boundaries."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from chalicelib.models.extraction import Block
from chalicelib.text import sentences

Counter = Callable[[str], int]


def split_block(block: Block, max_tokens: int, count: Counter) -> list[Block]:
    """Pieces of an over-budget block; code pieces re-open their fence, table pieces repeat the header.

    Text with no space to cut at (minified code, base64, a long URL) is cut inside the word as a last
    resort; such pieces are marked ``cut``.
    """
    pieces = _split(block, max_tokens, count)
    if any(count(word) > max_tokens for word in block.text.split()):
        return [dataclasses.replace(p, cut=True) for p in pieces]
    return pieces


def _split(block: Block, max_tokens: int, count: Counter) -> list[Block]:
    lines = block.text.split("\n")
    if block.kind == "code" and len(lines) >= 2:
        opener = lines[0]
        closes = lines[-1].strip().startswith(opener.strip()[:3])
        body = lines[1:-1] if closes else lines[1:]
        closer = lines[-1] if closes else opener.strip()[:3]
        return _wrap_pieces(block, body, 1, opener, closer, max_tokens, count)
    if block.kind == "table" and len(lines) > 2:
        header = "\n".join(lines[:2])
        return _wrap_pieces(block, lines[2:], 2, header, None, max_tokens, count)
    if block.kind == "list":
        return _pack_lines(block, _list_items(lines), 0, max_tokens, count)
    if len(lines) > 1:
        return _pack_lines(block, [[ln] for ln in lines], 0, max_tokens, count)
    parts = sentences(block.text)
    if len(parts) <= 1:
        parts = _word_pieces(block.text, max_tokens, count)
    return [
        Block(block.kind, p, block.line_start, block.line_end) for p in _greedy(parts, " ", max_tokens, count)
    ]


def _wrap_pieces(
    block: Block, body: list[str], first: int, head: str, tail: str | None, max_tokens: int, count: Counter
) -> list[Block]:
    overhead = count(head) + (count(tail) if tail else 0)
    budget = max(8, max_tokens - overhead)
    pieces: list[Block] = []
    for group, offset in _line_groups(body, budget, count):
        text = "\n".join([head, *group, *([tail] if tail else [])])
        start = block.line_start + first + offset
        pieces.append(Block(block.kind, text, start, start + len(group) - 1))
    return pieces


def _line_groups(lines: list[str], budget: int, count: Counter) -> list[tuple[list[str], int]]:
    groups: list[tuple[list[str], int]] = []
    current: list[str] = []
    used, start = 0, 0
    for i, line in enumerate(lines):
        cost = count(line) if line.strip() else 1
        if current and used + cost > budget:
            groups.append((current, start))
            current, used, start = [], 0, i
        if cost > budget and not current:
            for piece in _word_pieces(line, budget, count):
                groups.append(([piece], i))
            start = i + 1
            continue
        current.append(line)
        used += cost
    if current:
        groups.append((current, start))
    return groups


def _list_items(lines: list[str]) -> list[list[str]]:
    items: list[list[str]] = []
    for line in lines:
        if not items or re.match(r"^([-*+]|\d{1,9}[.)])\s", line):
            items.append([line])
        else:
            items[-1].append(line)
    return items


def _pack_lines(block: Block, units: list[list[str]], _: int, max_tokens: int, count: Counter) -> list[Block]:
    pieces: list[Block] = []
    line = block.line_start
    current: list[str] = []
    current_start = line
    for unit in units:
        text = "\n".join(unit)
        if count(text) > max_tokens:
            if current:
                pieces.append(Block(block.kind, "\n".join(current), current_start, line - 1))
                current = []
            for piece in split_block(Block("paragraph", text, line, line + len(unit) - 1), max_tokens, count):
                pieces.append(Block(block.kind, piece.text, piece.line_start, piece.line_end))
            line += len(unit)
            current_start = line
            continue
        if current and count("\n".join([*current, text])) > max_tokens:
            pieces.append(Block(block.kind, "\n".join(current), current_start, line - 1))
            current, current_start = [], line
        current.extend(unit)
        line += len(unit)
    if current:
        pieces.append(Block(block.kind, "\n".join(current), current_start, line - 1))
    return pieces


def _word_pieces(text: str, max_tokens: int, count: Counter) -> list[str]:
    words = [piece for word in text.split(" ") for piece in _hard_cut(word, max_tokens, count)]
    return _greedy(words, " ", max_tokens, count)


def _hard_cut(word: str, max_tokens: int, count: Counter) -> list[str]:
    """The last resort for a run of text without spaces over the budget: slices that each fit it."""
    if count(word) <= max_tokens:
        return [word]
    size = max(1, len(word) * max_tokens // count(word))
    while size > 1 and count(word[:size]) > max_tokens:
        size = size * 3 // 4
    return [word[i : i + size] for i in range(0, len(word), size)]


def _greedy(parts: list[str], sep: str, max_tokens: int, count: Counter) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    for part in parts:
        if current and count(sep.join([*current, part])) > max_tokens:
            out.append(sep.join(current))
            current = []
        current.append(part)
    if current:
        out.append(sep.join(current))
    return [p for p in out if p.strip()]
