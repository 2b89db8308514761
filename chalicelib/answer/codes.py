"""A code the question names (an alarm, a SKU, a form) in a unit: whether the unit defines it (under a heading
that names it, or a row it opens) and what the unit earns for holding it, more for defining than for
mentioning it in passing."""

from __future__ import annotations

from chalicelib.models.records import StoredChunk
from chalicelib.question.query import Query
from chalicelib.quotes import Unit, heading_above
from chalicelib.text import fold

IDENTIFIER_BONUS = (
    0.05  # a unit that holds an identifier of the question (a table row the more: it defines it)
)


def identifier_bonus(query: Query, chunk: StoredChunk, unit: Unit) -> float:
    """A unit that holds one of the question's identifiers as written; more when it defines it: a table row
    ("TRM-5030 | 503 | Tramo is under maintenance"), or a sentence under a heading that names it ("SCN-07 —
    Lote duplicado: Qué hacer: ..."), over a line that mentions it in passing (a changelog's "Se añaden los
    errores SCN-04 y SCN-07")."""
    if not query.identifiers:
        return 0.0
    asked = [fold(i) for i in query.identifiers]
    heading = fold(heading_above(chunk.content, unit.quote) or "")
    if any(i in heading for i in asked) or unit.kind == "row" and any(i in fold(unit.quote) for i in asked):
        return IDENTIFIER_BONUS * 1.6
    return IDENTIFIER_BONUS if any(i in fold(unit.quote) for i in asked) else 0.0


def defines(identifiers: tuple[str, ...], chunk: StoredChunk, unit: Unit) -> bool:
    """An identifier of the question heads the unit's section, or opens its row: the passage is about it, not
    a line that mentions it in passing."""
    heading = fold(heading_above(chunk.content, unit.quote) or chunk.section_title)
    first = fold(unit.quote.split("|")[0]) if unit.kind == "row" else ""
    return any(fold(i) in heading or fold(i) in first for i in identifiers)
