"""The CDK app synthesizes, holds what a deployment needs, grants no wildcard actions on data, and lints clean."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("aws_cdk")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("node") is None, reason="the CDK (jsii) needs Node.js on PATH"),
]

DIGEST = "sha256:" + "ab" * 32
ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf"
ADOT = "arn:aws:lambda:eu-west-1:901920570463:layer:aws-otel-python-amd64-ver-1-32-0:2"
ORIGIN = "https://intranet.example.com"


@pytest.fixture(scope="module")
def template(tmp_path_factory):  # type: ignore[no-untyped-def]
    import aws_cdk as cdk
    from aws_cdk.assertions import Template

    from infra.sabio_stack import SabioStack, StackConfig

    out = tmp_path_factory.mktemp("cdk")
    cwd = os.getcwd()
    os.chdir(out)  # chalice.cdk packages the API into ./chalice.out
    had_region = "AWS_DEFAULT_REGION" in os.environ
    os.environ.setdefault("AWS_DEFAULT_REGION", "eu-west-1")  # chalice package asks boto for one
    try:
        app = cdk.App(outdir=str(out / "cdk.out"))
        stack = SabioStack(
            app,
            "Sabio",
            env=cdk.Environment(account="123456789012", region="eu-west-1"),
            config=StackConfig(
                prefixes=["docs/", "wiki/"],
                source_map={"docs/": "docs"},
                api_keys={
                    DIGEST: {"name": "team-a", "source_ids": ["docs"], "rate_per_second": 2, "burst": 5}
                },
                quota_per_day=1000,
                rerank_model="amazon.rerank-v1:0",
                sync_sources=[{"kind": "web", "location": "https://docs.example.com/", "source_id": "site"}],
                identity={"issuer": ISSUER, "audience": "app-client", "groups_claim": "cognito:groups"},
                source_readers={"docs": "public"},
                adot_layer=ADOT,
                stream_origins=[ORIGIN],
            ),
        )
        synthesized = Template.from_stack(stack)
    finally:
        os.chdir(cwd)
        if not had_region:
            del os.environ["AWS_DEFAULT_REGION"]
    path = out / "template.json"
    path.write_text(json.dumps(synthesized.to_json()))
    return synthesized, path


def resources(template, kind: str) -> dict:  # type: ignore[no-untyped-def]
    return template[0].find_resources(kind)


def test_bucket_queue_dlq_and_notifications(template):
    from aws_cdk.assertions import Match

    t = template[0]
    t.has_resource_properties(
        "AWS::S3::Bucket",
        {
            "VersioningConfiguration": {"Status": "Enabled"},
            "BucketEncryption": Match.object_like({"ServerSideEncryptionConfiguration": Match.any_value()}),
            "PublicAccessBlockConfiguration": {
                "BlockPublicAcls": True,
                "BlockPublicPolicy": True,
                "IgnorePublicAcls": True,
                "RestrictPublicBuckets": True,
            },
        },
    )
    queues = resources(template, "AWS::SQS::Queue")
    assert len(queues) == 2
    assert any(q["Properties"].get("RedrivePolicy", {}).get("maxReceiveCount") == 5 for q in queues.values())
    notifications = next(iter(resources(template, "Custom::S3BucketNotifications").values()))
    configs = notifications["Properties"]["NotificationConfiguration"]["QueueConfigurations"]
    assert {c["Events"][0] for c in configs} == {"s3:ObjectCreated:*", "s3:ObjectRemoved:*"}
    prefixes = {r["Value"] for c in configs for r in c["Filter"]["Key"]["FilterRules"]}
    assert prefixes == {"docs/", "wiki/", "site/"}  # the configured prefixes, and the synced source's
    t.has_resource_properties(
        "AWS::CloudWatch::Alarm", {"Threshold": 1, "MetricName": "ApproximateNumberOfMessagesVisible"}
    )


def test_table_collection_and_policies(template):
    t = template[0]
    t.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
            "TimeToLiveSpecification": {"AttributeName": "expires_at", "Enabled": True},
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "by_source",
                    "KeySchema": [
                        {"AttributeName": "gsi1pk", "KeyType": "HASH"},
                        {"AttributeName": "gsi1sk", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        },
    )
    t.has_resource_properties("AWS::OpenSearchServerless::Collection", {"Type": "VECTORSEARCH"})
    kinds = {
        r["Properties"]["Type"]
        for r in resources(template, "AWS::OpenSearchServerless::SecurityPolicy").values()
    }
    assert kinds == {"encryption", "network"}
    (access,) = resources(template, "AWS::OpenSearchServerless::AccessPolicy").values()
    assert access["Properties"]["Type"] == "data"


def test_indexer_is_a_container_lambda_with_partial_batch_failures(template):
    t = template[0]
    t.has_resource_properties("AWS::Lambda::Function", {"PackageType": "Image", "Timeout": 900})
    t.has_resource_properties(
        "AWS::Lambda::EventSourceMapping",
        {
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
            "BatchSize": 10,
            "ScalingConfig": {"MaximumConcurrency": 5},
        },
    )
    images = [
        r
        for r in resources(template, "AWS::Lambda::Function").values()
        if r["Properties"].get("PackageType") == "Image"
    ]
    (indexer,) = [r for r in images if "ImageConfig" not in r["Properties"]]
    env = indexer["Properties"]["Environment"]["Variables"]
    assert env["SABIO_CHUNK_STORE"] == "dynamodb" and env["SABIO_VECTOR_INDEX"] == "opensearch"
    assert env["SABIO_OPENSEARCH_SERVICE"] == "aoss" and "docs" in json.dumps(env["SABIO_SOURCE_MAP"])


def test_the_chalice_api_gets_its_environment_and_its_own_role(template):
    (api,) = resources(template, "AWS::Serverless::Function").values()
    env = api["Properties"]["Environment"]["Variables"]
    assert env["SABIO_AUTH"] == "keys" and DIGEST in env["SABIO_API_KEYS"]
    assert env["SABIO_CHUNK_STORE"] == "dynamodb" and "Fn::GetAtt" in json.dumps(env["SABIO_OPENSEARCH_URL"])
    assert "ApiRole" in json.dumps(api["Properties"]["Role"])
    # no Apertium in Lambda: a question over documents in another language is translated by Amazon Translate
    assert env["SABIO_TRANSLATOR"] == "amazon"
    # whose JWTs name the user, and who reads documents that name no readers (the indexer stores it)
    assert (env["SABIO_JWT_ISSUER"], env["SABIO_JWT_GROUPS_CLAIM"]) == (ISSUER, "cognito:groups")
    assert env["SABIO_DEFAULT_READERS"] == "none" and json.loads(env["SABIO_SOURCE_READERS"]) == {
        "docs": "public"
    }
    api_policy = next(
        v for k, v in resources(template, "AWS::IAM::Policy").items() if k.startswith("ApiRole")
    )
    statements = {st.get("Sid"): st for st in api_policy["Properties"]["PolicyDocument"]["Statement"]}
    assert statements["TranslateQuestions"]["Action"] == "translate:TranslateText"
    # rerank behind a setting: Bedrock's Rerank (no resource ARNs) and the one model it may invoke
    assert env["SABIO_RERANKER"] == "bedrock" and env["SABIO_RERANKER_MODEL"] == "amazon.rerank-v1:0"
    assert (statements["Rerank"]["Action"], statements["Rerank"]["Resource"]) == ("bedrock:Rerank", "*")
    assert statements["RerankModel"]["Action"] == "bedrock:InvokeModel"
    assert statements["RerankModel"]["Resource"] == (
        "arn:aws:bedrock:eu-west-1::foundation-model/amazon.rerank-v1:0"
    )


def test_an_identity_with_a_misspelt_key_stops_the_synth():
    from infra import environment

    with pytest.raises(ValueError, match="unknown key"):
        environment.permissions({"issuer": ISSUER, "groups-claim": "cognito:groups"}, "none", {})
    with pytest.raises(ValueError, match="needs an issuer"):
        environment.permissions({"audience": "x"}, "none", {})


def test_without_a_rerank_model_the_api_may_not_call_bedrock():
    import aws_cdk as cdk
    from aws_cdk.assertions import Template

    from infra import environment
    from infra.sabio_stack import SabioStack, StackConfig

    stack = SabioStack(cdk.App(), "NoRerank", config=StackConfig(), package_api=False)
    policies = Template.from_stack(stack).find_resources("AWS::IAM::Policy")
    assert "bedrock" not in json.dumps(policies)
    assert "SABIO_RERANKER" not in environment.api({}, {})


def test_no_wildcard_actions_on_data_resources(template):
    data = ("Documents", "Chunks", "Events", "Search")
    for name, policy in resources(template, "AWS::IAM::Policy").items():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            assert not any(a == "*" or a.endswith(":*") for a in actions), (name, actions)
            if any(d in json.dumps(statement.get("Resource")) for d in data):
                assert not any("*" in a for a in actions), (name, actions)
    api_statements = resources(template, "AWS::IAM::Policy")[
        next(k for k in resources(template, "AWS::IAM::Policy") if k.startswith("ApiRole"))
    ]["Properties"]["PolicyDocument"]["Statement"]
    # the API reads; its only write is the query log's items (questions and feedback), by partition key
    writes = [
        s
        for s in api_statements
        if any(w in json.dumps(s["Action"]) for w in ("Put", "Delete", "Write")) and s["Sid"] != "WriteTraces"
    ]
    assert [(w["Action"], w["Condition"]) for w in writes] == [
        ("dynamodb:PutItem", {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["QUERY#*"]}})
    ]
    assert not any("s3:" in json.dumps(s["Action"]) for s in api_statements)


def test_cfn_lint_finds_no_errors(template):
    result = subprocess.run(
        [str(Path(sys.executable).with_name("cfn-lint")), str(template[1])], capture_output=True, text=True
    )
    assert result.returncode & 2 == 0, result.stdout  # 2 = errors; 4 = warnings only


def test_default_configuration_indexes_the_whole_bucket():
    import aws_cdk as cdk
    from aws_cdk.assertions import Template

    from infra.sabio_stack import SabioStack, StackConfig

    stack = SabioStack(cdk.App(), "Plain", config=StackConfig(), package_api=False)
    (notifications,) = Template.from_stack(stack).find_resources("Custom::S3BucketNotifications").values()
    configs = notifications["Properties"]["NotificationConfiguration"]["QueueConfigurations"]
    assert len(configs) == 2 and all("Filter" not in c for c in configs)


def test_api_gateways_own_errors_have_sabios_shape(template):
    """Unknown routes, throttling and timeouts are answered by API Gateway itself, not by the app: their
    bodies are still Sabio's ``{"code", "message"}``, and an unknown route is a 404 as it is locally."""
    responses = {
        r["Properties"]["ResponseType"]: r["Properties"]
        for r in resources(template, "AWS::ApiGateway::GatewayResponse").values()
    }
    assert {"MISSING_AUTHENTICATION_TOKEN", "THROTTLED", "DEFAULT_4XX", "DEFAULT_5XX"} <= set(responses)
    missing = responses["MISSING_AUTHENTICATION_TOKEN"]
    assert missing["StatusCode"] == "404"
    body = missing["ResponseTemplates"]["application/json"]
    assert body.startswith('{"code": "not_found", "message": ') and "$context.error.messageString" in body
    apis = {**resources(template, "AWS::ApiGateway::RestApi"), **resources(template, "AWS::Serverless::Api")}
    assert len(apis) == 1 and all(r["RestApiId"] == {"Ref": next(iter(apis))} for r in responses.values())


