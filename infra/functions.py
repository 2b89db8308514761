"""How the stack's functions are built: a role each with exact actions on exact resources, and the indexer's
container image that every function but the API runs."""

from __future__ import annotations

from pathlib import Path

from aws_cdk import Duration
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

ROOT = Path(__file__).resolve().parent.parent
IMAGE_EXCLUDE = [
    ".venv",
    ".git",
    ".sabio",
    "bench",
    "datasets",  # evaluation data: out of the build context, so editing a set rebuilds no image
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


def role(scope: Construct, name: str) -> iam.Role:
    return iam.Role(
        scope,
        name,
        assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
        managed_policies=[
            iam.ManagedPolicy.from_aws_managed_policy_name("service-role/AWSLambdaBasicExecutionRole")
        ],
    )


def allow(role: iam.Role, sid: str, actions: list[str], resources: list[str]) -> None:
    role.add_to_policy(iam.PolicyStatement(sid=sid, actions=actions, resources=resources))


def image_function(
    scope: Construct,
    name: str,
    role: iam.Role,
    memory_mb: int,
    env: dict[str, str],
    handler: str | None = None,
) -> lambda_.DockerImageFunction:
    """A function of the indexer's image (its own handler, if not the SQS one), 15 minutes at most."""
    return lambda_.DockerImageFunction(
        scope,
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
