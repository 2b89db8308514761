"""Lambda-native operations with AWS Lambda Powertools: one structured JSON log line per question or indexing
event, and CloudWatch metrics in the Embedded Metric Format (EMF), which CloudWatch Logs turns into metrics
without an API call.

On by default inside Lambda (``AWS_LAMBDA_FUNCTION_NAME`` is set); elsewhere (``sabio serve``, the CLI,
tests) only with ``SABIO_TELEMETRY=on``. A question's log line names the key by its configured name, never
the secret, and the question by a hash of its folded text, never the text; with tracing on, its trace id.
"""

from __future__ import annotations

import contextvars
import logging
import os
import sys
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Protocol

from chalicelib.tracing import trace_id

if TYPE_CHECKING:
    from chalicelib.models.api import AnswerResponse, ContextResponse, RetrieveResponse

NAMESPACE = "Sabio"
# the request being served (API Gateway's request id in Lambda); set by app.py's middleware
request_id: contextvars.ContextVar[str] = contextvars.ContextVar("sabio_request_id", default="")


def in_lambda() -> bool:
    return bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))


class IndexOutcome(Protocol):
    """What an indexing event's line reports (``pipelines.ingest.IndexReport`` is one): telemetry sits below
    the pipelines and reads their reports through this."""

    added: int
    updated: int
    unchanged: int
    chunks_written: int
    failed: list[tuple[str, str]]
    skipped: list[tuple[str, str]]
    held: list[str]  # deletions the mass-delete guard holds
    seconds: float


@dataclass
class Telemetry:
    """Logs and metrics of one service (``api`` or ``indexer``); every method is a no-op when disabled.

    Log lines go through Powertools' JSON formatter (``level``, ``message``, ``timestamp``, ``service``,
    ``xray_trace_id`` in Lambda, and the fields below) to ``stream`` (stdout: CloudWatch Logs); EMF blobs
    through Powertools' ``Metrics``, printed on stdout."""

    service: str
    on: bool = False
    stream: IO[str] | None = None
    _logger: Any = None
    _metrics: Any = None

    def __post_init__(self) -> None:
        if not self.on:
            return
        from aws_lambda_powertools import Metrics
        from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

        handler = logging.StreamHandler(self.stream or sys.stdout)
        handler.setFormatter(LambdaPowertoolsFormatter(service=f"sabio-{self.service}"))
        logger = logging.getLogger(f"sabio.telemetry.{self.service}")
        logger.handlers[:] = [handler]  # one per service: the latest Telemetry's stream
        logger.setLevel(logging.INFO)
        logger.propagate = False
        self._logger = logger
        self._metrics = Metrics(namespace=NAMESPACE, service=f"sabio-{self.service}")

    def question(
        self,
        endpoint: str,
        key: str,
        lang: str,
        response: RetrieveResponse | ContextResponse | AnswerResponse,
        query_hash: str,
    ) -> None:
        """The line a question leaves, and its metrics: latency, zero results, LLM fallbacks."""
        if not self.on:
            return
        timings = dict(response.timings_ms)
        answered_by = getattr(response, "answered_by", None)
        fallbacks: list[str] = []  # from the response's typed records, never from the words of its notes
        if response.hyde is not None and not response.hyde.used and response.hyde.reason:
            fallbacks.append(f"hyde: {response.hyde.reason}")
        if response.rewrite is not None and not response.rewrite.used and response.rewrite.reason:
            fallbacks.append(f"rewrite: {response.rewrite.reason}")
        if response.rerank is not None and not response.rerank.used and response.rerank.reason:
            fallbacks.append(f"rerank: {response.rerank.reason}")
        if answered_by == "llm-fallback":
            fallbacks.append("answer: the LLM failed, answered extractively")
        self._logger.info(
            endpoint,
            extra={
                "request_id": request_id.get(),
                "trace_id": trace_id() or None,  # the request's trace (SABIO_TRACING), to look it up
                "endpoint": endpoint,
                "key": key,
                "query_hash": query_hash[:16],
                "lang": lang,  # the question's language (detected when the request said auto)
                "namespaces": response.namespaces,
                "mode": response.mode,
                "intent": response.intent,
                "results": len(response.items),
                "answered_by": answered_by,
                "timings_ms": timings,
                "fallbacks": fallbacks,
            },
        )
        metrics = self._metrics
        metrics.add_dimension(name="endpoint", value=endpoint)
        metrics.add_metric(name="Latency", unit="Milliseconds", value=float(timings.get("total", 0.0)))
        metrics.add_metric(name="ZeroResults", unit="Count", value=0 if response.items else 1)
        metrics.add_metric(name="LLMFallbacks", unit="Count", value=1 if answered_by == "llm-fallback" else 0)
        if response.rerank is not None:
            metrics.add_metric(name="RerankFailed", unit="Count", value=0 if response.rerank.used else 1)
            if response.rerank.ms is not None:
                metrics.add_metric(name="RerankLatency", unit="Milliseconds", value=response.rerank.ms)
        metrics.flush_metrics()

    def indexed(self, source_id: str, key: str, report: IndexOutcome) -> None:
        """One indexing event's line and metrics: chunks indexed, documents failed, deletions held."""
        if not self.on:
            return
        self._logger.info(
            "indexed",
            extra={
                "request_id": request_id.get(),
                "source_id": source_id,
                "key": key,
                "added": report.added,
                "updated": report.updated,
                "unchanged": report.unchanged,
                "chunks_written": report.chunks_written,
                "failed": [{"key": k, "reason": r} for k, r in report.failed],
                "skipped": [{"key": k, "reason": r} for k, r in report.skipped],
                "deletions_held": report.held,
                "seconds": round(report.seconds, 3),
            },
        )
        metrics = self._metrics
        metrics.add_metric(name="ChunksIndexed", unit="Count", value=report.chunks_written)
        metrics.add_metric(name="DocumentsFailed", unit="Count", value=len(report.failed))
        metrics.add_metric(name="DeletionsHeld", unit="Count", value=len(report.held))
        metrics.flush_metrics()

    def synced(self, source_id: str, counts: dict[str, int]) -> None:
        """A scheduled sync's line and metrics: objects written, deleted, held, failed."""
        if not self.on:
            return
        self._logger.info("synced", extra={"source_id": source_id, **counts})
        metrics = self._metrics
        for kind, n in counts.items():
            metrics.add_metric(name=f"Sync{kind.title()}", unit="Count", value=n)
        metrics.flush_metrics()

    def reconciled(self, bucket: str, drift: dict[str, list[str]]) -> None:
        """A reconciliation's line and metrics: what it found missing, stale, orphaned, and held."""
        if not self.on:
            return
        self._logger.info("reconciled", extra={"bucket": bucket, **{k: v[:50] for k, v in drift.items()}})
        metrics = self._metrics
        for kind, keys in drift.items():
            metrics.add_metric(name=f"Reconcile{kind.title()}", unit="Count", value=len(keys))
        metrics.flush_metrics()

    def failed_message(self, message_id: str, reason: str, *, poison: bool) -> None:
        if not self.on:
            return
        self._logger.error(
            "message failed",
            extra={
                "request_id": request_id.get(),
                "message_id": message_id,
                "reason": reason,
                "poison": poison,
            },
        )