def test_each_key_has_a_usage_plan_that_holds_across_lambdas(template):
    """API Gateway throttles and meters each configured key (rate, burst, daily quota) across every warm
    Lambda; its copy of the key comes from Secrets Manager by reference, never written in the template."""
    plans = list(resources(template, "AWS::ApiGateway::UsagePlan").values())
    assert len(plans) == 1
    plan = plans[0]
    assert plan["Properties"]["Throttle"] == {"RateLimit": 2, "BurstLimit": 5}
    assert plan["Properties"]["Quota"] == {"Limit": 1000, "Period": "DAY"}
    apis = {**resources(template, "AWS::ApiGateway::RestApi"), **resources(template, "AWS::Serverless::Api")}
    (api_id,) = apis
    assert plan["Properties"]["ApiStages"] == [{"ApiId": {"Ref": api_id}, "Stage": "api"}]
    assert "RestAPIapiStage" in plan["DependsOn"]
    (key,) = resources(template, "AWS::ApiGateway::ApiKey").values()
    assert key["Properties"]["Value"] == "{{resolve:secretsmanager:sabio/api-keys:SecretString:team-a}}"
    (link,) = resources(template, "AWS::ApiGateway::UsagePlanKey").values()
    assert link["Properties"]["KeyType"] == "API_KEY"
    assert link["Properties"]["UsagePlanId"] == {
        "Ref": next(iter(resources(template, "AWS::ApiGateway::UsagePlan")))
    }
    swagger = apis[api_id]["Properties"]["DefinitionBody"]
    assert swagger["securityDefinitions"]["api_key"] == {
        "type": "apiKey",
        "name": "x-api-key",
        "in": "header",
    }
    for path, method in (("/retrieve", "post"), ("/answer", "post"), ("/stats", "get"), ("/mcp", "post")):
        assert swagger["paths"][path][method]["security"] == [{"api_key": []}], path
    for path in ("/health", "/", "/openapi.json"):  # open: health checks, the page, the API's description
        assert "security" not in swagger["paths"][path]["get"], path


