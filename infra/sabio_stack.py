"""Sabio on AWS: S3 -> SQS (+DLQ) -> indexer (container Lambda) -> DynamoDB + OpenSearch; the Chalice API.

Configuration comes from CDK context (``cdk deploy -c key=value`` or cdk.json): see ``StackConfig``.
Every function gets its own role with exact actions on exact resources (no wildcard actions on data).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aws_cdk import CfnOutput, Duration, RemovalPolicy, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_opensearchserverless as aoss
from aws_cdk import aws_opensearchservice as opensearch
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_notifications as s3n
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra import environment
from infra.slim import slim

ROOT = Path(__file__).resolve().parent.parent
IMAGE_EXCLUDE = [
    ".venv",
    ".git",
    ".sabio",
    "bench",
    "tests",
    "docs",
    "examples",
    "cdk.out",
    "chalice.out",
    ".chalice/deployments",
    "**/__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "infra/cdk.out",
]


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
        )


# routes API Gateway lets through without one of its API keys: the page, health, the API's description, and
# the catch-alls that answer unknown routes with Sabio's 404
OPEN_ROUTES = {"/", "/health", "/openapi.json"}


# response type -> (HTTP status, Sabio's error code); API Gateway's unknown route is a 403 "Missing Authentication
# Token": here it is the 404 that Sabio's own catch-all routes give. None keeps the gateway's status.
GATEWAY_ERRORS: dict[str, tuple[str | None, str]] = {
    "MISSING_AUTHENTICATION_TOKEN": ("404", "not_found"),
    "THROTTLED": ("429", "too_many_requests"),
    "QUOTA_EXCEEDED": ("429", "too_many_requests"),
    "REQUEST_TOO_LARGE": ("413", "payload_too_large"),
    "UNSUPPORTED_MEDIA_TYPE": ("415", "unsupported_media_type"),
    "INTEGRATION_TIMEOUT": ("504", "upstream_timeout"),
    "DEFAULT_4XX": (None, "invalid_input"),
    "DEFAULT_5XX": (None, "upstream_error"),
}


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

        bucket = s3.Bucket(
            self,
            "Documents",
            versioned=True,
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            removal_policy=RemovalPolicy.RETAIN,
        )
        dlq = sqs.Queue(self, "EventsDLQ", retention_period=Duration.days(14), enforce_ssl=True)
        queue = sqs.Queue(
            self,
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

        table = dynamodb.Table(
            self,
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

        indexer_role = self._role("IndexerRole")
        api_role = self._role("ApiRole")
        search_url, search_service = self._search(cfg, [indexer_role, api_role])

        env = environment.runtime(
            table=table.table_name,
            search_url=search_url,
            search_service=search_service,
            prefix=cfg.name,
            region=self.region,
        ) | environment.permissions(cfg.identity, cfg.default_readers, cfg.source_readers)
        mapped = {**cfg.source_map, **cfg.synced_prefixes()}
        source_map = {f"{bucket.bucket_name}/{prefix}": source for prefix, source in mapped.items()}
        indexer = self._image_function(
            "Indexer", indexer_role, cfg.indexer_memory_mb, environment.indexer(env, source_map)
        )
        indexer.add_event_source(
            sources.SqsEventSource(
                queue,
                batch_size=cfg.indexer_batch_size,
                report_batch_item_failures=True,
                max_concurrency=cfg.indexer_max_concurrency,
                max_batching_window=Duration.seconds(5),
            )
        )
        self._allow(
            indexer_role, "Objects", ["s3:GetObject", "s3:GetObjectVersion"], [bucket.arn_for_objects("*")]
        )
        if cfg.reconcile_hours:
            self._reconciler(cfg, indexer_role, environment.indexer(env, source_map), bucket)
        if cfg.sync_sources:
            self._syncer(cfg, environment.indexer(env, source_map), bucket)
        self._allow(
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
        self._allow(
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

        # questions over documents in another language are translated (TranslateText has no resource ARNs)
        self._allow(api_role, "TranslateQuestions", ["translate:TranslateText"], ["*"])
        if cfg.rerank_model:  # Rerank has no resource ARNs; the model it invokes has
            self._allow(api_role, "Rerank", ["bedrock:Rerank"], ["*"])
            model = f"arn:aws:bedrock:{self.region}::foundation-model/{cfg.rerank_model}"
            self._allow(api_role, "RerankModel", ["bedrock:InvokeModel"], [model])

        cloudwatch.Alarm(
            self,
            "DeadLetters",
            metric=dlq.metric_approximate_number_of_messages_visible(period=Duration.minutes(5)),
            threshold=1,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            alarm_description="Documents that failed indexing 5 times are waiting in the DLQ",
        )

        if package_api:
            self._api(cfg, api_role, environment.api(env, cfg.api_keys, cfg.rerank_model))
        CfnOutput(self, "BucketName", value=bucket.bucket_name)
        CfnOutput(self, "QueueUrl", value=queue.queue_url)
        CfnOutput(self, "TableName", value=table.table_name)
        CfnOutput(self, "SearchEndpoint", value=search_url)

    def _reconciler(self, cfg: StackConfig, role: iam.Role, env: dict[str, str], bucket: s3.Bucket) -> None:
        """The indexer's image on a schedule: the bucket's listing against the manifest, lost events repaired
        (chalicelib/ingest/reconcile.py), what it fixed in the ReconcileMissing / Stale / Orphaned / Held
        metrics."""
        reconciler = self._image_function(
            "Reconciler", role, cfg.indexer_memory_mb, env, handler="indexer.handler.reconcile"
        )
        events.Rule(
            self,
            "ReconcileSchedule",
            schedule=events.Schedule.rate(Duration.hours(cfg.reconcile_hours)),
            targets=[targets.LambdaFunction(reconciler)],
        )
        self._allow(role, "ListBucket", ["s3:ListBucket"], [bucket.bucket_arn])

    def _syncer(self, cfg: StackConfig, env: dict[str, str], bucket: s3.Bucket) -> None:
        """The indexer's image on a schedule, writing each Git repository or website into the bucket (its
        events index them); it may write and delete objects, and reads nothing else of Sabio's."""
        role = self._role("SyncerRole")
        sync_env = {
            **env,
            "SABIO_SYNC_SOURCES": json.dumps(cfg.sync_sources),
            "SABIO_SYNC_BUCKET": bucket.bucket_name,
        }
        syncer = self._image_function("Syncer", role, 2048, sync_env, handler="indexer.handler.sync")
        events.Rule(
            self,
            "SyncSchedule",
            schedule=events.Schedule.rate(Duration.hours(cfg.sync_hours)),
            targets=[targets.LambdaFunction(syncer)],
        )
        self._allow(
            role,
            "SyncObjects",
            ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
            [bucket.arn_for_objects("*")],
        )
        self._allow(role, "SyncList", ["s3:ListBucket"], [bucket.bucket_arn])

    def _image_function(
        self, name: str, role: iam.Role, memory_mb: int, env: dict[str, str], handler: str | None = None
    ) -> lambda_.DockerImageFunction:
        """A function of the indexer's image (its own handler, if not the SQS one), 15 minutes at most."""
        return lambda_.DockerImageFunction(
            self,
            name,
            role=role,
            memory_size=memory_mb,
            timeout=Duration.minutes(15),
            architecture=lambda_.Architecture.X86_64,
            code=lambda_.DockerImageCode.from_image_asset(
                str(ROOT),
                file="indexer/Dockerfile",
                exclude=IMAGE_EXCLUDE,
                cmd=[handler] if handler else None,
            ),
            environment=env,
        )

    def _role(self, name: str) -> iam.Role:
        return iam.Role(
            self,
            name,
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            managed_policies=[
                iam.ManagedPolicy.from_aws_managed_policy_name("service-role/AWSLambdaBasicExecutionRole")
            ],
        )

    def _allow(self, role: iam.Role, sid: str, actions: list[str], resources: list[str]) -> None:
        role.add_to_policy(iam.PolicyStatement(sid=sid, actions=actions, resources=resources))

    def _search(self, cfg: StackConfig, roles: list[iam.Role]) -> tuple[str, str]:
        """OpenSearch Serverless vector collection (default) or a managed domain; returns (url, SigV4 service)."""
        if cfg.opensearch == "managed":
            domain = opensearch.Domain(
                self,
                "Search",
                version=opensearch.EngineVersion.OPENSEARCH_2_17,
                capacity=opensearch.CapacityConfig(data_nodes=2, data_node_instance_type="r7g.large.search"),
                encryption_at_rest=opensearch.EncryptionAtRestOptions(enabled=True),
                node_to_node_encryption=True,
                enforce_https=True,
                removal_policy=RemovalPolicy.RETAIN,
                zone_awareness=opensearch.ZoneAwarenessConfig(enabled=True, availability_zone_count=2),
            )
            for role in roles:
                self._allow(
                    role,
                    "Search",
                    ["es:ESHttpGet", "es:ESHttpPost", "es:ESHttpPut", "es:ESHttpDelete", "es:ESHttpHead"],
                    [domain.domain_arn, f"{domain.domain_arn}/*"],
                )
            return f"https://{domain.domain_endpoint}", "es"
        name = f"{cfg.name}-vectors"[:32]
        rules = [{"ResourceType": "collection", "Resource": [f"collection/{name}"]}]
        encryption = self._security_policy(cfg, "encryption", {"Rules": rules, "AWSOwnedKey": True})
        network = self._security_policy(cfg, "network", [{"Rules": rules, "AllowFromPublic": True}])
        collection = aoss.CfnCollection(self, "Search", name=name, type="VECTORSEARCH")
        collection.node.add_dependency(encryption, network)
        aoss.CfnAccessPolicy(
            self,
            "SearchAccess",
            name=f"{cfg.name}-access"[:32],
            type="data",
            policy=json.dumps(
                [
                    {
                        "Rules": [
                            {
                                "ResourceType": "index",
                                "Resource": [f"index/{name}/*"],
                                "Permission": [
                                    "aoss:CreateIndex",
                                    "aoss:DescribeIndex",
                                    "aoss:ReadDocument",
                                    "aoss:WriteDocument",
                                    "aoss:UpdateIndex",
                                ],
                            },
                            {
                                "ResourceType": "collection",
                                "Resource": [f"collection/{name}"],
                                "Permission": ["aoss:DescribeCollectionItems"],
                            },
                        ],
                        "Principal": [role.role_arn for role in roles],
                    }
                ]
            ),
        )
        for role in roles:
            self._allow(role, "Search", ["aoss:APIAccessAll"], [collection.attr_arn])
        return collection.attr_collection_endpoint, "aoss"

    def _security_policy(self, cfg: StackConfig, kind: str, policy: object) -> aoss.CfnSecurityPolicy:
        short = {"encryption": "enc", "network": "net"}[kind]
        return aoss.CfnSecurityPolicy(
            self,
            f"Search{kind.capitalize()}",
            name=f"{cfg.name}-{short}"[:32],
            type=kind,
            policy=json.dumps(policy),
        )

    def _api(self, cfg: StackConfig, role: iam.Role, env: dict[str, str]) -> None:
        """The Chalice API through chalice.cdk, running as ``role`` with the stack's environment."""
        import os

        from chalice.cdk import Chalice

        class SlimChalice(Chalice):  # type: ignore[misc]
            """chalice.cdk's construct, with the package slimmed before CDK takes it as an asset."""

            def _package_app(self) -> None:
                super()._package_app()
                slim(Path(self._sam_package_dir) / "deployment.zip")

        saved = dict(os.environ)  # packaging in-process loads the stage's variables into os.environ
        try:
            api = SlimChalice(
                self,
                "Api",
                source_dir=str(ROOT),
                stage_config={
                    "api_gateway_stage": "api",
                    "lambda_memory_size": cfg.api_memory_mb,
                    "lambda_timeout": 30,
                    "manage_iam_role": False,
                    "iam_role_arn": role.role_arn,
                    "environment_variables": env,
                    "automatic_layer": False,
                },
            )
        finally:
            os.environ.clear()
            os.environ.update(saved)
        rest_api = api.get_resource("RestAPI")
        self._gateway_errors(rest_api.ref)
        if cfg.api_keys:
            self._usage_plans(cfg, rest_api)

    def _usage_plans(self, cfg: StackConfig, rest_api: Any) -> None:
        """One API Gateway key and usage plan (rate, burst, daily quota) per configured key, so throttling
        holds across warm Lambdas; Sabio still checks the same key's digest for its scopes.

        Each gateway key's value is the caller's own key, read by CloudFormation from the Secrets Manager
        secret ``api_key_secret`` (a dynamic reference: the key never appears in the template), so callers
        send one ``x-api-key`` for both. The keyed routes require it (the Swagger ``security`` of each
        method); ``OPEN_ROUTES`` and the catch-alls do not."""
        from aws_cdk import aws_apigateway as apigw

        import app as chalice_app

        secret = cfg.api_key_secret or f"{cfg.name}/api-keys"
        rest_api.add_property_override(
            "DefinitionBody.securityDefinitions.api_key",
            {"type": "apiKey", "name": "x-api-key", "in": "header"},
        )
        for path, methods in chalice_app.app.routes.items():
            if path in OPEN_ROUTES or path.startswith("/{p1}"):
                continue
            for method in methods:
                rest_api.add_property_override(
                    f"DefinitionBody.paths.{path}.{method.lower()}.security", [{"api_key": []}]
                )
        for entry in cfg.api_keys.values():
            name = str(entry["name"])
            slug = "".join(part.capitalize() for part in name.replace("_", "-").split("-") if part.isalnum())
            key = apigw.CfnApiKey(
                self,
                f"GatewayKey{slug}",
                name=f"{cfg.name}-{name}",
                enabled=True,
                value=f"{{{{resolve:secretsmanager:{secret}:SecretString:{name}}}}}",
            )
            rate = float(entry.get("rate_per_second", cfg.throttle_rate_per_second))
            quota = entry.get("quota_per_day", cfg.quota_per_day)
            plan = apigw.CfnUsagePlan(
                self,
                f"UsagePlan{slug}",
                usage_plan_name=f"{cfg.name}-{name}",
                description=f"Throttling and quota of the key {name!r}, across every warm Lambda",
                api_stages=[apigw.CfnUsagePlan.ApiStageProperty(api_id=rest_api.ref, stage="api")],
                throttle=apigw.CfnUsagePlan.ThrottleSettingsProperty(
                    rate_limit=rate, burst_limit=int(entry.get("burst", cfg.throttle_burst))
                ),
                quota=apigw.CfnUsagePlan.QuotaSettingsProperty(limit=int(quota), period="DAY")
                if quota
                else None,
            )
            plan.add_override("DependsOn", ["RestAPIapiStage"])  # the stage SAM creates for the API
            apigw.CfnUsagePlanKey(
                self, f"UsagePlanKey{slug}", key_id=key.ref, key_type="API_KEY", usage_plan_id=plan.ref
            )

    def _gateway_errors(self, rest_api_id: str) -> None:
        """Errors API Gateway answers itself (unknown route, throttling, timeouts) in Sabio's error shape."""
        from aws_cdk import aws_apigateway as apigw

        for kind, (status, code) in GATEWAY_ERRORS.items():
            apigw.CfnGatewayResponse(
                self,
                f"GatewayError{kind.title().replace('_', '')}",
                rest_api_id=rest_api_id,
                response_type=kind,
                status_code=status,
                response_parameters={"gatewayresponse.header.Content-Type": "'application/json'"},
                response_templates={
                    "application/json": f'{{"code": "{code}", "message": $context.error.messageString}}'
                },
            )
