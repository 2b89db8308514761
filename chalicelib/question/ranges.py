"""Numbers in a question against the ranges a table's rows cover: "¿Quién aprueba una compra de 5.000 €?"
is answered by the row "De 1.000 € a 10.000 €", "60 kg a month" by "50 kg or more"."""

from __future__ import annotations

import math
import re

from chalicelib.text import fold

# a number as people write it: 5.000 / 5,000 / 20000 / 0,03 (a dot or comma before exactly three digits
# separates thousands; otherwise it is a decimal point)
_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:[.,]\d{3})+(?![\d])|(?<![\w.,])\d+(?:[.,]\d+)?(?![\d])")
_UP_TO = re.compile(r"\b(hasta|menos de|up to|less than|under|below|max\w*|maximo)\b")
# a question's strict bounds, right before its number ("cae por debajo del 95 %", "more than 50 kg")
_BELOW = re.compile(r"\b(below|under|less than|fewer than|menos de|por debajo del?|inferior a)\W*$")
_ABOVE = re.compile(r"\b(above|over|more than|mas de|por encima del?|superior a)\W*$")
_FROM = re.compile(r"\b(mas de|a partir de|desde|or more|more than|over|above|from|at least|o mas)\b")


def number(text: str) -> float:
    """A written number as a float (5.000 -> 5000, 0,03 -> 0.03, 20,000 -> 20000)."""
    if re.fullmatch(r"\d{1,3}(?:[.,]\d{3})+", text):
        return float(re.sub(r"[.,]", "", text))
    return float(text.replace(",", "."))


def numbers(text: str) -> list[float]:
    return [number(m.group()) for m in _NUMBER.finditer(text)]


def span(cell: str) -> tuple[float, float] | None:
    """The range a row's first cell covers ("De 1.000 € a 10.000 €", "Hasta 1.000 €", "50 kg or more"; "99.0 %
    to below the commitment" starts at its number: the bound it names is no number)."""
    folded = fold(cell)
    found = list(_NUMBER.finditer(folded))
    values = [number(m.group()) for m in found]
    if len(values) >= 2:
        return (min(values[:2]), max(values[:2]))
    if len(values) == 1:
        up_to = _UP_TO.search(folded)
        if up_to and up_to.start() < found[0].start():
            return (-math.inf, values[0])
        if up_to or _FROM.search(folded):
            return (values[0], math.inf)
    return None


def asked_numbers(question: str) -> list[float]:
    """The question's numbers, a little under one it asks to be under ("below 95 %") and over one it asks to
    be over ("more than 50 kg"): the row of that side of a shared boundary holds it."""
    folded = fold(question)
    out = []
    for m in _NUMBER.finditer(folded):
        before = folded[max(0, m.start() - 24) : m.start()]
        x = number(m.group())
        if _BELOW.search(before):
            x -= 1e-6
        elif _ABOVE.search(before):
            x += 1e-6
        out.append(x)
    return out


def rows_holding(question: str, rows: list[str]) -> list[str]:
    """The one row whose range holds a number of the question (rows are "a | b | ..."; the range is the
    first cell); none when no row is a range, or the question's numbers fall in none or several."""
    spans = [span(row.split("|")[0]) for row in rows]
    if sum(s is not None for s in spans) < 2:
        return []
    asked = asked_numbers(question)
    hits = [
        row
        for row, s in zip(rows, spans, strict=True)
        if s is not None and any(s[0] <= x <= s[1] for x in asked)
    ]
    if len(hits) != 1:
        # a number on a boundary (1.000 in "Hasta 1.000" and "De 1.000 a 10.000") is the first that holds it
        hits = hits[:1]
    return hits
