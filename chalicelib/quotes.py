"""What an answer can quote from a chunk (prose sentences, table rows, code lines), and their stored vectors.

Each quotable unit is scored by a text of its own (the sentence under its heading, after its question in a
FAQ). Those texts are embedded once at index time and kept with the chunk (``StoredChunk.quote_vectors``), so
an extractive answer costs no embedding beyond the question's.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from chalicelib.text import sentences

if TYPE_CHECKING:
    from chalicelib.models.records import EmbeddingSpace, StoredChunk

_SKIP_BLOCK = re.compile(r"^\s*(```|~~~|#{1,6}\s|!\[)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_BULLET = re.compile(r"^\s*([-*+]|\d{1,3}[.)])\s+")
# MkDocs block markers (`/// tip | Consejo`, a closing `///`, `!!! warning "Title"`): page syntax, never a quote
_MARKER_LINE = re.compile(
    r"^[ \t]*(?:/{3,}[ \t]*(?:[\w-]+)?(?:[ \t]*\|.*)?|(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+\".*\")?)[ \t]*$",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Unit:
    """One quotable unit of a chunk: a prose sentence, a table row, a sentence of a list item, a code line.
    ``group`` numbers the chunk's tables and lists (-1: neither), ``item`` the row or item inside it."""

    quote: str  # verbatim in the chunk's content
    context: str  # the text it is scored by (a FAQ answer with its question)
    kind: Literal["sentence", "row", "item", "line"] = "sentence"
    group: int = -1
    item: int = -1
    header: str = ""  # a row's table header (outer pipes trimmed)


def candidate_sentences(content: str) -> list[str]:
    """Prose sentences of a chunk, each a verbatim substring of ``content`` (code and tables skipped)."""
    return [u.quote for u in units("doc", content)]


def candidates_with_context(content: str) -> list[tuple[str, str]]:
    """(sentence, text to score it by): an answer right after a question is scored with the question (FAQ)."""
    return [(u.quote, u.context) for u in units("doc", content)]


def units(kind: str, content: str) -> list[Unit]:
    """The chunk's quotable units in reading order (code: its lines worth quoting)."""
    if kind == "code":
        return [Unit(q, c, "line") for q, c in code_candidates(content)]
    return _prose_units(content)


def _blocks(content: str) -> Iterator[tuple[str, str, int]]:
    """The chunk's quotable blocks in order: ("table", block, group), ("prose", text, -1) and ("list",
    items block, group); tables and lists are numbered together, consecutive list blocks are one list."""
    in_fence = False
    group = -1
    listing = False  # the previous block was (part of) a list: a list's items may stand apart
    for block in re.split(r"\n\s*\n", content):
        if block.lstrip().startswith("|"):
            group += 1
            listing = False
            yield "table", block, group
            continue
        first = block.lstrip()
        if first.startswith(("```", "~~~")):
            in_fence = not in_fence if first.count("```") % 2 or first.count("~~~") % 2 else in_fence
            continue
        if in_fence or _SKIP_BLOCK.match(block):
            continue
        lead, bullets = _split_list(block)
        if lead:
            listing = False
            yield "prose", lead, -1
        if bullets:
            if not listing:
                group += 1
            listing = True
            yield "list", bullets, group


def _prose_units(content: str) -> list[Unit]:
    out: list[Unit] = []
    items: dict[int, int] = {}
    for kind, block, group in _blocks(content):
        if kind == "table":
            header = block.strip().split("\n")[0].strip().strip("|").strip()
            rows = _table_rows(block, content)
            out.extend(Unit(row, row, "row", group, n, header) for n, row in enumerate(rows))
        elif kind == "prose":
            out.extend(Unit(q, c) for q, c in _sentences(block, content))
        else:
            for item in list_items(block):
                n = items.setdefault(group, 0)
                out.extend(Unit(q, c, "item", group, n) for q, c in _sentences(item, content))
                items[group] = n + 1
    return out


