"""An answer as it is written: the LLM's words while it writes them, then the same checked answer the
non-streamed path returns (generated.py's checks, fallbacks and response). An extractive answer is written at
once: its text is one piece.

``streamed_answer`` is a generator: it yields the answer's text piece by piece and returns the response.
Closing it early (a client that hung up) closes the LLM's stream, so the model stops writing.
"""

from __future__ import annotations

import time
from collections.abc import Generator

from chalicelib.answer.answer_text import AnswerText
from chalicelib.answer.generated import LLMAnswerer, answer_messages, generated_response, verified
from chalicelib.llms.client import ChatLLM, LLMError, LLMReply
from chalicelib.llms.json_repair import JSONReplyError
from chalicelib.models.api import AnswerResponse, RetrieveRequest
from chalicelib.retrieve.results import Retrieved, RetrievedAnswerer

Written = Generator[str, None, AnswerResponse]


def streamed_answer(answerer: RetrievedAnswerer, request: RetrieveRequest, retrieved: Retrieved) -> Written:
    """The answer's text as it is written, then its response (the one ``answer_retrieved`` gives)."""
    if isinstance(answerer, LLMAnswerer):
        return (yield from _generated_stream(answerer, request, retrieved))
    response = answerer.answer_retrieved(request, retrieved)
    if response.answer:
        yield response.answer
    return response


def _generated_stream(answerer: LLMAnswerer, request: RetrieveRequest, retrieved: Retrieved) -> Written:
    """The chain of models, each streamed until one's reply passes the checks; a model tried after another
    already wrote words is asked without streaming (its words would run on from the first one's), and the
    ``answer`` that follows replaces what was shown."""
    chunks = retrieved.chunks[: answerer.context_chunks]
    attempts: list[str] = []
    shown = Shown()
    if chunks:
        messages = answer_messages(request, chunks)
        for label, llm in answerer.chain:
            started = time.perf_counter()
            try:
                if shown.words:
                    reply = llm.complete(messages, temperature=0.2, json_mode=True)
                else:
                    reply = yield from shown.written(llm, messages)
                checked = verified(request, retrieved, reply, chunks, answerer.languages)
            except (LLMError, JSONReplyError, ValueError) as exc:
                attempts.append(f"{label} ({llm.model}): {exc}"[:300])
                continue
            return generated_response(request, retrieved, label, reply, checked, attempts, started)
    fallback = answerer.fallback.answer_retrieved(request, retrieved)
    if not shown.words and fallback.answer:
        yield fallback.answer
    return fallback.model_copy(update={"attempts": attempts})


class Shown:
    """Whether any words of an answer have been shown yet."""

    def __init__(self) -> None:
        self.words = False

    def written(self, llm: ChatLLM, messages: list[dict[str, str]]) -> Generator[str, None, LLMReply]:
        """One model's reply streamed: the answer's words as they come; the whole reply at the end."""
        reading = AnswerText()
        stream = llm.stream(messages, temperature=0.2, json_mode=True)
        for piece in stream:
            words = reading.feed(piece)
            if words:
                self.words = True
                yield words
        assert stream.reply is not None
        return stream.reply
