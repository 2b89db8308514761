"""Traces on AWS: an ADOT Lambda layer (CDK context ``adot_layer``: its ARN) on the API and the stream function.
Sabio's spans go through the OpenTelemetry API (chalicelib/tracing): the API function runs under the layer's
``otel-instrument`` wrapper, whose tracer provider Sabio uses (SABIO_TRACING=external); the stream function's
wrapper is the Web Adapter's, so it sends its spans over OTLP/HTTP to the layer's collector on localhost.
The collector exports to X-Ray, which the roles may write to. No X-Ray SDK, no Powertools Tracer."""

from __future__ import annotations

from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.config import StackConfig
from infra.functions import allow

COLLECTOR = "http://localhost:4318"  # the ADOT layer's collector extension (OTLP/HTTP)


def adot_layers(scope: Construct, cfg: StackConfig) -> list[lambda_.ILayerVersion]:
    if not cfg.adot_layer:
        return []
    return [lambda_.LayerVersion.from_layer_version_arn(scope, "AdotLayer", cfg.adot_layer)]


def api_tracing(cfg: StackConfig) -> dict[str, str]:
    """The API function's environment for the layer: its wrapper installs the provider Sabio's spans use."""
    if not cfg.adot_layer:
        return {}
    return {"AWS_LAMBDA_EXEC_WRAPPER": "/opt/otel-instrument", "SABIO_TRACING": "external"}


def stream_tracing(cfg: StackConfig) -> dict[str, str]:
    """The stream function's: its wrapper is the Web Adapter's, so Sabio exports to the layer's collector."""
    if not cfg.adot_layer:
        return {}
    return {"SABIO_TRACING": "otlp", "SABIO_OTLP_ENDPOINT": COLLECTOR}


def grant_traces(role: iam.Role, cfg: StackConfig) -> None:
    """The collector writes the spans to X-Ray (these actions have no resource ARNs)."""
    if cfg.adot_layer:
        allow(role, "WriteTraces", ["xray:PutTraceSegments", "xray:PutTelemetryRecords"], ["*"])
