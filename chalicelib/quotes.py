"""What an answer can quote from a chunk (prose sentences, table rows, code lines), and their stored vectors.

Each quotable unit is scored by a text of its own (the sentence under its heading, after its question in a
FAQ). Those texts are embedded once at index time and kept with the chunk (``StoredChunk.quote_vectors``), so
an extractive answer costs no embedding beyond the question's.
"""

from __future__ import annotations

import base64
import re

import numpy as np

from chalicelib.text import sentences

_SKIP_BLOCK = re.compile(r"^\s*(```|~~~|#{1,6}\s|!\[)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_BULLET = re.compile(r"^\s*([-*+]|\d{1,3}[.)])\s+")
# MkDocs block markers (`/// tip | Consejo`, a closing `///`, `!!! warning "Title"`): page syntax, never a quote
_MARKER_LINE = re.compile(
    r"^[ \t]*(?:/{3,}[ \t]*(?:[\w-]+)?(?:[ \t]*\|.*)?|(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+\".*\")?)[ \t]*$",
    re.MULTILINE,
)


def candidate_sentences(content: str) -> list[str]:
    """Prose sentences of a chunk, each a verbatim substring of ``content`` (code and tables skipped)."""
    return [sentence for sentence, _ in candidates_with_context(content)]


def candidates_with_context(content: str) -> list[tuple[str, str]]:
    """(sentence, text to score it by): an answer right after a question is scored with the question (FAQ)."""
    out: list[tuple[str, str]] = []
    in_fence = False
    for block in re.split(r"\n\s*\n", content):
        if block.lstrip().startswith("|"):
            out.extend((row, row) for row in _table_rows(block, content))
            continue
        for line_block in [block] if not _BULLET.match(block) else block.split("\n"):
            first = line_block.lstrip()
            if first.startswith(("```", "~~~")):
                in_fence = not in_fence if first.count("```") % 2 or first.count("~~~") % 2 else in_fence
                continue
            if in_fence or _SKIP_BLOCK.match(line_block):
                continue
            body = _BULLET.sub("", line_block, count=1) if _BULLET.match(line_block) else line_block
            body = _MARKER_LINE.sub("", body)
            previous = ""
            for sentence in sentences(body):
                question = previous if previous.rstrip().endswith("?") else ""
                previous = sentence
                if len(sentence.split()) >= 4 and not sentence.rstrip().endswith("?") and sentence in content:
                    out.append((sentence, f"{question} {sentence}".strip()))
    return out


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
    return code_candidates(content) if kind == "code" else candidates_with_context(content)


def scoring_texts(section_title: str, kind: str, content: str) -> list[str]:
    """What gets embedded for each quotable unit: the unit in its place, under its section heading."""
    return [f"{section_title}: {ctx}" for _, ctx in quotable(kind, content)]


def encode_vectors(matrix: np.ndarray) -> str:
    """A (units x dim) matrix as base64 float16: half the bytes, cosine error far below score gaps."""
    return base64.b64encode(np.asarray(matrix, dtype="<f2").tobytes()).decode("ascii")


def decode_vectors(data: str, dim: int) -> np.ndarray:
    return np.frombuffer(base64.b64decode(data), dtype="<f2").astype(np.float32).reshape(-1, dim)
