"""The names and identifiers of a question, found as written: the few chunks that hold a rare one (an SKU,
an error code, a function) rank first whatever the dense list says, and a name that no document the caller
may read mentions is known before an answer is attempted ("¿Venden cápsulas Nespresso?")."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from chalicelib.models.records import SearchFilters, StoredChunk
from chalicelib.protocols import ChunkStore, VectorIndex
from chalicelib.question.names import mentioned
from chalicelib.question.query import Query
from chalicelib.text import fold

RARE = 3  # a token held by at most this many chunks is rare: its chunks come first
# a question of at most this many words is about its names and identifiers (a search-box query); in a longer
# one an identifier is often incidental ("I `return HTTPException(status_code=404)` from my endpoint but..."):
# there only codes with digits (an SKU, an error code, a version) put their chunks first (docs/evaluation.md)
SHORT = 4
LOOK = 12  # BM25 hits read per token to find its exact holders


@dataclass(frozen=True)
class Exact:
    rare: dict[str, list[str]]  # token -> the chunks that hold it, best BM25 first (1..RARE of them)
    unmentioned: tuple[str, ...]  # tokens no readable chunk holds (in any language's words for names)


def holds(chunk: StoredChunk, token: str) -> bool:
    """A token as written (case and accents aside): an identifier, or a name whose chunks may come first."""
    text = fold(f"{chunk.title}\n{chunk.section_title}\n{chunk.content}")
    return re.search(rf"(?<!\w){re.escape(fold(token))}(?!\w)", text) is not None


def names(chunk: StoredChunk, token: str) -> bool:
    """A name as ``answerability.mentioned`` reads one (Ethiopian ~ Etiopía): enough to be mentioned."""
    return mentioned(token, chunk, every_word=True)


def find(
    query: Query,
    index: VectorIndex,
    chunks: ChunkStore,
    filters: SearchFilters,
    seen: list[StoredChunk],
    variants: Callable[[str], list[str]] = lambda name: [],
    judge_names: bool = True,
) -> Exact:
    """Each identifier and name of ``query`` looked up under ``filters`` (what the caller may read). A name
    is unmentioned only when no chunk already ``seen`` (the fused candidates) names it either, nor its
    ``variants`` in the other languages (Spain -> España): words found by BM25 must match as written. With
    ``judge_names`` False (no document is in the question's language: names change form across languages,
    Franks / francos) only identifiers can be unmentioned."""
    rare: dict[str, list[str]] = {}
    unmentioned: list[str] = []
    tokens = [(t, True) for t in query.identifiers] + [(n, False) for n in query.names]
    for token, identifier in tokens:
        held = _holders(token, identifier, index, chunks, filters, holds)
        if not held and not identifier and not any(mentioned(token, c) for c in seen):
            held = [h for v in variants(token) for h in _holders(v, False, index, chunks, filters, names)]
            if not held and judge_names:
                unmentioned.append(token)
            continue
        if not held:
            if identifier:
                unmentioned.append(token)
            continue
        if len(held) <= RARE and _decisive(token, identifier, query):
            rare[token] = held
    return Exact(rare, tuple(unmentioned))


def _decisive(token: str, identifier: bool, query: Query) -> bool:
    """Whether a rare token decides the question: a code with digits, or any token of a short question."""
    if identifier and any(c.isdigit() for c in token):
        return True
    return len(query.terms(query.lang)) <= SHORT


def _holders(
    token: str,
    identifier: bool,
    index: VectorIndex,
    chunks: ChunkStore,
    filters: SearchFilters,
    test: Callable[[StoredChunk, str], bool],
) -> list[str]:
    hits = index.keyword_search(token, filters, LOOK)
    if not hits:
        return []
    by_id = {c.chunk_id: c for c in chunks.get_chunks([h.chunk_id for h in hits])}
    return [h.chunk_id for h in hits if h.chunk_id in by_id and test(by_id[h.chunk_id], token)]
