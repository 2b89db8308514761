"""A quotable unit of the top chunks as an answer weighs it: what the answerer scores and the citer shapes."""

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
