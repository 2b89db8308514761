"""What a deployment is configured with: ``StackConfig``, read from CDK context (``cdk deploy -c key=value`` or
cdk.json)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from constructs import Construct


@dataclass
class StackConfig:
    name: str = "sabio"
    prefixes: list[str] = field(default_factory=list)  # S3 key prefixes that trigger indexing ([] = all)
    source_map: dict[str, str] = field(default_factory=dict)  # {"prefix/": "source id"}, inside the bucket
    opensearch: str = "serverless"  # or "managed"
    api_keys: dict[str, dict[str, Any]] = field(default_factory=dict)  # digests only: `sabio key` prints them
    # the Secrets Manager secret holding {"<key name>": "<key>"}: API Gateway's copy of each key, for its
    # usage plan (the template only references it); "" = "<name>/api-keys"
    api_key_secret: str = ""
    # API Gateway usage plan per key unless the key's entry says otherwise ("rate_per_second", "burst",
    # "quota_per_day"): throttling that holds across every warm Lambda
    throttle_rate_per_second: float = 10.0
    throttle_burst: int = 20
    quota_per_day: int | None = None
    indexer_batch_size: int = 10
    indexer_max_concurrency: int = 5
    indexer_memory_mb: int = 3008
    # the bucket's listing against the manifest every N hours, repairing lost events (0: off)
    reconcile_hours: int = 6
    # Git repositories and websites written into the bucket every ``sync_hours`` (docs/sync.md):
    # [{"kind": "git" | "web", "location": URL, "source_id": ..., "prefix": "<source_id>/", "branch": ...}]
    sync_sources: list[dict[str, Any]] = field(default_factory=list)
    sync_hours: int = 1

    def synced_prefixes(self) -> dict[str, str]:
        """Each scheduled source's prefix in the bucket -> its source id."""
        return {s.get("prefix") or f"{s['source_id']}/": s["source_id"] for s in self.sync_sources}

    # who may read what (docs/permissions.md): the identity provider ({"issuer", "audience", "groups_claim",
    # "user_claim", "jwks_url"}), and who reads documents that name no readers (deployment, per source)
    identity: dict[str, str] = field(default_factory=dict)
    default_readers: str = "none"
    source_readers: dict[str, str] = field(default_factory=dict)

    api_memory_mb: int = 1024
    # the streamed answer (docs/aws.md#streamed-answers): a function behind a Function URL in RESPONSE_STREAM
    # mode through the Lambda Web Adapter; its concurrency is reserved (a Function URL has no usage plan),
    # its timeout bounds one answer (a client that hangs up does not stop a Lambda: it runs to its end)
    stream: bool = True
    stream_concurrency: int = 10
    stream_timeout_s: int = 120
    stream_origins: list[str] = field(default_factory=list)  # CORS origins for browsers ([]: none)
    web_adapter_layer: str = ""  # "" = the public Lambda Web Adapter layer (LambdaAdapterLayerX86:26)
    # an ADOT Lambda layer for Python (its ARN): traces of every request to X-Ray through OpenTelemetry
    # (docs/observability.md); "" = no tracing layer
    adot_layer: str = ""
    # the second stage: a Bedrock rerank model id (amazon.rerank-v1:0, cohere.rerank-v3-5:0); "" = none
    rerank_model: str = ""

    @classmethod
    def from_context(cls, scope: Construct) -> StackConfig:
        node = scope.node

        def ctx(key: str, default: Any) -> Any:
            value = node.try_get_context(key)
            if isinstance(value, str) and isinstance(default, (dict, list)):
                return json.loads(value)
            return default if value is None else value

        return cls(
            name=ctx("name", "sabio"),
            prefixes=ctx("prefixes", []),
            source_map=ctx("source_map", {}),
            opensearch=ctx("opensearch", "serverless"),
            api_keys=ctx("api_keys", {}),
            indexer_batch_size=int(ctx("indexer_batch_size", 10)),
            indexer_max_concurrency=int(ctx("indexer_max_concurrency", 5)),
            reconcile_hours=int(ctx("reconcile_hours", 6)),
            sync_sources=ctx("sync_sources", []),
            sync_hours=int(ctx("sync_hours", 1)),
            api_key_secret=ctx("api_key_secret", ""),
            throttle_rate_per_second=float(ctx("throttle_rate_per_second", 10.0)),
            throttle_burst=int(ctx("throttle_burst", 20)),
            quota_per_day=None if ctx("quota_per_day", None) is None else int(ctx("quota_per_day", 0)),
            rerank_model=ctx("rerank_model", ""),
            identity=ctx("identity", {}),
            default_readers=str(ctx("default_readers", "none")),
            source_readers=ctx("source_readers", {}),
            stream=str(ctx("stream", True)).lower() not in ("false", "0", "no"),
            stream_concurrency=int(ctx("stream_concurrency", 10)),
            stream_timeout_s=int(ctx("stream_timeout_s", 120)),
            stream_origins=ctx("stream_origins", []),
            web_adapter_layer=ctx("web_adapter_layer", ""),
            adot_layer=ctx("adot_layer", ""),
        )
