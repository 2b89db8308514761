"""Where vectors and BM25 live: an OpenSearch Serverless vector collection (default) or a managed domain, and
the roles that may use it."""

from __future__ import annotations

import json

from aws_cdk import RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_opensearchserverless as aoss
from aws_cdk import aws_opensearchservice as opensearch
from constructs import Construct

from infra.config import StackConfig
from infra.functions import allow


def search(scope: Construct, cfg: StackConfig, roles: list[iam.Role]) -> tuple[str, str]:
    """OpenSearch Serverless vector collection (default) or a managed domain; returns (url, SigV4 service)."""
    if cfg.opensearch == "managed":
        return _domain(scope, roles)
    return _collection(scope, cfg, roles)


def _domain(scope: Construct, roles: list[iam.Role]) -> tuple[str, str]:
    domain = opensearch.Domain(
        scope,
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
        allow(
            role,
            "Search",
            ["es:ESHttpGet", "es:ESHttpPost", "es:ESHttpPut", "es:ESHttpDelete", "es:ESHttpHead"],
            [domain.domain_arn, f"{domain.domain_arn}/*"],
        )
    return f"https://{domain.domain_endpoint}", "es"


def _collection(scope: Construct, cfg: StackConfig, roles: list[iam.Role]) -> tuple[str, str]:
    name = f"{cfg.name}-vectors"[:32]
    rules = [{"ResourceType": "collection", "Resource": [f"collection/{name}"]}]
    encryption = _security_policy(scope, cfg, "encryption", {"Rules": rules, "AWSOwnedKey": True})
    network = _security_policy(scope, cfg, "network", [{"Rules": rules, "AllowFromPublic": True}])
    collection = aoss.CfnCollection(scope, "Search", name=name, type="VECTORSEARCH")
    collection.node.add_dependency(encryption, network)
    _data_access(scope, cfg, name, roles)
    for role in roles:
        allow(role, "Search", ["aoss:APIAccessAll"], [collection.attr_arn])
    return collection.attr_collection_endpoint, "aoss"


def _data_access(scope: Construct, cfg: StackConfig, collection: str, roles: list[iam.Role]) -> None:
    """The collection's data policy: the roles may create, read and write its indexes."""
    aoss.CfnAccessPolicy(
        scope,
        "SearchAccess",
        name=f"{cfg.name}-access"[:32],
        type="data",
        policy=json.dumps(
            [
                {
                    "Rules": [
                        {
                            "ResourceType": "index",
                            "Resource": [f"index/{collection}/*"],
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
                            "Resource": [f"collection/{collection}"],
                            "Permission": ["aoss:DescribeCollectionItems"],
                        },
                    ],
                    "Principal": [role.role_arn for role in roles],
                }
            ]
        ),
    )


def _security_policy(scope: Construct, cfg: StackConfig, kind: str, policy: object) -> aoss.CfnSecurityPolicy:
    short = {"encryption": "enc", "network": "net"}[kind]
    return aoss.CfnSecurityPolicy(
        scope,
        f"Search{kind.capitalize()}",
        name=f"{cfg.name}-{short}"[:32],
        type=kind,
        policy=json.dumps(policy),
    )