def test_a_schedule_reconciles_the_bucket_with_the_manifest(template):
    t = template[0]
    t.has_resource_properties(
        "AWS::Events::Rule", {"ScheduleExpression": "rate(6 hours)", "State": "ENABLED"}
    )
    images = [
        r
        for r in resources(template, "AWS::Lambda::Function").values()
        if r["Properties"].get("PackageType") == "Image"
    ]
    (reconciler,) = [
        r
        for r in images
        if r["Properties"].get("ImageConfig", {}).get("Command") == ["indexer.handler.reconcile"]
    ]
    assert "SABIO_SOURCE_MAP" in reconciler["Properties"]["Environment"]["Variables"]
    assert "s3:ListBucket" in json.dumps(resources(template, "AWS::IAM::Policy"))


def test_a_schedule_writes_each_synced_source_into_the_bucket(template):
    t = template[0]
    t.has_resource_properties("AWS::Events::Rule", {"ScheduleExpression": "rate(1 hour)"})
    images = [
        r
        for r in resources(template, "AWS::Lambda::Function").values()
        if r["Properties"].get("PackageType") == "Image"
    ]
    (syncer,) = [
        r for r in images if r["Properties"].get("ImageConfig", {}).get("Command") == ["indexer.handler.sync"]
    ]
    env = syncer["Properties"]["Environment"]["Variables"]
    assert json.loads(env["SABIO_SYNC_SOURCES"])[0]["source_id"] == "site" and "SABIO_SYNC_BUCKET" in env
    (indexer,) = [r for r in images if "ImageConfig" not in r["Properties"]]
    assert "/site/" in json.dumps(
        indexer["Properties"]["Environment"]["Variables"]["SABIO_SOURCE_MAP"]
    )  # its objects map to it
    notifications = json.dumps(resources(template, "Custom::S3BucketNotifications"))
    assert '"site/"' in notifications  # the bucket tells the indexer about the synced prefix too


