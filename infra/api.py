"""The Chalice API behind API Gateway: its package (slimmed), its grants beyond the chunks table, the gateway's
own errors in Sabio's shape, and a key and usage plan per configured key."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from aws_cdk import aws_iam as iam
from constructs import Construct

from infra.config import StackConfig
from infra.functions import ROOT, allow
from infra.slim import slim

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


def grant_translate_and_rerank(role: iam.Role, cfg: StackConfig, region: str) -> None:
    """Amazon Translate for questions over documents in another language; Bedrock's rerank if configured."""
    # TranslateText has no resource ARNs
    allow(role, "TranslateQuestions", ["translate:TranslateText"], ["*"])
    if cfg.rerank_model:  # Rerank has no resource ARNs; the model it invokes has
        allow(role, "Rerank", ["bedrock:Rerank"], ["*"])
        model = f"arn:aws:bedrock:{region}::foundation-model/{cfg.rerank_model}"
        allow(role, "RerankModel", ["bedrock:InvokeModel"], [model])


def chalice_api(
    scope: Construct, cfg: StackConfig, role: iam.Role, env: dict[str, str], layers: list[str] | None = None
) -> Path:
    """The Chalice API through chalice.cdk, running as ``role`` with the stack's environment (and ``layers``,
    by ARN); the path of its slimmed package, which the stream function runs too."""
    from chalice.cdk import Chalice

    class SlimChalice(Chalice):  # type: ignore[misc]
        """chalice.cdk's construct, with the package slimmed before CDK takes it as an asset."""

        def _package_app(self) -> None:
            super()._package_app()
            slim(Path(self._sam_package_dir) / "deployment.zip")

    saved = dict(os.environ)  # packaging in-process loads the stage's variables into os.environ
    try:
        chalice = SlimChalice(
            scope,
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
                **({"layers": layers} if layers else {}),
            },
        )
    finally:
        os.environ.clear()
        os.environ.update(saved)
    rest_api = chalice.get_resource("RestAPI")
    _gateway_errors(scope, rest_api.ref)
    if cfg.api_keys:
        _usage_plans(scope, cfg, rest_api)
    return Path(chalice._sam_package_dir) / "deployment.zip"


def _gateway_errors(scope: Construct, rest_api_id: str) -> None:
    """Errors API Gateway answers itself (unknown route, throttling, timeouts) in Sabio's error shape."""
    from aws_cdk import aws_apigateway as apigw

    for kind, (status, code) in GATEWAY_ERRORS.items():
        apigw.CfnGatewayResponse(
            scope,
            f"GatewayError{kind.title().replace('_', '')}",
            rest_api_id=rest_api_id,
            response_type=kind,
            status_code=status,
            response_parameters={"gatewayresponse.header.Content-Type": "'application/json'"},
            response_templates={
                "application/json": f'{{"code": "{code}", "message": $context.error.messageString}}'
            },
        )


def _usage_plans(scope: Construct, cfg: StackConfig, rest_api: Any) -> None:
    """One API Gateway key and usage plan (rate, burst, daily quota) per configured key, so throttling
    holds across warm Lambdas; Sabio still checks the same key's digest for its scopes.

    Each gateway key's value is the caller's own key, read by CloudFormation from the Secrets Manager
    secret ``api_key_secret`` (a dynamic reference: the key never appears in the template), so callers
    send one ``x-api-key`` for both. The keyed routes require it (the Swagger ``security`` of each
    method); ``OPEN_ROUTES`` and the catch-alls do not."""
    _require_keys(rest_api)
    secret = cfg.api_key_secret or f"{cfg.name}/api-keys"
    for entry in cfg.api_keys.values():
        _usage_plan(scope, cfg, rest_api, secret, entry)


def _require_keys(rest_api: Any) -> None:
    """Every route but the open ones and the catch-alls asks API Gateway for an ``x-api-key``."""
    import app as chalice_app

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


def _usage_plan(
    scope: Construct, cfg: StackConfig, rest_api: Any, secret: str, entry: dict[str, Any]
) -> None:
    """One key's gateway key, read from ``secret``, and its usage plan on the API's stage."""
    from aws_cdk import aws_apigateway as apigw

    name = str(entry["name"])
    slug = "".join(part.capitalize() for part in name.replace("_", "-").split("-") if part.isalnum())
    key = apigw.CfnApiKey(
        scope,
        f"GatewayKey{slug}",
        name=f"{cfg.name}-{name}",
        enabled=True,
        value=f"{{{{resolve:secretsmanager:{secret}:SecretString:{name}}}}}",
    )
    rate = float(entry.get("rate_per_second", cfg.throttle_rate_per_second))
    quota = entry.get("quota_per_day", cfg.quota_per_day)
    plan = apigw.CfnUsagePlan(
        scope,
        f"UsagePlan{slug}",
        usage_plan_name=f"{cfg.name}-{name}",
        description=f"Throttling and quota of the key {name!r}, across every warm Lambda",
        api_stages=[apigw.CfnUsagePlan.ApiStageProperty(api_id=rest_api.ref, stage="api")],
        throttle=apigw.CfnUsagePlan.ThrottleSettingsProperty(
            rate_limit=rate, burst_limit=int(entry.get("burst", cfg.throttle_burst))
        ),
        quota=apigw.CfnUsagePlan.QuotaSettingsProperty(limit=int(quota), period="DAY") if quota else None,
    )
    plan.add_override("DependsOn", ["RestAPIapiStage"])  # the stage SAM creates for the API
    apigw.CfnUsagePlanKey(
        scope, f"UsagePlanKey{slug}", key_id=key.ref, key_type="API_KEY", usage_plan_id=plan.ref
    )
