"""The HTTP API through Chalice's test client, on the example corpus indexed with the real model."""

from __future__ import annotations

import json

import pytest

from chalicelib.answer.confidence import shipped
from tests.conftest import N_EXAMPLES


def post(client, path: str, body: object, raw: bytes | None = None):  # type: ignore[no-untyped-def]
    data = raw if raw is not None else json.dumps(body).encode()
    return client.http.post(path, headers={"Content-Type": "application/json"}, body=data)


def test_health(client):
    r = client.http.get("/health")
    assert r.status_code == 200 and r.json_body == {"status": "ok"}


@pytest.mark.slow
def test_retrieve_returns_items_with_contract_fields(client):
    r = post(client, "/retrieve", {"query": "¿Cuánto cuesta Faro?", "top_k": 3})
    assert r.status_code == 200
    body = r.json_body
    assert body["items"][0]["title"] == "Planes de Faro" and len(body["items"]) == 3
    for field in (
        "chunk_id",
        "document_id",
        "source_id",
        "title",
        "section_title",
        "content",
        "score",
        "url",
        "lang",
        "product",
        "content_type",
        "line_start",
        "line_end",
    ):
        assert field in body["items"][0]
    assert body["timings_ms"]["total"] > 0 and body["intent"] == "specific"


@pytest.mark.slow
def test_answer_returns_citations(client):
    r = post(client, "/answer", {"query": "How much does Marea cost?"})
    assert r.status_code == 200
    body = r.json_body
    assert body["extractive"] is True and body["citations"] and "$" in body["answer"]
    # how sure the answer is, and answered exactly when that reaches the configured threshold
    assert 0 <= body["confidence"] <= 1 and body["answered"] is (body["confidence"] >= shipped().threshold)


@pytest.mark.slow
def test_stats_counts_by_facet(client):
    body = client.http.get("/stats").json_body
    assert body["documents"]["indexed"] == N_EXAMPLES
    assert set(body["by_lang"]) == {"es", "en"} and {"faro", "marea", "ancla"} <= set(body["by_product"])
    assert "pricing" in body["by_content_type"] and body["by_source"] == {"examples": body["chunks"]}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "x", "top_k": 0}, "top_k"),
        ({"query": "x", "lang": "fr"}, "lang"),
        ({"query": "x", "intent": "everything"}, "intent"),
        ({"query": "x", "unknown": 1}, "unknown"),
        ({"query": "x", "filters": {"colour": "red"}}, "filters.colour"),
        ({"query": 42}, "query"),
        ({}, "query"),
    ],
)
def test_invalid_bodies_get_400_naming_the_field(client, body, field):
    r = post(client, "/retrieve", body)
    assert r.status_code == 400
    assert r.json_body["code"] == "invalid_input" and r.json_body["field"] == field
    assert field.split(".")[0] in r.json_body["message"]


def test_malformed_json_and_non_objects_get_400(client):
    assert post(client, "/retrieve", None, raw=b"{not json").status_code == 400
    assert post(client, "/answer", ["a list"]).status_code == 400


def test_oversized_body_gets_413(client):
    r = post(client, "/retrieve", {"query": "x" * 100_000})
    assert r.status_code == 413 and r.json_body["code"] == "payload_too_large"


def test_unknown_routes_get_a_json_404(client):
    for path in ("/nope", "/v2/retrieve", "/a/b/c"):
        r = client.http.get(path)
        assert r.status_code == 404 and r.json_body["code"] == "not_found"
    assert post(client, "/search", {"query": "x"}).status_code == 404
