"""Whether a passage names what a question names: a name is there as written, or as a word much alike
(Ethiopian ~ Etiopía, Superbowl ~ Super Bowl); identifiers match as written, case aside."""

from __future__ import annotations

import difflib
from collections.abc import Set
from functools import lru_cache

from chalicelib.models.records import StoredChunk
from chalicelib.text import fold, words

NAME_SIMILARITY = 0.8  # a name's word is in a passage when a word there is this alike (Ethiopian ~ Etiopía)


def mentioned(name: str, chunk: StoredChunk, every_word: bool = False) -> bool:
    """Whether ``chunk`` (its text, title and headings) names ``name``, or a word alike (Ethiopian ~
    Etiopía, Superbowl ~ Super Bowl); identifiers match as written, case aside."""
    folded, joined, present = _words_of(chunk.chunk_id, chunk.title, tuple(chunk.heading_path), chunk.content)
    if fold(name) in folded or _joined(fold(name)) in joined:  # Superbowl ~ Super Bowl
        return True
    # a name of several words is there when one of its words is (the "Protestant" of "European Protestant");
    # a name of one word must be there itself, or much alike
    significant = [w for w in words(fold(name)) if len(w) > 3 or len(words(name)) == 1]
    if not significant:
        return True
    found = (alike(w, present) for w in significant)
    return all(found) if every_word else any(found)


@lru_cache(maxsize=2048)
def _words_of(
    chunk_id: str, title: str, headings: tuple[str, ...], content: str
) -> tuple[str, str, frozenset[str]]:
    folded = fold(f"{title}\n{' '.join(headings)}\n{content}")
    return folded, _joined(folded), frozenset(words(folded))


def _joined(text: str) -> str:
    return "".join(words(text))


def _digits(word: str) -> str:
    return "".join(c for c in word if c.isdigit())


def alike(word: str, present: Set[str]) -> bool:
    """``word`` (folded) or a word much like it is in ``present``; the digits of a code or a figure are never
    a typo (ENV-201 is another alarm than ENV-202, Q2 another quarter than Q3)."""
    if word in present:
        return True
    digits = _digits(word)
    return any(
        w[:1] == word[:1]
        and _digits(w) == digits
        and abs(len(w) - len(word)) <= 3
        and difflib.SequenceMatcher(None, word, w).ratio() >= NAME_SIMILARITY
        for w in present
    )
