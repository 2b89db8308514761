"""No request field is accepted and ignored: every field of every request model (walked, nested ones too)
has a case here in which changing that field alone changes what the caller gets back. A new field fails
this test until it is given one."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from chalicelib.composition import Container
from chalicelib.errors import SabioError
from chalicelib.models import api
from chalicelib.models.api import FeedbackRequest, RetrieveRequest
from chalicelib.settings import Settings
from tests.test_feedback import copy_store

QUESTION = "¿Cuánto cuesta Marea?"


def request_models() -> list[type[BaseModel]]:
    """The models a caller sends: strict, closed to unknown fields."""
    return [
        m
        for _, m in inspect.getmembers(api, inspect.isclass)
        if issubclass(m, BaseModel) and m.model_config.get("extra") == "forbid"
    ]


def field_paths(model: type[BaseModel], prefix: str = "") -> set[str]:
    out = set()
    for name, info in model.model_fields.items():
        nested = info.annotation if inspect.isclass(info.annotation) else None
        if nested is not None and issubclass(nested, BaseModel):
            out |= field_paths(nested, f"{prefix}{name}.")
        else:
            out.add(f"{prefix}{name}")
    return out


def outcome(container: Container, body: dict[str, Any]) -> Any:
    """What a caller of /retrieve sees: the response, or the error it is refused with."""
    try:
        return container.retrieval.retrieve(RetrieveRequest.model_validate(body), None).model_dump(
            exclude={"timings_ms"}
        )
    except SabioError as exc:
        return exc.to_dict()


def items(response: Any) -> list[tuple[str, ...]]:
    return [(i["chunk_id"], i["product"], i["content_type"], i["category"]) for i in response["items"]]


# each retrieve field: (the base request, the same with that one field changed)
def retrieve_cases(container: Container) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    base = {"query": QUESTION, "top_k": 5}
    top = outcome(container, {**base, "top_k": 10})["items"]
    other = next(i for i in top if i["product"] != top[0]["product"])  # a value the filters can pick
    return {
        "query": (base, {**base, "query": "How do I restore a database to a point in time?"}),
        "intent": (base, {**base, "intent": "bootstrap"}),
        "mode": ({**base, "mode": "documental"}, {**base, "mode": "codigo"}),
        "lang": ({**base, "lang": "es"}, {**base, "lang": "en"}),
        "top_k": (base, {**base, "top_k": 2}),
        "hyde": (base, {**base, "hyde": True}),
        "rerank": (base, {**base, "rerank": True}),
        "scope.source_id": (base, {**base, "scope": {"source_id": ["elsewhere"]}}),
        "scope.source_ref": (base, {**base, "scope": {"source_ref": "docs/"}}),
        "scope.tags": (base, {**base, "scope": {"tags": ["pricing"]}}),
        "filters.product": (base, {**base, "filters": {"product": [other["product"]]}}),
        "filters.content_type": (base, {**base, "filters": {"content_type": [other["content_type"]]}}),
        "filters.category": (base, {**base, "filters": {"category": ["Documentación"]}}),
        "filters.tags": (base, {**base, "filters": {"tags": ["pricing"]}}),
    }


def test_every_request_model_field_is_walked():
    walked = {
        f"{m.__name__}.{p}"
        for m in request_models()
        if m in (RetrieveRequest, FeedbackRequest)
        for p in field_paths(m)
    }
    nested = {m.__name__ for m in request_models()} - {
        "RetrieveRequest",
        "FeedbackRequest",
        "Scope",
        "Filters",
    }
    assert not nested, f"request models with no case here: {nested}"
    cases = {f"RetrieveRequest.{k}" for k in (*RETRIEVE_FIELDS, *ROUTE_FIELDS)} | {
        f"FeedbackRequest.{k}" for k in FEEDBACK_FIELDS
    }
    assert walked == cases, (walked - cases, cases - walked)


RETRIEVE_FIELDS = (
    "query",
    "intent",
    "mode",
    "lang",
    "top_k",
    "hyde",
    "rerank",
    "scope.source_id",
    "scope.source_ref",
    "scope.tags",
    "filters.product",
    "filters.content_type",
    "filters.category",
    "filters.tags",
)


@pytest.mark.parametrize("field", RETRIEVE_FIELDS)
def test_changing_one_retrieve_field_changes_what_the_caller_gets(examples_container, field):
    base, changed = retrieve_cases(examples_container)[field]
    before, after = outcome(examples_container, base), outcome(examples_container, changed)
    assert before != after, field
    if "items" in before and "items" in after and field not in ("intent", "mode", "lang", "hyde"):
        assert items(before) != items(after), field  # the results themselves move, not only a label


ROUTE_FIELDS = ("stream",)  # read by the route, not the retriever: what /answer sends back changes


def test_changing_stream_changes_what_answer_sends_back(examples_container):
    import json

    from chalice.test import Client

    import app as sabio_app

    sabio_app._container = examples_container
    try:
        with Client(sabio_app.app) as client:
            replies = [
                client.http.post(
                    "/answer",
                    body=json.dumps({"query": QUESTION, "stream": stream}).encode(),
                    headers={"Content-Type": "application/json"},
                )
                for stream in (False, True)
            ]
    finally:
        sabio_app._container = None
    assert [r.status_code for r in replies] == [200, 200]
    plain, streamed = replies
    assert "answer" in json.loads(plain.body) and "text/event-stream" not in plain.headers.values()
    assert streamed.headers["Content-Type"] == "text/event-stream" and streamed.body.startswith(b"event: ")


FEEDBACK_FIELDS = ("query_id", "helpful", "chunk_ids", "comment")


def test_changing_one_feedback_field_changes_what_is_recorded(examples_container, tmp_path):
    container = Container(
        Settings(store_path=copy_store(examples_container, tmp_path / "s.db"), query_log=True)
    )
    asked = [
        container.usage.retrieve(RetrieveRequest(query=q), None) for q in (QUESTION, "¿Cuánto cuesta Faro?")
    ]
    first, second = (r.query_id for r in asked)
    chunk = asked[0].items[-1].chunk_id
    base: dict[str, Any] = {"query_id": first, "helpful": True}
    changes: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "query_id": lambda b: {**b, "query_id": second},
        "helpful": lambda b: {**b, "helpful": False},
        "chunk_ids": lambda b: {**b, "chunk_ids": [chunk]},
        "comment": lambda b: {**b, "comment": "faltan los precios anuales"},
    }
    assert set(changes) == set(FEEDBACK_FIELDS)
    for field, change in changes.items():
        records = []
        for body in (base, change(base)):
            container.usage.feedback(FeedbackRequest.model_validate(body), None)
            records.append(
                container.query_log.feedback(0)[-1].model_dump(exclude={"created_at", "expires_at"})
            )
        assert records[0] != records[1], field
