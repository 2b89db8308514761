"""Where spans go, from the settings (SABIO_TRACING): printed on stderr, sent over OTLP/HTTP, or given to the
tracer provider an OpenTelemetry distribution installed (the ADOT Lambda layer). The SDK is imported here
only, and only when tracing is on; without the ``tracing`` extra installed it stays off and says so."""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

from chalicelib import tracing
from chalicelib.config.tracing import TracingConfig

log = logging.getLogger("sabio.tracing")
_lock = threading.Lock()
_configured: list[TracingConfig] = []  # the configuration in force, once per process


def configure(config: TracingConfig) -> str:
    """Tracing as ``config`` says, once per process (a second call with the same settings changes nothing);
    the mode in force ("off" when the SDK is missing)."""
    mode = config.effective_mode()
    with _lock:
        if _configured and _configured[0] == config:
            return mode if tracing.on() else "off"
        _configured[:] = [config]
        if mode == "off":
            return mode
        try:
            provider = _provider(config, mode)
        except ImportError as exc:
            log.warning(
                "SABIO_TRACING=%s but %s is not installed (pip install 'sabio[tracing]'): no traces",
                mode,
                exc.name,
            )
            return "off"
        tracing.use(provider, capture_text=config.capture_text)
        return mode


def traces_url(endpoint: str) -> str:
    """An OTLP/HTTP collector's traces URL: ``http://host:4318`` -> ``http://host:4318/v1/traces``."""
    endpoint = endpoint.rstrip("/")
    return endpoint if endpoint.endswith("/v1/traces") else f"{endpoint}/v1/traces"


def _provider(config: TracingConfig, mode: str) -> Any:
    from opentelemetry import trace

    if mode == "external":  # the distribution's own provider (its exporter, its sampling)
        return trace.get_tracer_provider()
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    provider = TracerProvider(resource=Resource.create({"service.name": config.service_name}))
    if mode == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        endpoint = (
            traces_url(config.otlp_endpoint) if config.otlp_endpoint else None
        )  # None: OTEL_* variables
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    else:
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
    return provider


def flush(timeout_ms: int = 5000) -> None:
    """Export what is still queued (a command's spans before it exits)."""
    force_flush = getattr(tracing._state.provider, "force_flush", None)
    if force_flush is not None:
        force_flush(timeout_ms)
