"""What a question expects its answer to hold (an amount, a time, a number, a person, a place) and whether a
quote holds it. "How much does X cost?" is not answered by a sentence without a price, however close its
meaning: the question's kind is read from its words (chalicelib/languages/<code>.toml, ``answer_types``)
and the quote's from digits, currency signs, clock times and each language's ``answer_words``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from chalicelib import languages
from chalicelib.text import fold, stem, words

KINDS = ("amount", "time", "count", "person", "place", "contact", "version")

_NUMBER = re.compile(r"\d")
_AMOUNT = re.compile(
    r"\d[\d.,]*\s?(?:€|\$|%|£|eur\b|euros?\b|usd\b|mxn\b|pesos\b|dolares\b|dollars?\b)|[€$£]\s?\d", re.I
)
# a currency named apart from its number: a table header ("Precio (EUR)", a CSV's "price_eur") over a bare
# figure, "USD 412" (an underscore parts words here: no letter or digit on either side)
_CURRENCY = re.compile(
    r"€|\$|£|(?<![^\W_])(?:eur|euros?|usd|mxn|cop|ars|clp|uyu|pen|brl|gbp|pesos|dolares|dollars?)(?![^\W_])"
)
_TIME_OF_DAY = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|h)\b", re.I)
_ERA = r"\d\s?\(?(?:bp|bce?|ad|ce|a\.\s?c\.|d\.\s?c\.)(?!\w)"  # an era: "11,600 BP", "300 a. C."
_YEAR_DIGITS = r"\b(?:1\d|20)\d{2}"
_CLOCK = re.compile(rf"{_TIME_OF_DAY.pattern}|{_YEAR_DIGITS}s?\b|{_ERA}", re.I)
# what says how long without a unit: a time of day ("10:05"), an era, a range of years ("1870 to 1939")
_SPAN = re.compile(
    rf"{_TIME_OF_DAY.pattern}|{_ERA}"
    rf"|{_YEAR_DIGITS}\s*(?:-|–|to|a|al|y|and|hasta|until|till)\s*(?:1\d|20)?\d{{2}}\b",
    re.I,
)
_DATE = re.compile(
    r"\b\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?\b|\b\d{4}-\d{2}-\d{2}\b"
    r"|\b(?:day|dia)\s+\d|\d\s*(?:days?|dias?)\b"  # "on day 15", "at 7, 15 and 30 days", "el día 5"
)
# a name: a capitalised word that does not open the text or a sentence
_NAME = re.compile(r"(?<![.!?¿¡:|]\s)(?<!^)(?<!\n)(?<![.!?]\s\s)\b[A-ZÁÉÍÓÚÑ][a-záéíóúñü]{2,}", re.M)
_POSTCODE = re.compile(r"\b\d{5}\b")
# a phone number or an extension (three digits or more, spaced or not: "8321 5500", "ext. 4400"), an e-mail
# a phone number (seven digits or more, spaced or not: "+52 81 8321 5500"), an e-mail address, or a short
# number beside the word for an extension or a phone ("ext. 4400", "Extensión | 4412"): not a postcode or a
# street number ("avenida Ruiz Cortines 2870, 66600 Apodaca")
_CONTACT = re.compile(r"\+?\d(?:[\s.-]?\d){6,}|[\w.+-]+@[\w-]+\.\w[\w.]*")
_EXTENSION = re.compile(
    r"\b(?:ext|extension|extensiones|interno|internos|anexo|anexos|ramal|tel|telefono|phone|telephone)\b"
)
_SHORT_NUMBER = re.compile(r"\b\d{3,5}\b")
_YEAR = re.compile(r"\b(?:1[5-9]|20)\d{2}\b")
# a release: "4.4.0", "v2.1", "3.6" (two or three numbers joined by dots, not a decimal with a comma)
_VERSION = re.compile(r"(?<![\d.,])v?\d{1,3}\.\d{1,3}(?:\.\d{1,4})?(?![\d,]|\.\d)")


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
        if (m := asks.search(folded_question)) and not _joins_clause(found, folded_question, m)
    ]
    return min(hits)[2] if hits else None


def _joins_clause(found: languages.Language, folded: str, hit: re.Match[str]) -> bool:
    """``hit`` is a clause word that joins a clause rather than asks ("What happens when the immune system...?",
    "When many people are arrested, what is...?"): another question word stands before it, or a comma after it
    is followed by a question word or "¿"."""
    clause, asks = found.clause_word, found.question_word
    if clause is None or asks is None or not clause.fullmatch(hit.group().strip()):
        return False
    if asks.search(folded[: hit.start()]):
        return True
    _, comma, rest = folded[hit.end() :].partition(",")
    return bool(comma) and bool(re.match(r"\W*¿|" + asks.pattern, rest.lstrip()))


def holds(
    kind: str | None,
    text: str,
    asked_names: Sequence[str] = (),
    measure: str | None = None,
    lang: str | None = None,
) -> bool:
    """Whether ``text`` (a quote, as written) holds an answer of ``kind`` in any registered language. A
    person is a name the question does not already name ("¿Quién es el director de Cafetal Norte?" is not
    answered by "En Cafetal Norte..."); a count is a number that is not a year, or any number counted in the
    ``measure`` asked (in ``lang``): "2000 guests"."""
    if kind is None:
        return True
    folded = fold(text)
    words = _words(kind)
    if kind == "amount":
        return _amount_in(folded) or bool(words and words.search(folded))
    if kind == "time":
        if measure in _SHAPES:
            return _SHAPES[measure](folded)
        return bool(_CLOCK.search(folded) or (words and words.search(folded)))
    if kind == "count":
        if measure is not None and lang is not None and measures(measure, lang, text):
            return True
        return bool(_NUMBER.search(_YEAR.sub(" ", folded)) or (words and words.search(folded)))
    if kind == "person":
        known = {w for n in asked_names for w in fold(n).split()}
        named = any(fold(m.group()) not in known for m in _NAME.finditer(text))
        return bool(named or (words and words.search(folded)))
    if kind == "contact":
        return bool(_CONTACT.search(text) or (_EXTENSION.search(folded) and _SHORT_NUMBER.search(folded)))
    if kind == "version":
        return bool(_VERSION.search(folded))
    return True  # a place is too many things to tell ("Where can the classes be located?")


def _amount_in(folded: str) -> bool:
    """A price: a number with its currency, or a currency named beside a number that is no year (a row
    under "Precio (EUR)", "USD 412")."""
    return bool(
        _AMOUNT.search(folded) or (_CURRENCY.search(folded) and _NUMBER.search(_YEAR.sub(" ", folded)))
    )


DURATION = "<duration>"  # the measure of "how long": any unit of time
CLOCK_TIME = "<clock>"  # of "what time", "opening hours": a time of day
DAY = "<day>"  # of "which day": a weekday, a date, a month


def measure(folded_question: str, lang: str | None) -> str | None:
    """What a count is counted in: "litros" for "¿Cuántos litros de aceite lleva la prensa?", "people" for
    "How many people work at the plant?", DURATION for "How long...?"; and how a time asked for is told:
    CLOCK_TIME for "What time...?" or "support hours", DAY for "Which day...?". None when the question says
    no unit ("¿Cuántos hay?")."""
    found = languages.get(lang or "")
    if found is None:
        return None
    for shape, asks in (
        (DURATION, found.duration_question),
        (CLOCK_TIME, found.clock_question),
        (DAY, found.day_question),
    ):
        if asks is not None and asks.search(folded_question):
            return shape
    m = found.measure_question.search(folded_question) if found.measure_question is not None else None
    if m is None or m.group("unit") in found.stopwords:
        return None
    return m.group("unit")


_QUANTITY = re.compile(r"\d[\d.,]*")
MEASURE_REACH = 3  # the unit's word is at most this many words after the number ("320 litros de aceite")


def measures(unit: str, lang: str, text: str) -> bool:
    """``text`` (a quote in ``lang``) holds a number (in digits or words) counted in ``unit``: the unit's word
    (any unit of time for DURATION, in any registered language) within MEASURE_REACH words after it. (A table header
    that names the unit, "Precio al mes", was tried: it says per what, not how many; docs/evaluation.md.)"""
    folded = fold(text)
    spans = _words("duration") if unit == DURATION else None
    want = stem([unit], lang)[0]
    spelled = _words("count")  # "six years" as well as "6 years"
    found = [*_QUANTITY.finditer(folded), *(spelled.finditer(folded) if spelled else ())]
    for m in found:
        after = words(folded[m.end() : m.end() + 60])[:MEASURE_REACH]
        if spans is not None:
            at = next((i for i, w in enumerate(after) if spans.fullmatch(w)), None)
        else:
            at = next((i for i, w in enumerate(stem(after, lang)) if w == want), None)
        if at is not None and not _per(folded[m.end() :], after, at):
            return True
    return False


def _lasts(folded: str) -> bool:
    """``folded`` says how long: a span of time ("three days", "centuries"), a range of years ("1870 to
    1939") or a clock ("10:05"), an end or a start ("until the end of the Parliament"), or a length ("1,230
    km": "How long is the Rhine?"). Not "never" or "daily", which say when, nor a lone year."""
    folded = folded.replace("_", " ")  # RETRY_DELAY_SECONDS = 30
    said = (_words("duration"), _words("lasts"))  # each language's words, whole words only
    if _SPAN.search(folded) or any(w and w.search(folded) for w in said):
        return True
    lengths = _lengths()
    return bool(lengths and lengths.search(folded))


@cache
def _lengths() -> re.Pattern[str] | None:
    """A number followed by a unit of length of any registered language ("1,230 km")."""
    length = _words("length")
    return re.compile(rf"\d[\d.,]*\s?(?:{length.pattern})") if length else None


def _at_time(folded: str) -> bool:
    """``folded`` says at what time: a clock time ("9:00 a 14:00", "6 pm") or noon, midnight."""
    words = _words("clock")
    return bool(_TIME_OF_DAY.search(folded) or (words and words.search(folded)))


def _on_day(folded: str) -> bool:
    """``folded`` says which day: a weekday, a month, a date ("12/03", "2026-03-31"), a numbered day ("on day
    15", "at 30 days"), today, daily."""
    words = _words("day")
    return bool(_DATE.search(folded) or (words and words.search(folded)))


# how a time asked in a particular way is told: "how long" by a span, "what time" by a clock, "which day" by a day
_SHAPES = {DURATION: _lasts, CLOCK_TIME: _at_time, DAY: _on_day}


def _per(text: str, after: list[str], at: int) -> bool:
    """The unit at ``after[at]`` divides (a rate: "19 € / agente / mes", "500 respuestas al mes", "0.26 EUR
    per kilometre"): the word before it is a rate word of a registered language, or a slash stands before it."""
    rate = _words("rate")
    if at > 0 and rate is not None and rate.fullmatch(after[at - 1]):
        return True
    return "/" in text[: text.find(after[at])] if after[at] in text else False


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
        return _amount_in(folded) or bool(free and free.search(folded))
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
