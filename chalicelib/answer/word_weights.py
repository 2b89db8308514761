"""How much the question's words weigh in the units of the top chunks: a word every unit holds (their subject)
tells little, a word none holds the most; and what share of the question a passage is silent about."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from chalicelib import languages
from chalicelib.quotes import Unit, heading_above
from chalicelib.text import stem, terms

if TYPE_CHECKING:
    from chalicelib.answer.candidates import Candidate
    from chalicelib.models.records import StoredChunk


def missing(asked: str, lang: str, best: Candidate, pool: list[tuple[int, StoredChunk, Unit]]) -> float:
    """The rarity-weighted share of the question's topic words (not its frame: "cuánto", "pasos") that the
    best unit's chunk, its title and headings do not hold: what the passage is silent about. A word every
    unit of the top chunks holds weighs little; a word none holds, the most."""
    frame = languages.or_fallback(lang).frame_words
    held = [held_stems(chunk, unit) for _, chunk, unit in pool]
    weight = rarity(held)
    code = languages.or_fallback(best.chunk.lang).code
    wanted = set(stem([t for t in terms(asked, lang) if t not in frame], code))
    if not wanted:
        return 0.0
    title = set(stem(terms(" ".join([best.chunk.title, *best.chunk.heading_path]), code), code))
    present = set().union(
        *(h for (_, c, _), h in zip(pool, held, strict=True) if c.chunk_id == best.chunk.chunk_id)
    )
    top = weight_max(weight)
    total = sum(weight.get(t, top) for t in wanted)
    return sum(weight.get(t, top) for t in wanted - present - title) / total if total else 0.0


def held_stems(chunk: StoredChunk, unit: Unit) -> set[str]:
    """A unit's stems in its chunk's language, with its heading's, its table header's and its document
    title's: a row of the page "Brasa & Co. Chamberí" is about Chamberí though it does not say so, and a word
    every unit of a page holds (its subject) weighs little beside the word that tells its rows apart."""
    code = languages.or_fallback(chunk.lang).code
    heading = heading_above(chunk.content, unit.quote) or chunk.section_title
    found = terms(f"{chunk.title} {heading} {unit.header} {unit.quote}", code)
    return set(stem(found + [t.replace("-", "") for t in found if "-" in t], code))


def rarity(held: list[set[str]]) -> dict[str, float]:
    """Each stem's inverse document frequency over the units (log((n + 1) / (df + 0.5)))."""
    n = len(held)
    df: dict[str, int] = {}
    for stems in held:
        for t in stems:
            df[t] = df.get(t, 0) + 1
    return {t: math.log((n + 1) / (d + 0.5)) for t, d in df.items()}


def weight_max(weight: dict[str, float]) -> float:
    """The weight of a stem no unit holds: the rarest there is."""
    return max(weight.values(), default=1.0)
