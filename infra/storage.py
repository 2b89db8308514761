"""Where Sabio's data lives: the documents bucket and the queue its events go to (with dead letters), and the
chunks table with who may read and write it."""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_notifications as s3n
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.config import StackConfig
from infra.functions import allow


@dataclass(frozen=True)
class Documents:
    bucket: s3.Bucket
    queue: sqs.Queue  # the bucket's object events, for the indexer
    dlq: sqs.Queue  # events that failed indexing 5 times


def documents(scope: Construct, cfg: StackConfig) -> Documents:
    """The bucket, telling the queue of every object created or removed under the indexed prefixes."""
    bucket = s3.Bucket(
        scope,
        "Documents",
        versioned=True,
        encryption=s3.BucketEncryption.S3_MANAGED,
        block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
        enforce_ssl=True,
        removal_policy=RemovalPolicy.RETAIN,
    )
    dlq = sqs.Queue(scope, "EventsDLQ", retention_period=Duration.days(14), enforce_ssl=True)
    queue = sqs.Queue(
        scope,
        "Events",
        visibility_timeout=Duration.minutes(15 * 6),
        enforce_ssl=True,
        dead_letter_queue=sqs.DeadLetterQueue(max_receive_count=5, queue=dlq),
    )
    for event in (s3.EventType.OBJECT_CREATED, s3.EventType.OBJECT_REMOVED):
        if not cfg.prefixes:
            bucket.add_event_notification(event, s3n.SqsDestination(queue))
        for prefix in [*cfg.prefixes, *(cfg.synced_prefixes() if cfg.prefixes else ())]:
            key_filter = s3.NotificationKeyFilter(prefix=prefix)
            bucket.add_event_notification(event, s3n.SqsDestination(queue), key_filter)
    return Documents(bucket, queue, dlq)


def chunks_table(scope: Construct) -> dynamodb.Table:
    """The chunks table (and the query log), with its ``by_source`` index."""
    table = dynamodb.Table(
        scope,
        "Chunks",
        partition_key=dynamodb.Attribute(name="pk", type=dynamodb.AttributeType.STRING),
        sort_key=dynamodb.Attribute(name="sk", type=dynamodb.AttributeType.STRING),
        billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
        time_to_live_attribute="expires_at",  # the query log's questions and feedback expire
        removal_policy=RemovalPolicy.RETAIN,
        point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
            point_in_time_recovery_enabled=True
        ),
    )
    table.add_global_secondary_index(
        index_name="by_source",
        partition_key=dynamodb.Attribute(name="gsi1pk", type=dynamodb.AttributeType.STRING),
        sort_key=dynamodb.Attribute(name="gsi1sk", type=dynamodb.AttributeType.STRING),
    )
    return table


def grant_chunks(table: dynamodb.Table, indexer_role: iam.Role, api_role: iam.Role) -> None:
    """The indexer reads and writes chunks; the API reads them and writes its query log only."""
    allow(
        indexer_role,
        "ChunksReadWrite",
        [
            "dynamodb:GetItem",
            "dynamodb:PutItem",
            "dynamodb:UpdateItem",
            "dynamodb:DeleteItem",
            "dynamodb:BatchGetItem",
            "dynamodb:BatchWriteItem",
            "dynamodb:Query",
            "dynamodb:Scan",
        ],
        [table.table_arn, f"{table.table_arn}/index/by_source"],
    )
    allow(
        api_role,
        "ChunksRead",
        ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:Scan"],
        [table.table_arn, f"{table.table_arn}/index/by_source"],
    )
    # the API writes one kind of item only: the query log's questions and feedback (pk QUERY#...)
    api_role.add_to_policy(
        iam.PolicyStatement(
            sid="QueryLogWrite",
            actions=["dynamodb:PutItem"],
            resources=[table.table_arn],
            conditions={"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["QUERY#*"]}},
        )
    )
