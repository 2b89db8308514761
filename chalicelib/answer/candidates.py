"""A quotable unit of the top chunks as an answer weighs it (what the answerer scores and the citer shapes),
and the choice an answer makes among them for one reading of the question."""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.models.records import StoredChunk
from chalicelib.quotes import Unit


@dataclass(frozen=True)
class Candidate:
    """One quotable unit of the top chunks, and how well it answers."""

    rank: int  # its chunk's rank
    chunk: StoredChunk
    unit: Unit
    cosine: float
    score: float
    overlap: float  # share of the question's stems it holds


@dataclass(frozen=True)
class Choice:
    """The best unit for one reading of the question (its own words, or a translation), its evidence and the
    quotes that answer."""

    best: Candidate
    picked: list[tuple[StoredChunk, str]]
    evidence: float
    asked: str
    lang: str
    margin: float = 0.0  # the best unit's lead over another document's best (capped)
    coverage: float = 0.0  # share of the reading's stems its chunk holds
    missing: float = 0.0  # rarity-weighted share of its topic words that neither its chunk nor title holds
    apart: float = 0.0  # the best unit's lead over the next unit anywhere (capped)


def margin(best: Candidate, candidates: list[Candidate], cap: float) -> float:
    """How far the best unit's score stands above the best unit of another document, up to ``cap``. A row
    of a table with the same header in another document (Spain's and Mexico's price pages) is a sibling that
    answers for another country, not a rival reading of the question."""
    others = [
        c.score
        for c in candidates
        if c.chunk.document_id != best.chunk.document_id
        and not (best.unit.kind == "row" and c.unit.kind == "row" and c.unit.header == best.unit.header)
    ]
    return min(cap, best.score - max(others)) if others else cap
