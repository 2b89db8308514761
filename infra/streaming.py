"""The streamed answer on AWS: a second function of the API's own package (the same code, role and environment)
whose handler is chalicelib/streaming/run.sh, run by the Lambda Web Adapter layer, behind a Function URL in
RESPONSE_STREAM mode. Chalice and API Gateway's REST API buffer a response whole, and a Python Lambda
streams only through such an adapter (docs/aws.md#streamed-answers).

The URL's auth type is NONE: Sabio checks the caller's API key or JWT itself, as it does behind API Gateway
(whose usage plans add throttling there; here the function's reserved concurrency bounds it)."""

from __future__ import annotations

from pathlib import Path

from aws_cdk import CfnOutput, Duration
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.config import StackConfig

HANDLER = "chalicelib/streaming/run.sh"
WEB_ADAPTER = "arn:aws:lambda:{region}:753240598075:layer:LambdaAdapterLayerX86:26"
PORT = "8080"


def adapter_environment() -> dict[str, str]:
    """What the Lambda Web Adapter reads: run the handler as a web server, stream its response."""
    return {
        "AWS_LAMBDA_EXEC_WRAPPER": "/opt/bootstrap",
        "AWS_LWA_INVOKE_MODE": "response_stream",
        "AWS_LWA_PORT": PORT,
        "AWS_LWA_READINESS_CHECK_PATH": "/health",
    }


def stream_function(
    scope: Construct,
    cfg: StackConfig,
    role: iam.IRole,
    env: dict[str, str],
    package: Path,
    region: str,
    layers: list[lambda_.ILayerVersion],
) -> lambda_.Function:
    """The function, its Function URL (output ``StreamUrl``) and its layers (the adapter's, then ``layers``)."""
    adapter = lambda_.LayerVersion.from_layer_version_arn(
        scope, "WebAdapterLayer", cfg.web_adapter_layer or WEB_ADAPTER.format(region=region)
    )
    function = lambda_.Function(
        scope,
        "StreamFunction",
        description="Sabio's streamed answers (POST /answer as server-sent events) behind a Function URL",
        runtime=lambda_.Runtime.PYTHON_3_11,
        architecture=lambda_.Architecture.X86_64,
        handler=HANDLER,
        code=lambda_.Code.from_asset(str(package)),
        role=role,
        memory_size=cfg.api_memory_mb,
        timeout=Duration.seconds(cfg.stream_timeout_s),
        reserved_concurrent_executions=cfg.stream_concurrency or None,
        environment={**env, **adapter_environment()},
        layers=[adapter, *layers],
    )
    cors = None
    if cfg.stream_origins:
        cors = lambda_.FunctionUrlCorsOptions(
            allowed_origins=cfg.stream_origins,
            allowed_methods=[lambda_.HttpMethod.POST],
            allowed_headers=["content-type", "accept", "x-api-key", "authorization"],
        )
    url = function.add_function_url(
        auth_type=lambda_.FunctionUrlAuthType.NONE, invoke_mode=lambda_.InvokeMode.RESPONSE_STREAM, cors=cors
    )
    CfnOutput(scope, "StreamUrl", value=url.url, description="POST {StreamUrl}answer streams an answer")
    return function
