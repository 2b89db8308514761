"""Sabio on AWS: S3 -> SQS (+DLQ) -> indexer (container Lambda) -> DynamoDB + OpenSearch; the Chalice API.

Configuration comes from CDK context (``cdk deploy -c key=value`` or cdk.json): see ``StackConfig``.
Every function gets its own role with exact actions on exact resources (no wildcard actions on data).
Each part is built by its own module, all in this stack's scope so the resources keep their logical ids:
storage (bucket, queues, table), search, indexer, schedules (reconciler, syncer), api (and the stream function
beside it, and the traces' layer), alarms.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput, Stack
from constructs import Construct

from infra import environment
from infra.alarms import dead_letters_alarm
from infra.api import chalice_api, grant_translate_and_rerank
from infra.config import StackConfig
from infra.functions import role
from infra.indexer import indexer, indexer_environment
from infra.schedules import reconciler, syncer
from infra.search import search
from infra.storage import chunks_table, documents, grant_chunks
from infra.streaming import stream_function
from infra.traces import adot_layers, api_tracing, grant_traces, stream_tracing

__all__ = ["SabioStack", "StackConfig"]


class SabioStack(Stack):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: StackConfig | None = None,
        package_api: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        cfg = config or StackConfig.from_context(self)
        # the order below is the template's: each step adds resources and policy statements in turn
        docs = documents(self, cfg)
        table = chunks_table(self)
        indexer_role = role(self, "IndexerRole")
        api_role = role(self, "ApiRole")
        search_url, search_service = search(self, cfg, [indexer_role, api_role])

        env = environment.runtime(
            table=table.table_name,
            search_url=search_url,
            search_service=search_service,
            prefix=cfg.name,
            region=self.region,
        ) | environment.permissions(cfg.identity, cfg.default_readers, cfg.source_readers)
        indexer_env = indexer_environment(cfg, docs.bucket, env)
        indexer(self, cfg, indexer_role, indexer_env, docs)
        if cfg.reconcile_hours:
            reconciler(self, cfg, indexer_role, indexer_env, docs.bucket)
        if cfg.sync_sources:
            syncer(self, cfg, indexer_env, docs.bucket)
        grant_chunks(table, indexer_role, api_role)
        grant_translate_and_rerank(api_role, cfg, self.region)
        dead_letters_alarm(self, docs.dlq)

        grant_traces(api_role, cfg)
        api_env = environment.api(env, cfg.api_keys, cfg.rerank_model)
        if package_api:
            layers = [cfg.adot_layer] if cfg.adot_layer else None
            package = chalice_api(self, cfg, api_role, api_env | api_tracing(cfg), layers)
            if cfg.stream:
                env_stream = api_env | stream_tracing(cfg)
                stream_function(self, cfg, api_role, env_stream, package, self.region, adot_layers(self, cfg))
        CfnOutput(self, "BucketName", value=docs.bucket.bucket_name)
        CfnOutput(self, "QueueUrl", value=docs.queue.queue_url)
        CfnOutput(self, "TableName", value=table.table_name)
        CfnOutput(self, "SearchEndpoint", value=search_url)
