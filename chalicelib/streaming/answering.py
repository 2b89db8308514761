"""A question answered as a stream of events (events.py): the same retrieval, answer, checks and query log as
POST /answer, with the sources sent as soon as retrieval is done and the words as they are written.

``answer_events`` is a generator. Its first event (``sources``) comes only after the request was read and
retrieved, so anything wrong with the request (a SabioError) is raised by the first ``next`` and a door can
still refuse it with its 4xx JSON. Closing the generator (a client that hung up) closes the LLM's stream.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator, Iterator

from chalicelib import tracing
from chalicelib.access.keys import KeyPolicy
from chalicelib.answer.streamed import Written, streamed_answer
from chalicelib.errors import SabioError, error_body
from chalicelib.models.api import AnswerResponse, RetrieveRequest
from chalicelib.retrieve.results import require_question
from chalicelib.streaming.events import Event, answered, sources
from chalicelib.usage.query_log import Followed, Logged, answer_attributes, asked_span

log = logging.getLogger("sabio.streaming")


def answer_events(
    usage: Logged,
    request: RetrieveRequest,
    access: KeyPolicy | None,
    followed: Followed | None = None,
    finish: Callable[[AnswerResponse], AnswerResponse] | None = None,
) -> Iterator[Event]:
    """sources, delta..., answer, end; or, once the sources are sent, error. ``followed``: what the query log
    keeps of a conversation's turn; ``finish``: the logged answer made the turn's (chalicelib/conversation)."""
    require_question(request)
    with asked_span("answer", request):
        started = time.perf_counter()
        retrieved = (followed or Followed()).reading(usage.retrieval.run(request, access))
        yield sources(retrieved)
        shown: list[str] = []
        try:
            with tracing.span("answer") as span:
                response = yield from _deltas(streamed_answer(usage.answerer, request, retrieved), shown)
                answer_attributes(span, response)
            response = usage.answered(request, access, retrieved, response, started, followed or Followed())
            if finish is not None:
                response = finish(response)
        except SabioError as exc:
            yield Event("error", exc.to_dict())
            return
        except Exception as exc:  # the stream has begun: its end says what went wrong, never a half answer
            log.exception("a streamed answer failed")
            yield Event("error", error_body(500, f"the answer failed: {type(exc).__name__}"))
            return
        yield answered(response, "".join(shown))
        yield Event("end", {"query_id": response.query_id})


def _deltas(written: Written, shown: list[str]) -> Generator[Event, None, AnswerResponse]:
    """Each piece of the answer's text as a ``delta`` event (kept in ``shown``); the response at the end."""
    try:
        while True:
            try:
                piece = next(written)
            except StopIteration as done:
                return done.value
            shown.append(piece)
            yield Event("delta", {"text": piece})
    finally:
        written.close()  # a reader that left: the LLM's stream is closed now, not when collected
