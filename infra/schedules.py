"""The indexer's image on a schedule: the reconciler repairs lost events, the syncer writes Git repositories
and websites into the bucket."""

from __future__ import annotations

import json

from aws_cdk import Duration
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.config import StackConfig
from infra.functions import allow, image_function, role


def reconciler(
    scope: Construct, cfg: StackConfig, indexer_role: iam.Role, env: dict[str, str], bucket: s3.Bucket
) -> None:
    """The indexer's image on a schedule: the bucket's listing against the manifest, lost events repaired
    (chalicelib/ingest/reconcile.py), what it fixed in the ReconcileMissing / Stale / Orphaned / Held
    metrics."""
    function = image_function(
        scope, "Reconciler", indexer_role, cfg.indexer_memory_mb, env, handler="indexer.handler.reconcile"
    )
    events.Rule(
        scope,
        "ReconcileSchedule",
        schedule=events.Schedule.rate(Duration.hours(cfg.reconcile_hours)),
        targets=[targets.LambdaFunction(function)],
    )
    allow(indexer_role, "ListBucket", ["s3:ListBucket"], [bucket.bucket_arn])


def syncer(scope: Construct, cfg: StackConfig, env: dict[str, str], bucket: s3.Bucket) -> None:
    """The indexer's image on a schedule, writing each Git repository or website into the bucket (its
    events index them); it may write and delete objects, and reads nothing else of Sabio's."""
    syncer_role = role(scope, "SyncerRole")
    sync_env = {
        **env,
        "SABIO_SYNC_SOURCES": json.dumps(cfg.sync_sources),
        "SABIO_SYNC_BUCKET": bucket.bucket_name,
    }
    function = image_function(scope, "Syncer", syncer_role, 2048, sync_env, handler="indexer.handler.sync")
    events.Rule(
        scope,
        "SyncSchedule",
        schedule=events.Schedule.rate(Duration.hours(cfg.sync_hours)),
        targets=[targets.LambdaFunction(function)],
    )
    allow(
        syncer_role,
        "SyncObjects",
        ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
        [bucket.arn_for_objects("*")],
    )
    allow(syncer_role, "SyncList", ["s3:ListBucket"], [bucket.bucket_arn])
