"""What the retrieval and answer pipelines share: a search plan, stage timings, a retrieval's result, and
the two interfaces the use cases build on (a retrieval; an answer from what was retrieved)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, Protocol

from chalicelib.errors import InvalidInput
from chalicelib.models.api import AnswerResponse, RetrieveRequest, RetrieveResponse
from chalicelib.models.records import SearchFilters, StoredChunk
from chalicelib.question.query import Query, Translation

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy


class Timer:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._start = time.perf_counter()

    def stage(self, name: str, started: float) -> None:
        self.timings[name] = round(self.timings.get(name, 0) + (time.perf_counter() - started) * 1000, 2)

    def total(self) -> dict[str, float]:
        return {**self.timings, "total": round((time.perf_counter() - self._start) * 1000, 2)}


@dataclass(frozen=True)
class Retrieved:
    """What answer needs beyond the response: the chunks themselves, the query vector, the question as it
    was read (with its translations) and the filters the search ran under (what the caller may read)."""

    response: RetrieveResponse
    chunks: list[StoredChunk]
    query_vector: object
    query: Query | None = None  # None: a bootstrap map
    filters: SearchFilters | None = None
    unmentioned: tuple[str, ...] = ()  # names and identifiers of the question no readable document holds
    # the question's language had (almost) no documents: every language was searched (answers across
    # languages are then the rule, not a second choice)
    broadened: bool = False
    # the question an extractive answer reads the passages by, when not this one (usage.Followed.read_as)
    read_as: str | None = None

    @property
    def query_lang(self) -> str | None:
        """The question's language as it was read (None: unclear, or a map)."""
        return self.query.lang if self.query is not None else None

    @property
    def translations(self) -> tuple[Translation, ...]:
        """The question in the documents' languages, as searched."""
        return self.query.translations if self.query is not None else ()


@dataclass(frozen=True)
class Plan:
    """How one request is searched; ``notes`` and ``applied`` are echoed in the response."""

    mode: Literal["documental", "codigo"]
    mode_reason: str
    namespaces: tuple[str, ...] | None
    query_lang: str | None
    filters: SearchFilters
    notes: tuple[str, ...] = ()
    applied: tuple[tuple[str, str], ...] = ()
    cross_lingual: bool = False  # lang=auto: other languages are searched by meaning too
    # lang=auto or all: code (in no human language) is searched in every namespace
    code_anywhere: bool = False
    # the question's language has no documents at all (the search was broadened): other languages' words
    # may match its words (product names, API terms, numbers), so BM25 is not kept to the question's language
    words_anywhere: bool = False
    # the question holds an identifier (an error code, an SKU, a function name), written alike in every
    # language: BM25 matches in every namespace the caller may read (TRM-5002's row in the English error
    # table for a Spanish question)
    identifiers_anywhere: bool = False
    # the question's language has no documents at all under the caller's filters: names may be written
    # otherwise in the documents' language (Franks, francos), so none is judged unmentioned
    lacks_language: bool = False

    def noted(self, note: str) -> Plan:
        return replace(self, notes=(*self.notes, note))

    def applying(self, name: str, value: str) -> Plan:
        """The plan with ``name`` applied (echoed in the response's ``applied``), replacing an earlier value."""
        applied = dict(self.applied)
        applied[name] = value
        return replace(self, applied=tuple(applied.items()))


class Retrieval(Protocol):
    """A retrieval use case: the request, and the reach of the caller's API key (None: every source)."""

    def run(self, request: RetrieveRequest, access: KeyPolicy | None) -> Retrieved: ...


class RetrievedAnswerer(Protocol):
    """Answers a question from what a retrieval already found (the LLM answerer's last fallback)."""

    def answer_retrieved(self, request: RetrieveRequest, retrieved: Retrieved) -> AnswerResponse: ...


def require_question(request: RetrieveRequest) -> None:
    """Answers need a question (a bootstrap map does not)."""
    if not request.query:
        raise InvalidInput("query is required to answer", field="query")


def require_served(lang: str, served: tuple[str, ...]) -> None:
    """A request may name one language only if this server uses it (SABIO_LANGUAGES)."""
    if lang not in ("auto", "all") and lang not in served:
        raise InvalidInput(
            f"lang {lang!r} is not a language of this server; use auto, all or one of {', '.join(served)}",
            field="lang",
        )
