"""The indexer: the container Lambda that reads the queue of bucket events and indexes each object."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra import environment
from infra.config import StackConfig
from infra.functions import allow, image_function
from infra.storage import Documents


def indexer_environment(cfg: StackConfig, bucket: s3.Bucket, env: dict[str, str]) -> dict[str, str]:
    """The stack's environment, and which prefix of the bucket is which source (configured or synced)."""
    mapped = {**cfg.source_map, **cfg.synced_prefixes()}
    source_map = {f"{bucket.bucket_name}/{prefix}": source for prefix, source in mapped.items()}
    return environment.indexer(env, source_map)


def indexer(scope: Construct, cfg: StackConfig, role: iam.Role, env: dict[str, str], docs: Documents) -> None:
    """Batches of the queue's events, failures reported per message, reading the objects they name."""
    function = image_function(scope, "Indexer", role, cfg.indexer_memory_mb, env)
    function.add_event_source(
        sources.SqsEventSource(
            docs.queue,
            batch_size=cfg.indexer_batch_size,
            report_batch_item_failures=True,
            max_concurrency=cfg.indexer_max_concurrency,
            max_batching_window=Duration.seconds(5),
        )
    )
    allow(role, "Objects", ["s3:GetObject", "s3:GetObjectVersion"], [docs.bucket.arn_for_objects("*")])
