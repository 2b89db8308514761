"""What a question expects its answer to hold (an amount, a time, a number, a person, a place) and whether a
quote holds it. "How much does X cost?" is not answered by a sentence without a price, however close its
meaning: the question's kind is read from its words (chalicelib/languages/<code>.toml, ``answer_types``)
and the quote's from digits, currency signs, clock times and each language's ``answer_words``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from chalicelib import languages
from chalicelib.text import fold

KINDS = ("amount", "time", "count", "person", "place")

_NUMBER = re.compile(r"\d")
_AMOUNT = re.compile(
    r"\d[\d.,]*\s?(?:€|\$|%|£|eur\b|euros?\b|usd\b|mxn\b|pesos\b|dolares\b|dollars?\b)|[€$£]\s?\d", re.I
)
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|h)\b|\b(?:1\d|20)\d{2}s?\b", re.I)
# a name: a capitalised word that does not open the text or a sentence
_NAME = re.compile(r"(?<![.!?¿¡:|]\s)(?<!^)(?<!\n)(?<![.!?]\s\s)\b[A-ZÁÉÍÓÚÑ][a-záéíóúñü]{2,}", re.M)
_POSTCODE = re.compile(r"\b\d{5}\b")
_YEAR = re.compile(r"\b(?:1[5-9]|20)\d{2}\b")


def expected(folded_question: str, lang: str | None) -> str | None:
    """The kind of answer the question asks for: the one of its language's ``answer_types`` whose words come
    first ("Where do I go when the alarm rings?" asks for a place); None for yes/no questions ("¿Me cobráis
    algo si...?", "Is there a minimum...?"), "what does X mean", "how do I", and languages without patterns."""
    found = languages.get(lang or "")
    if found is None or (found.yes_no is not None and found.yes_no.search(folded_question)):
        return None
    hits = [
        (m.start(), n, kind)
        for n, (kind, asks) in enumerate(found.answer_types)
        if (m := asks.search(folded_question))
    ]
    return min(hits)[2] if hits else None


def holds(kind: str | None, text: str, asked_names: Sequence[str] = ()) -> bool:
    """Whether ``text`` (a quote, as written) holds an answer of ``kind`` in any registered language. A
    person is a name the question does not already name ("¿Quién es el director de Cafetal Norte?" is not
    answered by "En Cafetal Norte..."); a count is a number that is not a year."""
    if kind is None:
        return True
    folded = fold(text)
    words = _words(kind)
    if kind == "amount":
        return bool(_AMOUNT.search(folded) or (words and words.search(folded)))
    if kind == "time":
        return bool(_CLOCK.search(folded) or (words and words.search(folded)))
    if kind == "count":
        return bool(_NUMBER.search(_YEAR.sub(" ", folded)) or (words and words.search(folded)))
    if kind == "person":
        known = {w for n in asked_names for w in fold(n).split()}
        named = any(fold(m.group()) not in known for m in _NAME.finditer(text))
        return bool(named or (words and words.search(folded)))
    return True  # a place is too many things to tell ("Where can the classes be located?")


def is_time_word(word: str) -> bool:
    """A weekday, a month or a unit of time in any registered language ("Saturdays" is no name to find)."""
    words = _words("time")
    return bool(words and words.fullmatch(fold(word)))


def clearly_holds(kind: str | None, text: str) -> bool:
    """``text`` holds the kind asked for in digits (a price with its currency, a clock time, a number): what
    tells the sentence with the answer from a sentence that only talks about it."""
    if kind is None:
        return False
    folded = fold(text)
    if kind == "amount":
        free = _words("free")  # "la comida es gratuita" prices the canteen as surely as "4,50 €"
        return bool(_AMOUNT.search(folded) or (free and free.search(folded)))
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
