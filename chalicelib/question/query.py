"""A question read once: its folded text, language, intent, mode, heading key, the kind of answer it asks
for, the names and identifiers it holds, and its terms and stems per language. Every step of retrieve and
answer takes this value; nothing downstream folds the question or detects its language again."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

from chalicelib import languages
from chalicelib.ids import sha256
from chalicelib.language_id import detect
from chalicelib.models.api import RetrieveRequest
from chalicelib.question import answer_kinds, parts
from chalicelib.question.intent import Intent, decide_mode, detect_intent, heading_key
from chalicelib.text import fold, stem, stopwords, terms, words

MIN_CONFIDENCE = 0.6  # under this the question's language is unclear: every language is searched alike

_TOKEN = re.compile(r"[^\W_](?:[\w./-]*[^\W_])?|_\w+")
_SENTENCE_START = re.compile(r"(^|[.?!:;¿¡]\s*)$")


@dataclass(frozen=True)
class Translation:
    """The question put into another language to search that language's documents, and its vector; its
    names as that language writes them ("Reino Unido" -> "United Kingdom")."""

    lang: str
    text: str
    vector: object
    aliases: tuple[tuple[str, str], ...] = ()

    @cached_property
    def measure(self) -> str | None:
        """What a count is counted in, as the translation words it ("personas" of "¿Cuántas personas...?")."""
        return answer_kinds.measure(fold(self.text), self.lang)


@dataclass(frozen=True)
class Query:
    text: str
    folded: str
    lang: str | None  # the detected language when it is clear and served, else None
    guess: str  # the language the question is most likely in (its notes are written in it), even if unclear
    confidence: float
    intent: Intent | None
    mode: Literal["documental", "codigo"]
    mode_reason: str
    expects: str | None  # the kind of answer asked for (answer_kinds.KINDS), None for yes/no, how, what
    names: tuple[str, ...]  # capitalised words inside the question, as written ("Nespresso", "Reino Unido")
    identifiers: tuple[str, ...]  # codes, SKUs, functions, files, versions ("TRM-4093", "reorder_point")
    # what a count is counted in ("litros" of "¿Cuántos litros...?"), or how a time is told (a span, a clock)
    measure: str | None = None
    asks_steps: bool = False  # asks for a procedure (its answer is a list of steps, not one sentence)
    parts: tuple[str, ...] = ()  # what it asks, when it asks several things at once (question/parts.py)
    translations: tuple[Translation, ...] = field(default=(), compare=False)
    # a follow-up read by its typed words: the question its thread made of it (what was searched), which
    # names the table row asked about ("¿y el abono mensual?" after the fare to Valladolid: Valladolid's row)
    # and says how much is asked ("who owns it?" is as specific as its thread, answer/signals.py)
    thread: str = ""

    @cached_property
    def heading_key(self) -> str:
        return heading_key(self.text)

    @cached_property
    def text_hash(self) -> str:
        """The question's folded text hashed: what the query log and the log lines keep instead of the text."""
        return question_hash(self.folded)

    def tells_apart(self, mine: str, theirs: str) -> bool:
        """Two titles that differ only by a name this question asks about ("Planta de Monterrey" / "Planta de
        Valencia" for "¿Quién es la jefa de planta de Monterrey?"): ``mine`` is the page asked for, ``theirs``
        its sibling for something else."""
        if not self.names:
            return False
        return self.apart(frozenset(words(fold(mine))), frozenset(words(fold(theirs))))

    @cached_property
    def name_words(self) -> frozenset[str]:
        """The folded words of the names the question asks about."""
        return frozenset(w for n in self.names for w in words(fold(n)))

    def apart(self, own: frozenset[str], other: frozenset[str]) -> bool:
        """``tells_apart`` on two titles' folded words (read once per title by a caller comparing many)."""
        only_own, only_other = own - other, other - own
        return bool(only_own) and only_own <= self.name_words and len(only_other) <= len(only_own) + 1

    def terms(self, lang: str | None) -> list[str]:
        """The question's folded words without ``lang``'s stop-words (every language's when None)."""
        return terms(self.text, lang)

    def stems(self, lang: str | None) -> frozenset[str]:
        """The question's stems in ``lang``; in a language it was translated into, the translation's too."""
        own = set(stem(self.terms(lang), lang))
        for t in self.translations:
            if t.lang == lang:
                own |= set(stem(terms(t.text, lang), lang))
        return frozenset(own)

    def part(self, text: str) -> Query:
        """One part of a question that asks several things: read as a question of its own, in the whole's
        language, with the whole's intent and mode."""
        folded = fold(text)
        return replace(
            self,
            text=text,
            folded=folded,
            expects=answer_kinds.expected(folded, self.lang),
            names=names(text),
            identifiers=identifiers(text),
            measure=answer_kinds.measure(folded, self.lang),
            asks_steps=_asks_steps(folded, self.lang or self.guess),
            parts=(),
            translations=(),
        )

    def translated(self, translation: Translation) -> Query:
        return replace(self, translations=(*self.translations, translation))

    def translation(self, lang: str) -> Translation | None:
        return next((t for t in self.translations if t.lang == lang), None)

    def forms(self, name: str) -> list[str]:
        """A name of the question and how the languages it was translated into write it."""
        return [name, *(alias for t in self.translations for n, alias in t.aliases if n == name)]


