"""What a language says about follow-ups (its ``[follow_up]`` table, chalicelib/languages/<code>.toml), read
once, and a question as the merge reads it: its words as written beside their folded forms."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from chalicelib import languages
from chalicelib.text import fold

ASKS_WITHIN = 3  # a question word this close to the start makes a follow-up a question of its own
_EDGE = "¿?¡!.,;:\"'()[]{}«»“”‘’…"


@dataclass(frozen=True)
class Words:
    """A question's words as written (punctuation at their edges dropped) and folded, side by side."""

    shown: tuple[str, ...]
    folded: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> Words:
        shown = tuple(w for w in (t.strip(_EDGE) for t in text.split()) if w)
        return cls(shown, tuple(fold(w) for w in shown))

    @classmethod
    def join(cls, *parts: Words) -> Words:
        return cls(tuple(w for p in parts for w in p.shown), tuple(w for p in parts for w in p.folded))

    def __len__(self) -> int:
        return len(self.shown)

    def __getitem__(self, at: slice) -> Words:
        return Words(self.shown[at], self.folded[at])

    def text(self) -> str:
        return " ".join(self.shown)

    def find(self, phrase: tuple[str, ...], start: int = 0) -> int:
        """Where the folded ``phrase`` starts (the last place at or after ``start``), or -1."""
        n = len(phrase)
        found = -1
        for i in range(start, len(self.folded) - n + 1):
            if self.folded[i : i + n] == phrase:
                found = i
        return found

    def replaced(self, start: int, end: int, by: Words) -> Words:
        return Words.join(self[:start], by, self[end:])


@dataclass(frozen=True)
class Cues:
    """A language's follow-up words, folded (see the ``[follow_up]`` table of es.toml for each)."""

    lang: str
    lead_in: re.Pattern[str]
    asks: frozenset[str]
    determiners: frozenset[str]
    plural_determiners: frozenset[str]
    indefinite: frozenset[str]
    elided: frozenset[str]
    auxiliaries: frozenset[str]
    breaks: frozenset[str]
    prepositions: frozenset[str]
    attaching: frozenset[str]
    same_place: tuple[frozenset[str], ...]
    pronouns: frozenset[str]
    demonstratives: frozenset[str]
    person_pronouns: frozenset[str]
    clitics: frozenset[str]
    clitic_articles: frozenset[str]
    clitic_after: frozenset[str]
    enclitic: re.Pattern[str] | None
    infinitive: re.Pattern[str] | None
    possessives: frozenset[str]
    ask_one: str
    ask_many: str
    question: str
    who: frozenset[str]
    which: frozenset[str]
    of: str
    contractions: dict[str, str]
    feminine_endings: tuple[str, ...]
    articles: dict[str, str]
    alternatives: tuple[tuple[tuple[str, ...], ...], ...]  # groups of folded phrases (as word tuples)
    # words that stay in a question's frame after its question word ("how far in advance")
    degree: frozenset[str]
    frame_words: frozenset[str]
    stopwords: frozenset[str]

    def place_of(self, preposition: str) -> frozenset[str]:
        """The prepositions that fill the same place as ``preposition`` (itself included)."""
        return next((g for g in self.same_place if preposition in g), frozenset((preposition,)))

    def is_ask(self, words: Words, within: int = ASKS_WITHIN) -> bool:
        """Whether a question word opens ``words``, or stands among its first words ("cada cuánto", "antes de
        qué día"; one word, or two: "por qué", "a quién")."""
        for at in range(min(within, len(words))):
            if words.folded[at] in self.asks or " ".join(words.folded[at : at + 2]) in self.asks:
                return True
        return False

    def refers(self, words: Words) -> bool:
        """Whether a word of ``words`` stands for something said before (a pronoun, a clitic, a possessive)."""
        return any(self.reference_at(words, i) for i in range(len(words)))

    def reference_at(self, words: Words, i: int) -> str | None:
        """What kind of reference word stands at ``i``: pronoun, person, possessive, clitic, enclitic,
        demonstrative; None for any other word."""
        w = words.shown[i].lower()  # as written: "él" is not "el", nor "está" "esta"
        before = words.folded[i - 1] if i else ""
        if w in self.pronouns:
            return "pronoun"
        if w in self.person_pronouns:
            return "person"
        if w in self.possessives:
            return "possessive"
        if w in self.demonstratives:
            return "demonstrative"
        if w in self.clitics and words.folded[i + 1 : i + 2] != ("que",):
            return "clitic" if i + 1 < len(words) else None
        if w in self.clitic_articles and before in self.clitic_after and i + 1 < len(words):
            return "clitic"
        shown = words.shown[i]
        if self.enclitic is not None and shown[:1].islower() and self.enclitic.match(words.folded[i]):
            return "enclitic"
        return None


def _groups(value: Any) -> tuple[tuple[tuple[str, ...], ...], ...]:
    return tuple(tuple(tuple(fold(p).split()) for p in group) for group in value or ())


@cache
def cues(lang: str | None) -> Cues | None:
    """The follow-up cues of ``lang``; None when the language has no ``[follow_up]`` table."""
    language = languages.get(lang or "")
    table = language.follow_up if language is not None else None
    if language is None or not table:
        return None

    def words(name: str) -> frozenset[str]:
        return frozenset(fold(w) for w in table.get(name) or ())

    def written(name: str) -> frozenset[str]:  # matched as written, lower-cased ("él", "está")
        return frozenset(w.lower() for w in table.get(name) or ())

    return Cues(
        lang=language.code,
        lead_in=re.compile(table["lead_in"]),
        asks=words("asks"),
        determiners=words("determiners"),
        plural_determiners=words("plural_determiners"),
        indefinite=words("indefinite"),
        elided=words("elided"),
        auxiliaries=words("auxiliaries"),
        breaks=words("breaks"),
        prepositions=words("prepositions"),
        attaching=words("attaching"),
        same_place=tuple(frozenset(fold(w) for w in g) for g in table.get("same_place") or ()),
        pronouns=written("pronouns"),
        demonstratives=written("demonstratives"),
        person_pronouns=frozenset(w.lower() for w in language.person_pronouns),
        clitics=written("clitics"),
        clitic_articles=words("clitic_articles"),
        clitic_after=words("clitic_after"),
        enclitic=re.compile(table["enclitic"]) if table.get("enclitic") else None,
        infinitive=re.compile(table["infinitive"]) if table.get("infinitive") else None,
        possessives=written("possessives"),
        ask_one=table["ask_one"],
        ask_many=table["ask_many"],
        question=table["question"],
        who=words("who"),
        which=words("which"),
        of=table["of"],
        contractions=dict(table.get("contractions") or {}),
        feminine_endings=tuple(table.get("feminine_endings") or ()),
        articles=dict(table["articles"]),
        alternatives=_groups(table.get("alternatives")),
        degree=words("degree"),
        frame_words=language.frame_words,
        stopwords=language.stopwords,
    )
