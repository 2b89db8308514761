"""What the stack puts in each function's environment: one pure function, so the deployed-shape tests
(tests/test_deployed_shape.py) import the packaged API and indexer with exactly what AWS would give them."""

from __future__ import annotations

import json
from typing import Any


def runtime(*, table: str, search_url: str, search_service: str, prefix: str, region: str) -> dict[str, str]:
    """Both functions: chunks in DynamoDB, vectors and BM25 in OpenSearch (SigV4), no SQLite anywhere."""
    return {
        "SABIO_CHUNK_STORE": "dynamodb",
        "SABIO_DYNAMODB_TABLE": table,
        "SABIO_VECTOR_INDEX": "opensearch",
        "SABIO_OPENSEARCH_URL": search_url,
        "SABIO_OPENSEARCH_AUTH": "sigv4",
        "SABIO_OPENSEARCH_SERVICE": search_service,
        "SABIO_OPENSEARCH_PREFIX": prefix,
        "SABIO_AWS_REGION": region,
    }


def indexer(base: dict[str, str], source_map: dict[str, str]) -> dict[str, str]:
    """The indexer: which bucket prefix is which source (``{"<bucket>/<prefix>": "<source id>"}``)."""
    return {**base, "SABIO_SOURCE_MAP": json.dumps(source_map) if source_map else "{}"}


def permissions(
    identity: dict[str, str], default_readers: str, source_readers: dict[str, str]
) -> dict[str, str]:
    """Both functions: who reads documents that name no readers (the indexer stores it with each chunk),
    and the identity provider whose JWTs name the user (the API checks them)."""
    unknown = set(identity) - {
        "issuer",
        "audience",
        "jwks_url",
        "user_claim",
        "groups_claim",
        "groups_required",
    }
    if unknown:
        raise ValueError(f"identity: unknown key(s) {sorted(unknown)}")
    if identity and not identity.get("issuer"):
        raise ValueError("identity needs an issuer")
    env = {"SABIO_DEFAULT_READERS": default_readers, "SABIO_SOURCE_READERS": json.dumps(source_readers)}
    return env | {f"SABIO_JWT_{name.upper()}": str(value) for name, value in identity.items()}


def api(base: dict[str, str], api_keys: dict[str, dict[str, Any]], rerank_model: str = "") -> dict[str, str]:
    """The API: callers need a key (digests only; scopes enforced by Sabio, throttling by API Gateway); a
    question over documents in another language is translated by Amazon Translate (no Apertium in Lambda);
    with ``rerank_model`` the first stage's candidates are reranked by Amazon Bedrock."""
    env = {
        **base,
        "SABIO_AUTH": "keys",
        "SABIO_API_KEYS": json.dumps(api_keys),
        "SABIO_TRANSLATOR": "amazon",
    }
    if rerank_model:
        env |= {"SABIO_RERANKER": "bedrock", "SABIO_RERANKER_MODEL": rerank_model}
    return env