def understand(request: RetrieveRequest, served: tuple[str, ...], intents: bool = True) -> Query:
    """The request's question read once (an empty query for a bootstrap map)."""
    text = request.query or ""
    found = detect(text, served) if text else None
    clear = found is not None and found.confidence >= MIN_CONFIDENCE and found.lang in served
    lang = found.lang if clear and found is not None else None
    folded = fold(text)
    mode, reason = decide_mode(request, served, folded)
    return Query(
        text=text,
        folded=folded,
        lang=lang,
        guess=lang or (found.lang if found is not None and found.lang in served else served[0]),
        confidence=found.confidence if found is not None else 0.0,
        intent=detect_intent(folded, served) if intents and text else None,
        mode=mode,
        mode_reason=reason,
        expects=answer_kinds.expected(folded, lang),
        names=names(text),
        identifiers=identifiers(text),
        measure=answer_kinds.measure(folded, lang),
        asks_steps=_asks_steps(folded, lang or (found.lang if found is not None else None)),
        parts=parts.split(text, lang or (found.lang if found is not None else None)),
    )


def _asks_steps(folded: str, lang: str | None) -> bool:
    """The question asks for a procedure: its language's ``steps_question`` (the served languages' when its
    language is unclear)."""
    known = [languages.get(lang)] if lang else [languages.get(c) for c in languages.registered()]
    return any(
        k is not None and k.steps_question is not None and k.steps_question.search(folded) for k in known
    )


def question_hash(folded: str) -> str:
    """A folded question's hash, its spacing aside (the same question logged twice has one hash)."""
    return sha256(" ".join(folded.split()).encode())


def identifiers(text: str) -> tuple[str, ...]:
    """Tokens that are codes rather than words: letters with digits (TRM-4093, tok042x, P-400), underscores
    (reorder_point), inner capitals (labelFormatFor), upper-case parts joined by hyphens (CN-RWA-NYA),
    file names and versions (export_invoices.sh, 2.20.0); plain numbers and amounts are not."""
    out = [m.group() for m in _TOKEN.finditer(text) if _is_identifier(m.group())]
    return tuple(dict.fromkeys(out))


def _is_identifier(word: str) -> bool:
    if re.fullmatch(r"[\d.,]+", word):
        return word.count(".") >= 2  # a version (2.20.0), not an amount (5.000)
    if re.fullmatch(r"\d+(st|nd|rd|th|s|º|ª|er|o|a)", word, re.I):
        return False  # an ordinal or a decade (15th, 1700s), not a code
    if re.fullmatch(r"[QqHhTt][1-4]|\d{1,2}M|FY\d{2,4}", word):
        return False  # a period (Q3, H1, 9M, FY2025), not a code
    parts = word.split("-")
    if (
        len(parts) > 1
        and any(p.isdigit() for p in parts)
        and all(p.isdigit() or p.islower() or re.fullmatch(r"\d+(st|nd|rd|th)", p) for p in parts)
    ):
        return False  # a measure or a score (2-point, 24-yard, 3rd-and-9), not a code
    has_digit = any(c in "0123456789" for c in word)  # m² and m³ are units, not codes
    has_alpha = any(c.isalpha() for c in word)
    if has_digit and has_alpha:
        return True
    if "_" in word.strip("_") or re.search(r"[a-z][A-Z]", word):
        return True
    parts = word.split("-")
    if len(parts) >= 2 and all(p.isupper() and p.isalpha() for p in parts):
        return True
    return bool(re.fullmatch(r"[\w-]+\.(py|ts|js|rs|go|java|sh|md|csv|json|ya?ml|toml|sql)", word))


def names(text: str) -> tuple[str, ...]:
    """Capitalised words inside a sentence, runs of them kept together ("Reino Unido", "Cafetal Norte"):
    the names a question is about. Not its first word, not stop-words, not the pronoun "I"."""
    out: list[str] = []
    run: list[str] = []
    common = stopwords(None)
    for m in _TOKEN.finditer(text):
        word = m.group().split("-")[0] if "-" in m.group() and not _is_identifier(m.group()) else m.group()
        inside = not _SENTENCE_START.search(text[: m.start()])
        capital = word[:1].isupper() and len(word) > 1 and fold(word) not in common
        acronym = (
            word.isupper() and len(word) <= 3
        )  # POS is TPV in Spanish, US is EE. UU.: not a name to find
        if (
            inside
            and capital
            and not acronym
            and not _is_identifier(word)
            and not answer_kinds.is_time_word(word)
        ):
            run.append(word)
            continue
        if run:
            out.append(" ".join(run))
            run = []
    if run:
        out.append(" ".join(run))
    return tuple(dict.fromkeys(out))


def languages_of(query: Query, served: tuple[str, ...]) -> tuple[str, ...]:
    """The languages whose words the question may share with a document: its own first, then the rest."""
    own = (query.lang,) if query.lang else ()
    return (*own, *(code for code in served if code != query.lang and languages.get(code)))
