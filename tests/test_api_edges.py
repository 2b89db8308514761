"""The API's edges: every error in Sabio's shape, strict types, deep nesting, and fuzzed bodies never 5xx."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import app as sabio_app
from chalicelib.models.api import RetrieveRequest
from chalicelib.settings import Settings

JSON = {"Content-Type": "application/json"}


def assert_sabio_error(r, status: int, code: str) -> None:  # type: ignore[no-untyped-def]
    assert r.status_code == status, (r.status_code, r.body)
    assert set(r.json_body) <= {"code", "message", "field"} and r.json_body["code"] == code, r.json_body
    assert r.json_body["message"]


def test_a_wrong_method_is_a_405_in_sabios_shape(client):
    assert_sabio_error(client.http.get("/retrieve"), 405, "method_not_allowed")
    assert_sabio_error(client.http.post("/health", headers=JSON, body=b"{}"), 405, "method_not_allowed")


def test_a_body_that_is_not_json_by_content_type_is_a_415(client):
    r = client.http.post("/retrieve", headers={"Content-Type": "text/plain"}, body=b"hola")
    assert_sabio_error(r, 415, "unsupported_media_type")


def test_a_crash_is_a_500_in_sabios_shape_without_the_traceback(client, monkeypatch):
    def boom(_request: object) -> None:
        raise RuntimeError("secret internals")

    broken = SimpleNamespace(
        authenticator=None, settings=Settings(), retriever=SimpleNamespace(retrieve=boom)
    )
    monkeypatch.setattr(sabio_app, "container", lambda: broken)
    r = client.http.post("/retrieve", headers=JSON, body=json.dumps({"query": "hola"}).encode())
    assert_sabio_error(r, 500, "internal_error")
    assert "secret" not in r.body.decode()


def test_deeply_nested_json_is_a_400_not_a_crash(client):
    deep = b'{"query": "x", "filters": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    assert len(deep) < Settings().max_body_bytes
    r = client.http.post("/retrieve", headers=JSON, body=deep)
    assert_sabio_error(r, 400, "invalid_input")
    assert "recursion" in r.json_body["message"] or "nest" in r.json_body["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "x", "top_k": True}, "top_k"),
        ({"query": "x", "top_k": "5"}, "top_k"),
        ({"query": "x", "top_k": 2.0}, "top_k"),
        ({"query": "x", "hyde": 1}, "hyde"),
        ({"query": "x", "rerank": "yes"}, "rerank"),
        ({"query": ["x"]}, "query"),
        ({"query": "x", "scope": {"source_id": 7}}, "scope.source_id"),
    ],
)
def test_types_are_strict(client, body, field):
    r = client.http.post("/retrieve", headers=JSON, body=json.dumps(body).encode())
    assert_sabio_error(r, 400, "invalid_input")
    assert r.json_body["field"].startswith(field)


@pytest.mark.parametrize("query", ["\u0000", "?!¿¡ ...", "\u0000\u0001 \t", "—", "🙂🙂"])
def test_a_question_without_letters_or_digits_is_a_400(client, query):
    for path in ("/retrieve", "/answer"):
        r = client.http.post(path, headers=JSON, body=json.dumps({"query": query}).encode())
        assert_sabio_error(r, 400, "invalid_input")
        assert r.json_body["field"] == "query"


def test_control_characters_are_dropped_from_a_question():
    assert RetrieveRequest.model_validate({"query": "\u0000¿Cuánto\u0007 cuesta?"}).query == "¿Cuánto cuesta?"


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=12,
)
_fields = list(RetrieveRequest.model_fields)
_confused = st.dictionaries(st.sampled_from(_fields), _json_values, max_size=4)


def from_schema(schema: dict, defs: dict | None = None) -> st.SearchStrategy:  # type: ignore[type-arg]
    """Bodies that follow a (pydantic) JSON schema: objects, anyOf, enums, strings, bounded integers."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return from_schema(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    if "anyOf" in schema:
        return st.one_of([from_schema(s, defs) for s in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        props = {k: from_schema(v, defs) for k, v in schema.get("properties", {}).items()}
        return st.fixed_dictionaries({}, optional=props)
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {}), defs), max_size=3)
    if kind == "string":
        return st.text(max_size=min(schema.get("maxLength", 60), 60))
    if kind == "integer":
        return st.integers(schema.get("minimum", -(2**40)), schema.get("maximum", 2**40))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return _json_values


