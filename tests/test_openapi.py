"""The OpenAPI document is generated, committed and served; fuzzed requests never get a 5xx."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib.openapi import build_openapi, render
from tests.conftest import ROOT

COMMITTED = ROOT / "docs" / "openapi.json"


def test_committed_openapi_document_is_current():
    assert COMMITTED.read_text(encoding="utf-8") == render(), (
        "docs/openapi.json is stale: run `make openapi` and commit it"
    )


def test_document_describes_every_route_and_model():
    doc = build_openapi()
    assert doc["openapi"] == "3.1.0"
    import app as sabio_app

    served = {path for path in sabio_app.app.routes if not path.startswith("/{p1}")}  # not the catch-all 404s
    assert served == set(doc["paths"])
    schemas = doc["components"]["schemas"]
    assert {
        "RetrieveRequest",
        "RetrieveResponse",
        "AnswerResponse",
        "ContextResponse",
        "CriticalPoint",
        "Citation",
        "ErrorBody",
    } <= set(schemas)
    assert schemas["RetrieveRequest"]["additionalProperties"] is False


def test_every_route_is_served_with_the_methods_it_is_listed_with():
    import app as sabio_app
    from chalicelib.routes import ROUTES

    schemas = build_openapi()["components"]["schemas"]
    for route in ROUTES:
        assert set(sabio_app.app.routes[route.path]) == set(route.methods), route.path
        assert {route.body, route.reply} - {None} <= set(schemas), route.path  # every model it names


def test_openapi_is_served(client):
    r = client.http.get("/openapi.json")
    assert r.status_code == 200 and r.json_body == json.loads(render())


@pytest.mark.slow
def test_context_endpoint_returns_a_prompt_ready_context(client):
    r = client.http.post(
        "/context",
        headers={"Content-Type": "application/json"},
        body=json.dumps({"query": "¿Cuánto cuesta Faro?", "top_k": 2}),
    )
    assert r.status_code == 200
    body = r.json_body
    assert body["context"].startswith("[Source 1: Planes de Faro (Precios/faro)")
    assert "Summary:" in body["context"] and body["summary"] and len(body["items"]) == 2


SCHEMAS = build_openapi()["components"]["schemas"]


def from_schema(schema: dict) -> st.SearchStrategy:
    """Values for the JSON Schema subset the OpenAPI document uses (refs, anyOf, enums, objects, arrays)."""
    if "$ref" in schema:
        return st.deferred(lambda: from_schema(SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]))
    if "anyOf" in schema:
        return st.one_of([from_schema(s) for s in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        props = {k: from_schema(v) for k, v in schema.get("properties", {}).items()}
        return st.fixed_dictionaries({}, optional=props)
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {})), max_size=3)
    if kind == "string":
        return st.text(max_size=min(schema.get("maxLength", 80), 80))
    if kind == "integer":
        low, high = schema.get("minimum", -10), schema.get("maximum", 100)
        return st.integers(low - 2, high + 2)  # just outside the bounds too
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return JSON


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
BODIES = from_schema(SCHEMAS["RetrieveRequest"]) | st.dictionaries(
    st.sampled_from(["query", "intent", "mode", "scope", "filters", "lang", "top_k", "hyde", "x"]),
    JSON,
    max_size=5,
)


@pytest.mark.slow
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(path=st.sampled_from(["/retrieve", "/answer", "/context"]), body=BODIES)
def test_no_request_body_produces_a_server_error(client, path, body):
    r = client.http.post(path, headers={"Content-Type": "application/json"}, body=json.dumps(body))
    assert r.status_code < 500, (path, body, r.body[:300])
    # 404: a conversation_id the server never issued to this caller ("no conversation '0'")
    unknown_thread = isinstance(body.get("conversation_id"), str) and r.status_code == 404
    assert r.status_code in (200, 400, 413) or unknown_thread, (path, body, r.status_code)
    if unknown_thread:
        assert r.json_body["message"] == f"no conversation {body['conversation_id']!r}", r.json_body
    if r.status_code == 400:
        assert r.json_body["code"] == "invalid_input" and r.json_body["message"]
