"""A question that asks two or three things at once ("¿Cuánto cuesta y quién lo aprueba?", "What was the
budget and how much was spent?"): its parts, each a question of its own, so that the answer quotes what
answers each and its confidence says when one is missing.

A part begins where "y" / "and" (or a comma before one) is followed by a question word of the question's
language; coordinated things asked about together ("el pollo y la hamburguesa") are one part. Pure."""

from __future__ import annotations

import re

from chalicelib import languages
from chalicelib.text import fold

MAX_PARTS = 3
_JOIN = re.compile(r",?\s+(?:y|e|and)\s+|,\s+", re.I)


def split(text: str, lang: str | None) -> tuple[str, ...]:
    """The question's parts (none: it asks one thing). A clause before the first question ("Para el corte del
    18 de marzo en Tajuela, ¿dónde...") is the context of every part and leads each."""
    found = languages.get(lang or "")
    asks = found.question_word if found is not None else None
    if asks is None:
        return ()
    joins = [m for m in _JOIN.finditer(text) if _asks(asks, text[m.end() :])]
    first = asks.search(fold(text))
    if first is None:
        return ()
    start = next((m.end() for m in joins if m.start() <= first.start() + 1 and m.end() > first.start()), None)
    opening = start if start is not None else _opening(text, first.start())
    context = text[:opening].strip(" ¿?¡!.,;:")
    cuts = [m for m in joins if m.start() > opening]
    if not cuts:
        return ()
    pieces, at = [], opening
    for m in cuts[: MAX_PARTS - 1]:
        pieces.append(text[at : m.start()])
        at = m.end()
    pieces.append(text[at:])
    parts = tuple(p.strip(" ¿?¡!.,;:") for p in pieces)
    if any(len(p.split()) < 2 for p in parts):
        return ()
    return tuple(f"{context}, {p}" if context else p for p in parts)


def _opening(text: str, folded_at: int) -> int:
    """Where the question proper opens: its "¿", else the question word found at ``folded_at`` (folding keeps
    the text's length for the Latin scripts asked in)."""
    mark = text.rfind("¿", 0, folded_at + 2)
    return mark if mark >= 0 else folded_at


def _asks(asks: re.Pattern[str], clause: str) -> bool:
    """``clause`` opens with a question word within its first three words ("en qué versión", "how much")."""
    head = " ".join(fold(clause).split()[:3])
    return bool(asks.search(head)) and asks.search(head).start() <= 10  # type: ignore[union-attr]
