"""An LLM call's span, with OpenInference's names and the GenAI conventions' beside them: the model, the
invocation's parameters, the tokens spent; the messages only when SABIO_TRACE_TEXT is on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from chalicelib import tracing


class Reply(Protocol):
    """What a span reads of an LLM's reply (chalicelib.llms.client.LLMReply)."""

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int


@contextmanager
def llm_span(
    model: str,
    messages: list[dict[str, str]],
    temperature: float,
    json_mode: bool,
    max_tokens: int | None,
    *,
    streamed: bool = False,
) -> Iterator[tracing.Span]:
    """A span around one chat completion (its retries included)."""
    if not tracing.on():
        yield tracing.Span(None)
        return
    parameters = {"temperature": temperature, "json_mode": json_mode, "max_tokens": max_tokens}
    attributes: dict[str, Any] = {
        "llm.model_name": model,
        "llm.system": "openai",
        "llm.invocation_parameters": json.dumps(parameters),
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "sabio.streamed": streamed,
    }
    with tracing.span("llm.chat", tracing.LLM, attributes) as span:
        for n, message in enumerate(messages):
            span.text(f"llm.input_messages.{n}.message.role", message.get("role"))
            span.text(f"llm.input_messages.{n}.message.content", message.get("content"))
        yield span


def reply_attributes(span: tracing.Span, reply: Reply) -> None:
    """What the reply cost, and its text when SABIO_TRACE_TEXT is on."""
    if not span.recording:
        return
    span.update(
        {
            "llm.token_count.prompt": reply.prompt_tokens,
            "llm.token_count.completion": reply.completion_tokens,
            "llm.token_count.total": reply.prompt_tokens + reply.completion_tokens,
            "gen_ai.response.model": reply.model,
            "gen_ai.usage.input_tokens": reply.prompt_tokens,
            "gen_ai.usage.output_tokens": reply.completion_tokens,
            "sabio.attempts": reply.attempts,
        }
    )
    span.text("llm.output_messages.0.message.role", "assistant")
    span.text("llm.output_messages.0.message.content", reply.text)