def stream_function(template):  # type: ignore[no-untyped-def]
    return next(
        f
        for f in resources(template, "AWS::Lambda::Function").values()
        if f["Properties"].get("Handler") == "chalicelib/streaming/run.sh"
    )


def test_the_stream_function_serves_answers_through_a_streaming_function_url_with_the_apis_keys(template):
    (api,) = resources(template, "AWS::Serverless::Function").values()
    function = stream_function(template)["Properties"]
    env, api_env = function["Environment"]["Variables"], api["Properties"]["Environment"]["Variables"]
    # the Lambda Web Adapter runs run.sh as a web server and streams its response back
    assert (
        env["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/bootstrap" and env["AWS_LWA_INVOKE_MODE"] == "response_stream"
    )
    assert env["AWS_LWA_READINESS_CHECK_PATH"] == "/health" and function["Runtime"] == "python3.11"
    layers = json.dumps(function["Layers"])
    assert "arn:aws:lambda:eu-west-1:753240598075:layer:LambdaAdapterLayerX86:" in layers and ADOT in layers
    # the same keys, identity provider, stores and role as the API: Sabio checks the caller itself
    shared = {k: v for k, v in api_env.items() if k not in ("AWS_LAMBDA_EXEC_WRAPPER", "SABIO_TRACING")}
    assert {k: env[k] for k in shared} == shared and DIGEST in env["SABIO_API_KEYS"]
    assert env["SABIO_AUTH"] == "keys" and env["SABIO_JWT_ISSUER"] == ISSUER
    assert "ApiRole" in json.dumps(function["Role"])
    # no usage plan in front of a Function URL: reserved concurrency bounds it, the timeout bounds one answer
    assert function["ReservedConcurrentExecutions"] == 10 and function["Timeout"] == 120
    (url,) = resources(template, "AWS::Lambda::Url").values()
    assert url["Properties"]["InvokeMode"] == "RESPONSE_STREAM" and url["Properties"]["AuthType"] == "NONE"
    assert url["Properties"]["Cors"]["AllowOrigins"] == [ORIGIN]
    # anyone may call the URL (Sabio then checks the key): both grants a public Function URL needs
    public = {
        p["Properties"]["Action"]
        for p in resources(template, "AWS::Lambda::Permission").values()
        if "StreamFunction" in json.dumps(p["Properties"]["FunctionName"])
        and p["Properties"]["Principal"] == "*"
    }
    assert public == {"lambda:InvokeFunctionUrl", "lambda:InvokeFunction"}
    template[0].has_output("StreamUrl", {})


def test_the_stream_functions_package_is_the_apis_with_its_start_script_executable(template):
    import zipfile

    key = stream_function(template)["Properties"]["Code"]["S3Key"]  # "<asset hash>.zip"
    (folder,) = (template[1].parent / "cdk.out").glob(f"asset.{key.split('.')[0]}*")
    archive = folder if folder.is_file() else next(folder.glob("*.zip"), None)
    names = {p.relative_to(folder).as_posix() for p in folder.rglob("*")} if archive is None else None
    if archive is not None:
        with zipfile.ZipFile(archive) as z:
            mode = z.getinfo("chalicelib/streaming/run.sh").external_attr >> 16
            names = set(z.namelist())
    else:
        mode = (folder / "chalicelib/streaming/run.sh").stat().st_mode
    assert mode & 0o111, oct(mode)  # the adapter executes it
    assert {"app.py", "chalicelib/streaming/server.py", "chalicelib/web/index.html"} <= names


def test_an_adot_layer_traces_the_api_and_the_stream_function(template):
    from infra.sabio_stack import StackConfig
    from infra.traces import api_tracing, stream_tracing

    (api,) = resources(template, "AWS::Serverless::Function").values()
    api_env = api["Properties"]["Environment"]["Variables"]
    assert ADOT in json.dumps(api["Properties"]["Layers"])
    assert (
        api_env["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/otel-instrument"
        and api_env["SABIO_TRACING"] == "external"
    )
    env = stream_function(template)["Properties"]["Environment"]["Variables"]
    assert env["SABIO_TRACING"] == "otlp" and env["SABIO_OTLP_ENDPOINT"] == "http://localhost:4318"
    api_policy = next(
        v for k, v in resources(template, "AWS::IAM::Policy").items() if k.startswith("ApiRole")
    )
    statements = {st.get("Sid"): st for st in api_policy["Properties"]["PolicyDocument"]["Statement"]}
    assert statements["WriteTraces"]["Action"] == ["xray:PutTraceSegments", "xray:PutTelemetryRecords"]
    assert api_tracing(StackConfig()) == {} == stream_tracing(StackConfig())  # off unless the layer is named
