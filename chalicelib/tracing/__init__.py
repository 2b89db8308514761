"""A trace of every request: one span per stage (plan, embed, dense, keyword, translate, fuse, rerank, answer,
LLM calls, quote verification, store calls), through the OpenTelemetry API with OpenInference's attribute
names (``openinference.span.kind``, ``retrieval.documents.N.document.id``, ``llm.token_count.prompt``).

While tracing is off (the default) nothing of OpenTelemetry is imported and ``span`` hands out one shared
object that does nothing: importing the API alone takes ~60 ms, which the API Lambda's cold start would pay.
``use`` (called by chalicelib/tracing/setup.py from the settings, or by a test) turns it on with a tracer
provider. Text (the question, passages, the LLM's messages) is kept only when ``capture_text`` is on.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

KIND = "openinference.span.kind"
CHAIN, RETRIEVER, EMBEDDING, RERANKER, LLM, TOOL, GUARDRAIL = (
    "CHAIN",
    "RETRIEVER",
    "EMBEDDING",
    "RERANKER",
    "LLM",
    "TOOL",
    "GUARDRAIL",
)
T = TypeVar("T")


class _State:
    tracer: Any = None  # an OpenTelemetry tracer while tracing is on
    provider: Any = None
    capture_text: bool = False


_state = _State()


class Span:
    """One stage's span: attributes by name (None skipped, sequences kept as lists of text or numbers)."""

    __slots__ = ("_span",)

    def __init__(self, span: Any) -> None:
        self._span = span

    @property
    def recording(self) -> bool:
        return self._span is not None

    def update(self, attributes: dict[str, Any]) -> None:
        for key, value in attributes.items():
            self.set(key, value)

    def set(self, key: str, value: Any) -> None:
        if self._span is None or value is None:
            return
        if isinstance(value, (list, tuple)):
            value = [v if isinstance(v, (int, float, str, bool)) else str(v) for v in value]
        elif isinstance(value, dict):
            value = json.dumps(value, ensure_ascii=False, default=str)
        elif not isinstance(value, (int, float, str, bool)):
            value = str(value)
        self._span.set_attribute(key, value)

    def text(self, key: str, value: str | None) -> None:
        """A text attribute (the question, a passage, a message): kept only when SABIO_TRACE_TEXT is on."""
        if _state.capture_text:
            self.set(key, value)

    def documents(
        self,
        prefix: str,
        hits: Sequence[tuple[str, float]],
        contents: Sequence[str] = (),
        limit: int = 20,
    ) -> None:
        """Ranked documents as OpenInference names them: ``<prefix>.N.document.id`` and ``.score``, and
        ``.content`` (the passage) when SABIO_TRACE_TEXT is on."""
        if self._span is None:
            return
        self.set(f"{prefix}.count", len(hits))
        for n, (doc_id, score) in enumerate(hits[:limit]):
            self.set(f"{prefix}.{n}.document.id", doc_id)
            self.set(f"{prefix}.{n}.document.score", float(score))
            if n < len(contents):
                self.text(f"{prefix}.{n}.document.content", contents[n])


_OFF = Span(None)


def on() -> bool:
    """Whether spans are being recorded."""
    return _state.tracer is not None


def capturing_text() -> bool:
    return _state.capture_text


@contextmanager
def span(name: str, kind: str = CHAIN, attributes: dict[str, Any] | None = None) -> Iterator[Span]:
    """A span named ``name`` around the block, child of the current one; a no-op while tracing is off."""
    tracer = _state.tracer
    if tracer is None:
        yield _OFF
        return
    with tracer.start_as_current_span(name, attributes={KIND: kind}) as otel_span:
        current = Span(otel_span)
        current.update(attributes or {})
        yield current


def trace_id() -> str:
    """The current trace's id (32 hex digits), or "" when no span is recording."""
    if _state.tracer is None:
        return ""
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else ""


def in_this_context(function: Callable[..., T]) -> Callable[..., T]:
    """``function`` run in the caller's context (its current span, its request id), e.g. in a thread pool."""
    context = contextvars.copy_context()
    return lambda *args, **kwargs: context.run(function, *args, **kwargs)


def use(provider: Any | None, *, capture_text: bool = False) -> None:
    """Spans go to ``provider`` (an OpenTelemetry TracerProvider) from now on; None turns tracing off."""
    if provider is None:
        _state.tracer = _state.provider = None
        _state.capture_text = False
        return
    _state.provider = provider
    _state.tracer = provider.get_tracer("sabio")
    _state.capture_text = capture_text
