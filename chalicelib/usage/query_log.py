"""Questions as the API serves them, logged: each response gets a ``query_id`` that feedback refers to.

The log keeps what a docs owner needs later (language, mode, filters, the results and their scores, whether
the documents answer it, latency) and never an API key: the asking key is kept by its configured name. A
log that fails never fails the question: the response says so in its notes and has no ``query_id``.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from chalicelib import tracing
from chalicelib.config.query_log import LogConfig
from chalicelib.enrichment.embedding_text import build_context
from chalicelib.errors import Forbidden, InvalidInput, NotFound
from chalicelib.models.api import (
    AnswerResponse,
    ContextResponse,
    FeedbackRequest,
    FeedbackResponse,
    RetrieveRequest,
    RetrieveResponse,
)
from chalicelib.models.records import FeedbackRecord, QueryRecord
from chalicelib.protocols import QueryLog
from chalicelib.question.query import question_hash
from chalicelib.quotes import encode_vectors
from chalicelib.retrieve.results import Retrieval, Retrieved, RetrievedAnswerer, require_question
from chalicelib.text import fold
from chalicelib.tracing import Span

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy
    from chalicelib.telemetry import Telemetry

log = logging.getLogger("sabio.usage")
R = TypeVar("R", RetrieveResponse, ContextResponse, AnswerResponse)
DAY_S = 86_400


@dataclass(frozen=True)
class Followed:
    """A question asked in a conversation: as the user typed it (when the thread rewrote it into the request's
    query) and the conversation's id; the log keeps both forms."""

    asked_as: str | None = None
    conversation_id: str | None = None
    # the question an extractive answer reads its passages by, when not the one searched: a follow-up as typed,
    # its thread merged in offline (the merge finds where to look; the user's own words say what is asked)
    read_as: str | None = None

    def reading(self, retrieved: Retrieved) -> Retrieved:
        return replace(retrieved, read_as=self.read_as) if self.read_as else retrieved


@dataclass(frozen=True)
class Asked:
    """One question as an endpoint served it: what its log record is made of."""

    endpoint: str
    request: RetrieveRequest
    access: KeyPolicy | None
    retrieved: Retrieved
    started: float  # time.perf_counter() when the endpoint began: the record's latency
    text_hash: str  # the folded question's hash (Query.text_hash)
    followed: Followed = Followed()