_valid = from_schema(RetrieveRequest.model_json_schema())


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=st.one_of(_valid, _confused), path=st.sampled_from(["/retrieve", "/answer", "/context"]))
def test_fuzzed_bodies_never_get_a_5xx(client, body, path):
    r = client.http.post(path, headers=JSON, body=json.dumps(body).encode())
    assert r.status_code < 500, (body, r.body[:500])
    if r.status_code >= 400:
        assert set(r.json_body) <= {"code", "message", "field"} and r.json_body["code"], r.json_body


def test_a_request_is_read_never_rewritten():
    """What the caller asked for stays as asked: the caller's access travels beside the request."""
    request = RetrieveRequest.model_validate({"query": "¿Cuánto cuesta Faro?", "scope": {"source_id": ["a"]}})
    with pytest.raises(Exception, match="frozen"):
        request.lang = "es"  # type: ignore[misc]
    with pytest.raises(Exception, match="frozen"):
        request.scope.source_id = ["b"]  # type: ignore[misc]
    assert request.model_copy(update={"lang": "es"}).lang == "es" and request.lang == "auto"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"query": "¿?"}, "query: a question needs at least one letter or digit"),
        ({"query": "x", "lang": "fr"}, "lang: lang must be one of auto, es, en, pt, all"),
        # a registered language this server does not use (SABIO_LANGUAGES=es,en)
        (
            {"query": "x", "lang": "pt"},
            "lang 'pt' is not a language of this server; use auto, all or one of es, en",
        ),
    ],
)
def test_a_refused_value_says_why_in_plain_words(client, body, message):
    r = client.http.post("/retrieve", headers=JSON, body=json.dumps(body).encode())
    assert r.status_code == 400 and r.json_body == {
        "code": "invalid_input",
        "message": message,
        "field": "lang" if "lang" in body else "query",
    }


def test_a_body_that_is_not_utf8_is_named_so(client):
    """Bytes that are no UTF-8 were told "invalid unicode code point ... surrogate pair"."""
    r = client.http.post("/retrieve", headers=JSON, body=b'{"query": "\xff\xfe"}')
    assert_sabio_error(r, 400, "invalid_input")
    assert r.json_body["message"] == "body is not valid UTF-8: byte 0xff at offset 11 (send JSON as UTF-8)"


@pytest.mark.parametrize("value", [5, True, {"a": 1}])
def test_a_list_field_says_it_takes_a_string_or_a_list_of_strings(client, value):
    """A string is accepted where a list is (one source id): "should be a valid array" said otherwise."""
    r = client.http.post(
        "/retrieve", headers=JSON, body=json.dumps({"query": "x", "scope": {"source_id": value}}).encode()
    )
    assert_sabio_error(r, 400, "invalid_input")
    assert r.json_body["message"] == "scope.source_id: should be a string or a list of strings"


def test_a_control_character_between_words_parts_them():
    """``hola\\u0000mundo`` was searched as one word, ``holamundo``."""
    assert RetrieveRequest.model_validate({"query": "hola\u0000mundo"}).query == "hola mundo"
    assert RetrieveRequest.model_validate({"query": "in\u00adformación"}).query == "información"


@pytest.mark.parametrize("headers", [{}, {"Content-Type": "application/x-www-form-urlencoded"}])
def test_a_body_not_declared_as_json_is_a_415_either_way(client, headers):
    """Without a Content-Type the body was read as JSON, while a wrong one was a 415: both are refused
    alike, and the message says what to send."""
    r = client.http.post("/retrieve", headers=headers, body=json.dumps({"query": "hola"}).encode())
    assert_sabio_error(r, 415, "unsupported_media_type")
    assert "Content-Type: application/json" in r.json_body["message"]
