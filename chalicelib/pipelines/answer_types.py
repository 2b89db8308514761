"""What a question expects its answer to hold (an amount, a time, a number, a person, a place) and whether a
quote holds it. "How much does X cost?" is not answered by a sentence without a price, however close its
meaning: the question's kind is read from its words (chalicelib/languages/<code>.toml, ``answer_types``)
and the quote's from digits, currency signs, clock times and each language's ``answer_words``."""

from __future__ import annotations

import re
from functools import cache

from chalicelib import languages
from chalicelib.text import fold

KINDS = ("amount", "time", "count", "person", "place")

_NUMBER = re.compile(r"\d")
_AMOUNT = re.compile(
    r"\d[\d.,]*\s?(?:€|\$|%|£|eur\b|euros?\b|usd\b|mxn\b|pesos\b|dolares\b|dollars?\b)|[€$£]\s?\d", re.I
)
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|h)\b|\b(?:19|20)\d{2}\b", re.I)
_NAME = re.compile(r"\b[A-ZÁÉÍÓÚÑ][a-záéíóúñü]+\s+(?:de\s+|del\s+)?[A-ZÁÉÍÓÚÑ][a-záéíóúñü]+")
_POSTCODE = re.compile(r"\b\d{5}\b")


def expected(folded_question: str, lang: str | None) -> str | None:
    """The kind of answer the question asks for (the first of its language's ``answer_types`` that
    matches), or None: yes/no questions, "what does X mean", "how do I", and languages without patterns."""
    found = languages.get(lang or "")
    if found is None:
        return None
    return next((kind for kind, asks in found.answer_types if asks.search(folded_question)), None)


def holds(kind: str | None, text: str) -> bool:
    """Whether ``text`` (a quote, as written) holds an answer of ``kind`` in any registered language."""
    if kind is None:
        return True
    folded = fold(text)
    words = _words(kind)
    if kind == "amount":
        return bool(_AMOUNT.search(folded) or (words and words.search(folded)))
    if kind == "time":
        return bool(_CLOCK.search(folded) or (words and words.search(folded)))
    if kind == "count":
        return bool(_NUMBER.search(folded) or (words and words.search(folded)))
    if kind == "person":
        return bool(_NAME.search(text) or (words and words.search(folded)))
    if kind == "place":
        return bool(_POSTCODE.search(folded) or _NAME.search(text) or (words and words.search(folded)))
    return True


def clearly_holds(kind: str | None, text: str) -> bool:
    """``text`` holds the kind asked for in digits (a price with its currency, a clock time, a number): what
    tells the sentence with the answer from a sentence that only talks about it."""
    if kind is None:
        return False
    folded = fold(text)
    if kind == "amount":
        return bool(_AMOUNT.search(folded))
    if kind == "time":
        return bool(_CLOCK.search(folded) or (_NUMBER.search(folded) and holds("time", text)))
    if kind == "count":
        return bool(_NUMBER.search(folded))
    return holds(kind, text)


@cache
def _words(kind: str) -> re.Pattern[str] | None:
    """Every registered language's words of ``kind`` as one pattern (a quote may be in another language
    than its question); a count is held by number words."""
    parts = []
    for code in languages.registered():
        found = languages.require(code)
        table = found.answer_words or {}
        for name in ("number",) if kind == "count" else (kind,):
            if name in table:
                parts.append(table[name].pattern)
    return re.compile("|".join(parts)) if parts else None