class Logged:
    """retrieve / answer / context as the API serves them, each question logged (``query_log`` None: off)."""

    def __init__(
        self,
        retrieval: Retrieval,
        answerer: RetrievedAnswerer,
        judge: RetrievedAnswerer,
        query_log: QueryLog | None,
        config: LogConfig,
        *,
        space: str = "",
        on_feedback: Callable[[], None] = lambda: None,
        clock: Callable[[], float] = time.time,
        telemetry: Telemetry | None = None,
    ) -> None:
        self.telemetry = telemetry
        self.retrieval = retrieval
        self.answerer = answerer
        self.judge = judge  # the extractive answerer: would the documents answer it (cheap: stored vectors)
        self.query_log = query_log
        self.config = config
        self.space = space  # the embedding model of the logged vectors
        self.on_feedback = on_feedback
        self.clock = clock

    def retrieve(
        self, request: RetrieveRequest, access: KeyPolicy | None, followed: Followed = Followed()
    ) -> RetrieveResponse:
        with asked_span("retrieve", request):
            started = time.perf_counter()
            retrieved = self.retrieval.run(request, access)
            return self._logged("retrieve", request, access, retrieved, retrieved.response, started, followed)

    def context(
        self, request: RetrieveRequest, access: KeyPolicy | None, followed: Followed = Followed()
    ) -> ContextResponse:
        with asked_span("context", request):
            started = time.perf_counter()
            retrieved = self.retrieval.run(request, access)
            context = build_context(retrieved.chunks)
            response = ContextResponse(**retrieved.response.model_dump(), context=context)
            return self._logged("context", request, access, retrieved, response, started, followed)

    def answer(
        self, request: RetrieveRequest, access: KeyPolicy | None, followed: Followed = Followed()
    ) -> AnswerResponse:
        require_question(request)
        with asked_span("answer", request):
            started = time.perf_counter()
            retrieved = followed.reading(self.retrieval.run(request, access))
            with tracing.span("answer") as span:
                response = self.answerer.answer_retrieved(request, retrieved)
                answer_attributes(span, response)
            return self._logged("answer", request, access, retrieved, response, started, followed)

    def answered(
        self,
        request: RetrieveRequest,
        access: KeyPolicy | None,
        retrieved: Retrieved,
        response: AnswerResponse,
        started: float,
        followed: Followed = Followed(),
    ) -> AnswerResponse:
        """An answer made elsewhere (streamed: chalicelib/streaming) logged as ``answer`` logs one."""
        return self._logged("answer", request, access, retrieved, response, started, followed)

    def feedback(self, request: FeedbackRequest, access: KeyPolicy | None) -> FeedbackResponse:
        """Feedback on a logged question, from the key that asked it or an unrestricted one."""
        if self.query_log is None:
            raise NotFound("the query log is off on this server (SABIO_QUERY_LOG=0): no feedback to record")
        asked = self.query_log.get_query(request.query_id)
        if asked is None:
            raise NotFound(f"no query {request.query_id!r} in the log (unknown, or older than its retention)")
        if access is not None and not access.unrestricted and access.name != asked.key:
            raise Forbidden("feedback on a question is for the key that asked it, or an unrestricted key")
        shown = set(asked.chunk_ids)
        unknown = [c for c in request.chunk_ids or () if c not in shown]
        if unknown:
            raise InvalidInput(
                f"chunk {unknown[0]!r} was not among this question's results", field="chunk_ids"
            )
        chunk_ids = list(request.chunk_ids or asked.cited or asked.chunk_ids[:1])
        now = self.clock()
        self.query_log.add_feedback(
            FeedbackRecord(
                query_id=asked.query_id,
                created_at=now,
                expires_at=int(now + self.config.retention_days * DAY_S),
                key=access.name if access is not None else "",
                helpful=request.helpful,
                chunk_ids=chunk_ids,
                comment=request.comment,
            )
        )
        self.on_feedback()
        return FeedbackResponse(query_id=asked.query_id, recorded=True, chunk_ids=chunk_ids)

    def _logged(
        self,
        endpoint: str,
        request: RetrieveRequest,
        access: KeyPolicy | None,
        retrieved: Retrieved,
        response: R,
        started: float,
        followed: Followed,
    ) -> R:
        text_hash = (
            retrieved.query.text_hash
            if retrieved.query is not None
            else question_hash(fold(request.query or ""))
        )
        served = self._log(
            Asked(endpoint, request, access, retrieved, started, text_hash, followed), response
        )
        trace = tracing.trace_id()
        if trace:  # the trace of this request, for an operator to look up
            served = served.model_copy(update={"applied": {**served.applied, "trace_id": trace}})
        if self.telemetry is not None:
            key = access.name if access is not None else ""
            self.telemetry.question(endpoint, key, _asked_lang(request, retrieved), served, text_hash)
        return served

    def _log(self, asked: Asked, response: R) -> R:
        if self.query_log is None or not asked.request.query or asked.request.intent == "bootstrap":
            return response
        try:
            judged = response if isinstance(response, AnswerResponse) else None
            judged = judged or self.judge.answer_retrieved(asked.request, asked.retrieved)
            record = self._record(asked, judged)
            self.query_log.log_query(record)
        except Exception as exc:  # the log is optional: the question is answered all the same
            log.exception("query log failed")
            notes = [*response.notes, f"query not logged: {type(exc).__name__}"]
            return response.model_copy(update={"notes": notes})
        return response.model_copy(update={"query_id": record.query_id})

    def _record(self, asked: Asked, judged: AnswerResponse) -> QueryRecord:
        request, access, retrieved = asked.request, asked.access, asked.retrieved
        items = retrieved.response.items
        now = self.clock()
        vector = retrieved.query_vector
        return QueryRecord(
            query_id=uuid.uuid4().hex,
            created_at=now,
            expires_at=int(now + self.config.retention_days * DAY_S),
            endpoint=asked.endpoint,
            key=access.name if access is not None else "",
            unrestricted=access is None or access.unrestricted,
            text=request.query if self.config.keep_text else None,
            asked_as=asked.followed.asked_as if self.config.keep_text else None,
            conversation_id=asked.followed.conversation_id,
            text_hash=asked.text_hash,
            lang=_asked_lang(request, retrieved),
            mode=retrieved.response.mode,
            filters=request.filters.model_dump(exclude_none=True),
            chunk_ids=[i.chunk_id for i in items],
            scores=[i.score for i in items],
            chunk_langs=[i.lang for i in items],
            cited=list(dict.fromkeys(c.chunk_id for c in judged.citations)),
            answered=judged.answered,
            evidence=judged.evidence,
            product=retrieved.response.applied.get("product_boost") or (items[0].product if items else None),
            latency_ms=round((time.perf_counter() - asked.started) * 1000, 2),
            vector=encode_vectors(np.asarray(vector, dtype=np.float32)[None, :])
            if vector is not None
            else None,
            space=self.space or None,
        )


@contextmanager
def asked_span(endpoint: str, request: RetrieveRequest) -> Iterator[Span]:
    """The span of one question as an endpoint serves it (the trace's root); its text only if SABIO_TRACE_TEXT."""
    attributes = {"sabio.endpoint": endpoint, "sabio.top_k": request.top_k, "sabio.lang": request.lang}
    with tracing.span(f"sabio.{endpoint}", tracing.CHAIN, attributes) as span:
        span.text("input.value", request.query)
        yield span


def answer_attributes(span: Span, response: AnswerResponse) -> None:
    """What an answer span says of its answer: who answered, whether, how many citations; its text if asked."""
    span.update(
        {
            "sabio.answered_by": response.answered_by,
            "sabio.answered": response.answered,
            "sabio.citations": len(response.citations),
            "sabio.verified": response.verified,
        }
    )
    span.text("output.value", response.answer)


def _asked_lang(request: RetrieveRequest, retrieved: Retrieved) -> str:
    """The question's language: the one the request named, else the one detected."""
    return request.lang if request.lang not in ("auto", "all") else retrieved.query_lang or ""