def _split_list(block: str) -> tuple[str, str]:
    """A block as (the prose before its first list line, the list from there on)."""
    lines = block.split("\n")
    first = next((n for n, line in enumerate(lines) if _BULLET.match(line)), None)
    if first is None:
        return block, ""
    return "\n".join(lines[:first]), "\n".join(lines[first:])


def list_items(block: str) -> list[str]:
    """A list block's items, each with its wrapped lines (verbatim, marker and indentation dropped)."""
    items: list[str] = []
    for line in block.split("\n"):
        if _BULLET.match(line):
            items.append(_BULLET.sub("", line, count=1))
        elif items and line.strip():
            items[-1] += "\n" + line
    return items


def _sentences(text: str, content: str) -> list[tuple[str, str]]:
    """(sentence, scoring text) of one block of prose; a sentence after a question is scored with it."""
    body = _MARKER_LINE.sub("", text)
    out: list[tuple[str, str]] = []
    previous = ""
    for sentence in sentences(body):
        question = previous if previous.rstrip().endswith("?") else ""
        previous = sentence
        if len(sentence.split()) >= 4 and not sentence.rstrip().endswith("?") and sentence in content:
            out.append((sentence, f"{question} {sentence}".strip()))
    return out


def lists_of(content: str) -> dict[int, list[str]]:
    """Each list of a chunk by its group number (as ``units`` numbers groups): its items, verbatim, in order.
    Consecutive list blocks are one list (a PDF or a docx puts a blank line between items)."""
    lists: dict[int, list[str]] = {}
    for kind, block, group in _blocks(content):
        if kind == "list":
            lists.setdefault(group, []).extend(item for item in list_items(block) if item in content)
    return lists


def numbered_lists(content: str) -> set[int]:
    """The group numbers of the chunk's lists that are numbered ("1.", "2)"): steps in order, where a bulleted
    list is more often what one needs or what applies."""
    return {
        group
        for kind, block, group in _blocks(content)
        if kind == "list" and re.match(r"\s*\d{1,3}[.)]\s", block)
    }


_HEADING_LINE = re.compile(r"^#{1,6}\s+(.+?)\s*(?:\{\s*#[\w\-.:]+\s*\})?\s*$", re.MULTILINE)


def heading_above(content: str, quote: str) -> str | None:
    """The heading of the section a quote sits in, when the chunk holds several sections (a changelog's
    versions): the last heading line before the quote; None when there is none."""
    at = content.find(quote)
    if at < 0:
        return None
    found = None
    for m in _HEADING_LINE.finditer(content, 0, at):
        found = m.group(1).strip()
    return found


def section_path(heading_path: Sequence[str], content: str, quote: str) -> tuple[str, ...]:
    """The headings a quote sits under, outermost first: the chunk's heading path, followed through the
    heading lines of the chunk before the quote (a "## Crear la cuenta" inside a chunk that opens with
    "# Primeros pasos" puts its list under both)."""
    at = content.find(quote)
    path = list(heading_path)
    if at < 0:
        return tuple(path)
    for m in _HEADING_LINE.finditer(content, 0, at):
        level = len(m.group(0)) - len(m.group(0).lstrip("#"))
        path = [*path[: level - 1], m.group(1).strip()]
    return tuple(path)


def code_candidates(content: str) -> list[tuple[str, str]]:
    """Lines of a code chunk worth quoting (signatures, docstrings, comments), verbatim and line-exact."""
    out: list[tuple[str, str]] = []
    for line in content.split("\n"):
        text = line.strip()
        if len(text.split()) >= 3 and len(text) <= 240:
            out.append((text, text.strip("#/\"' ")))
    return out


def _table_rows(block: str, content: str) -> list[str]:
    """Data rows of a Markdown table (header and rule skipped), outer pipes trimmed; verbatim."""
    lines = [ln.strip() for ln in block.split("\n") if ln.strip()]
    rows = lines[2:] if len(lines) > 2 and _TABLE_RULE.match(lines[1]) else []
    return [r.strip("|").strip() for r in rows if r.strip("|").strip() and r.strip("|").strip() in content]


