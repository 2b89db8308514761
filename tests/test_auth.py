"""API keys and scopes: no key 401, unknown key 403, over the rate 429, and a key never sees another scope."""

from __future__ import annotations

import json
import shutil

import pytest
from chalice.test import Client

import app as sabio_app
from chalicelib.access.keys import key_digest
from chalicelib.composition import Container
from chalicelib.settings import Settings
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.slow
SECRET = (
    "---\ntitle: Salarios del equipo B\ncritical: true\ntags: [secret]\n---\n# Salarios del equipo B\n\n"
    "Documento confidencial: los salarios del equipo B suben un cuatro por ciento en 2027.\n"
)
KEYS = {
    key_digest("key-a"): {"name": "team-a", "source_ids": ["examples"]},
    key_digest("key-ref"): {"name": "pricing-only", "source_refs": ["precios/"]},
    key_digest("key-tags"): {"name": "public-only", "tags": ["public"]},
    "admin-plain-key": {"name": "admin", "all_documents": True},
    key_digest("key-slow"): {"name": "slow", "rate_per_minute": 2},
}


@pytest.fixture(scope="module")
def client(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("auth")
    corpus = root / "examples"
    for part in ("precios", "faq", "internal"):
        shutil.copytree(EXAMPLES / part, corpus / part)
    team_b = root / "team-b"
    team_b.mkdir()
    (team_b / "salarios.md").write_text(SECRET, encoding="utf-8")
    container = Container(
        Settings(store_path=str(root / "s.db"), auth="keys", api_keys=KEYS, default_readers="public")
    )
    container.ingestor().index_folder(corpus, "examples")
    container.ingestor().index_folder(team_b, "team-b")
    sabio_app._container = container
    with Client(sabio_app.app) as c:
        yield c
    sabio_app._container = None


def call(client, path: str, body: dict | None = None, key: str | None = None):  # type: ignore[no-untyped-def]
    headers = {"Content-Type": "application/json", **({"x-api-key": key} if key else {})}
    if body is None:
        return client.http.get(path, headers=headers)
    return client.http.post(path, headers=headers, body=json.dumps(body))


def everything_in(body: dict) -> str:
    """The whole response but the echo of the request's own scope."""
    return json.dumps({k: v for k, v in body.items() if k != "scope"}, ensure_ascii=False)


def test_health_is_open_and_everything_else_needs_a_key(client):
    assert call(client, "/health").status_code == 200
    for path, body in (
        ("/retrieve", {"query": "precio"}),
        ("/answer", {"query": "precio"}),
        ("/context", {"query": "precio"}),
        ("/stats", None),
        ("/insights", None),
        ("/feedback", {"query_id": "x", "helpful": True}),
        ("/openapi.json", None),
        ("/chunks/any", None),
    ):
        r = call(client, path, body)
        assert r.status_code == 401 and r.json_body["code"] == "unauthorized", path
        assert call(client, path, body, key="not-a-key").status_code == 403, path
    bearer = client.http.post(
        "/retrieve",
        headers={"Content-Type": "application/json", "Authorization": "Bearer key-a"},
        body=json.dumps({"query": "precio"}),
    )
    assert bearer.status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"query": "salarios del equipo B", "scope": {"source_id": "team-b"}},
        {"query": "salarios del equipo B", "scope": {"source_id": ["examples", "team-b"]}, "lang": "all"},
        {"query": "salarios confidenciales", "filters": {"tags": ["secret"]}},
        {"query": "salarios confidenciales", "scope": {"tags": ["secret"]}},
        {"query": "salarios confidenciales del equipo B", "lang": "all", "top_k": 50},
        {"intent": "bootstrap", "top_k": 50},
        {"intent": "bootstrap", "scope": {"source_id": "team-b"}},
    ],
)
def test_a_key_scoped_to_a_source_never_sees_another(client, body):
    for path in ("/retrieve", "/context", *(["/answer"] if body.get("query") else [])):
        r = call(client, path, body, key="key-a")
        assert r.status_code == 200, r.body
        text = everything_in(r.json_body)
        assert (
            "team-b" not in text and "Salarios del equipo B" not in text and "cuatro por ciento" not in text
        )
        assert all(i["source_id"] == "examples" for i in r.json_body["items"])


def test_the_same_questions_do_reach_team_b_with_an_unrestricted_key(client):
    r = call(client, "/retrieve", {"query": "salarios del equipo B", "lang": "all"}, key="admin-plain-key")
    assert r.json_body["items"][0]["source_id"] == "team-b"
    boot = call(client, "/retrieve", {"intent": "bootstrap"}, key="admin-plain-key").json_body
    assert any(p["title"] == "Salarios del equipo B" for p in boot["critical_points"])


def test_prefix_and_tag_scoped_keys(client):
    items = call(
        client,
        "/retrieve",
        {"query": "preguntas frecuentes datos", "lang": "all", "top_k": 20},
        key="key-ref",
    ).json_body["items"]
    assert items and all(i["title"] in ("Planes de Faro", "Marea pricing", "Precios de Ancla") for i in items)
    items = call(
        client, "/retrieve", {"query": "precio plan", "lang": "all", "top_k": 20}, key="key-tags"
    ).json_body["items"]
    assert items and {i["title"] for i in items} <= {"Marea pricing", "Precios de Ancla"}


def test_the_page_is_open_but_a_chunk_is_read_only_by_keys_that_reach_it(client):
    page = client.http.get("/")
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert b"salarios" not in page.body.lower()  # the page holds no data; its calls carry the key
    found = call(
        client, "/retrieve", {"query": "salarios del equipo B", "lang": "all"}, key="admin-plain-key"
    )
    secret = found.json_body["items"][0]["chunk_id"]
    path = "/chunks/" + secret.replace(":", "%3A")  # as a browser encodes it (API Gateway decodes it first)
    assert call(client, path).status_code == 401
    for key in ("key-a", "key-ref", "key-tags"):
        r = call(client, path, key=key)
        assert r.status_code == 404 and "cuatro" not in r.body.decode(), key
    chunk = call(client, path, key="admin-plain-key").json_body
    assert chunk["source_id"] == "team-b" and "cuatro por ciento" in chunk["content"]
    assert chunk["enrichment"]["source"] == "heuristic" and chunk["enrichment"]["keywords"]
    assert chunk["critical"] is True and chunk["key"] == "salarios.md"
    assert call(client, "/chunks/" + secret, key="admin-plain-key").json_body == chunk


def test_stats_only_for_unrestricted_keys(client):
    assert call(client, "/stats", key="key-a").status_code == 403
    stats = call(client, "/stats", key="admin-plain-key")
    assert stats.status_code == 200 and set(stats.json_body["by_source"]) == {"examples", "team-b"}


def test_over_the_rate_limit_gets_429(client):
    codes = [call(client, "/retrieve", {"query": "precio"}, key="key-slow").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    assert call(client, "/retrieve", {"query": "precio"}, key="key-a").status_code == 200  # per key
