"""The traces' settings: whether a request leaves a trace, where its spans go, and whether they hold text."""

from __future__ import annotations

from typing import Literal

from chalicelib.config.section import ConfigSection, setting


class TracingConfig(ConfigSection):
    """Traces: one OpenTelemetry span per stage of a request (docs/observability.md); off by default."""

    mode: Literal["auto", "off", "console", "otlp", "external"] = setting(
        "tracing",
        "auto",
        "auto (otlp when SABIO_OTLP_ENDPOINT is set, else off), off, console (spans printed on stderr), otlp "
        "(OTLP/HTTP to SABIO_OTLP_ENDPOINT) or external (the tracer provider an OpenTelemetry distribution "
        "installed, e.g. the ADOT Lambda layer); console and otlp need pip install 'sabio[tracing]'",
    )
    otlp_endpoint: str | None = setting(
        "otlp_endpoint",
        None,
        "an OTLP/HTTP collector, e.g. http://127.0.0.1:4318 (spans go to its /v1/traces)",
    )
    capture_text: bool = setting(
        "trace_text",
        False,
        "spans hold the question, the passages and the LLM's messages (off: ids, scores and counts only)",
    )
    service_name: str = setting("trace_service", "sabio", "the traces' service.name")

    def effective_mode(self) -> str:
        """The mode in force: auto resolved."""
        if self.mode == "auto":
            return "otlp" if self.otlp_endpoint else "off"
        return self.mode