def _tables(content: str) -> list[tuple[str, list[str]]]:
    """Each Markdown table of a chunk: its header (outer pipes trimmed) and its data rows, in order."""
    return [
        (block.strip().split("\n")[0].strip().strip("|").strip(), _table_rows(block, content))
        for block in re.split(r"\n\s*\n", content)
        if block.lstrip().startswith("|")
    ]


def table_of(row: str, content: str) -> tuple[str, list[str]] | None:
    """The table a quoted row belongs to: its header and every data row, in order."""
    return next(((header, rows) for header, rows in _tables(content) if row in rows), None)


def is_table_line(line: str, content: str) -> bool:
    """A table's header or one of its rows: quoted as a line, not as a sentence."""
    return any(line == header or line in rows for header, rows in _tables(content))


def quotable(kind: str, content: str) -> list[tuple[str, str]]:
    """(verbatim quote, text to score it by) for a chunk of this kind."""
    return [(u.quote, u.context) for u in units(kind, content)]


# the units and the texts they are embedded by: a store's quote vectors are of this version or re-embedded
UNITS_VERSION = 2


def quote_space(model_id: str) -> str:
    """What a chunk's quote vectors were made with: the model and the version of the units."""
    return f"{model_id}#units{UNITS_VERSION}"


def scoring_texts(section_title: str, kind: str, content: str) -> list[str]:
    """What gets embedded for each quotable unit: the unit in its place, under the heading of the section it
    sits in (a FAQ's own question, a changelog's version), else the chunk's section title."""
    return [f"{heading_above(content, u.quote) or section_title}: {u.context}" for u in units(kind, content)]


def encode_vectors(matrix: np.ndarray) -> str:
    """A (units x dim) matrix as base64 float16: half the bytes, cosine error far below score gaps."""
    return base64.b64encode(np.asarray(matrix, dtype="<f2").tobytes()).decode("ascii")


# quote vectors packed as int8 blocks of BLOCK values, each block with its float16 scale (``INT8`` before their
# base64): how the embedded store keeps them, at a quarter of float32's bytes (docs/performance.md)
INT8 = "i8:"
BLOCK = 64


def quantized(values: np.ndarray) -> bytes | None:
    """Values as int8 blocks and their scales (the block's largest value / 127, float16); None when they are
    not a whole number of blocks."""
    flat = np.asarray(values, dtype=np.float32).reshape(-1)
    if not len(flat) or len(flat) % BLOCK:
        return None
    blocks = flat.reshape(-1, BLOCK)
    scale = (np.abs(blocks).max(axis=1) / 127).astype("<f2")
    safe = np.where(scale > 0, scale.astype(np.float32), 1.0)[:, None]
    return scale.tobytes() + np.clip(np.round(blocks / safe), -127, 127).astype(np.int8).tobytes()


def dequantized(data: bytes | memoryview) -> np.ndarray:
    """What ``quantized`` packed, as flat float32 values."""
    n = len(data) // (2 + BLOCK)
    scale = np.frombuffer(data[: 2 * n], dtype="<f2").astype(np.float32)
    return (np.frombuffer(data[2 * n :], dtype=np.int8).reshape(n, BLOCK) * scale[:, None]).reshape(-1)


def decode_vectors(data: str, dim: int) -> np.ndarray:
    if data.startswith(INT8):
        return dequantized(base64.b64decode(data[len(INT8) :])).reshape(-1, dim)
    return np.frombuffer(base64.b64decode(data), dtype="<f2").astype(np.float32).reshape(-1, dim)


def stored_vectors(chunk: StoredChunk, space: EmbeddingSpace) -> np.ndarray | None:
    """A chunk's quote vectors as stored at index time, when they were embedded in ``space``; else None.
    Decoded once: by the store that read the chunk (read-only), else here."""
    if not chunk.quote_vectors or chunk.quote_space != quote_space(space.model_id):
        return None
    decoded = chunk.decoded_quotes()
    if decoded is not None and len(decoded) % space.dim == 0:
        return np.asarray(decoded).reshape(-1, space.dim)
    return decode_vectors(chunk.quote_vectors, space.dim)
