"""LLM query rewriting against the local OpenAI-compatible test server, on the example corpus (real model,
real SQLite): a short question is expanded, a multi-part one split and each part found, a clear one left
alone, and a reply that is prose, slow or missing searches the question alone and says why."""

from __future__ import annotations

import json
import time

import pytest

from chalicelib.composition import Container
from chalicelib.models.api import RetrieveRequest
from chalicelib.settings import Settings
from tests.llm_server import LLMTestServer, Reply


@pytest.fixture(scope="module")
def llm():
    with LLMTestServer() as server:
        yield server


def _container(examples_container: Container, **settings: object) -> Container:
    return Container(Settings(store_path=examples_container.settings.store_path, **settings))


def _rewriting(examples_container: Container, llm: LLMTestServer, **settings: object) -> Container:
    return _container(
        examples_container, retrieval_rewrite=True, llm_base_url=llm.base_url, llm_max_retries=0, **settings
    )


def _ids(container: Container, question: str) -> list[str]:
    return [i.chunk_id for i in container.retriever.retrieve(RetrieveRequest(query=question), None).items]


def test_a_multi_part_question_is_split_and_each_part_is_found(examples_container, llm):
    question = "¿Qué hago si Faro no recibe correos? ¿Cómo restauro una base de datos?"
    parts = ["¿Qué hago si Faro no recibe correos?", "¿Cómo restauro una base de datos de Ancla?"]
    plain = _container(examples_container).retriever.retrieve(RetrieveRequest(query=question), None)
    plain_ancla = [i.product for i in plain.items].count("ancla")  # the first part fills most of the list
    llm.enqueue(Reply(json.dumps({"queries": parts})))
    response = _rewriting(examples_container, llm).retriever.retrieve(RetrieveRequest(query=question), None)
    assert response.rewrite is not None and response.rewrite.used and response.rewrite.kind == "multi-part"
    assert response.rewrite.queries == parts and response.applied["rewrites"] == " | ".join(parts)
    assert {"faro", "ancla"} <= {i.product for i in response.items}
    assert [i.product for i in response.items].count("ancla") > plain_ancla  # the second part gets its own
    assert response.rewrite.usage["prompt_tokens"] > 0 and "rewrite" in response.timings_ms


def test_a_short_question_is_expanded_and_the_cost_is_counted_in_the_answer(examples_container, llm):
    llm.enqueue(Reply(json.dumps({"queries": ["¿Cómo funcionan las automatizaciones de Marea?"]})))
    answer = _rewriting(examples_container, llm).answerer.answer(
        RetrieveRequest(query="Marea automatizar"), None
    )
    assert answer.rewrite is not None and answer.rewrite.kind == "short" and answer.rewrite.used
    assert answer.usage["prompt_tokens"] >= answer.rewrite.usage["prompt_tokens"] > 0


def test_a_clear_single_question_is_not_sent_to_the_llm(examples_container, llm):
    before = len(llm.requests)
    question = "How do I restore a database to a point in time after a mistake?"
    response = _rewriting(examples_container, llm).retriever.retrieve(RetrieveRequest(query=question), None)
    assert response.rewrite is None and len(llm.requests) == before


@pytest.mark.parametrize(
    ("reply", "reason"),
    [(Reply("Here are better questions: ..."), "not a list"), (Reply("{}", delay_s=3.0), "timeout")],
)
def test_a_failed_rewrite_searches_the_question_alone_and_says_why(examples_container, llm, reply, reason):
    question = "Faro correos"
    plain = _ids(_container(examples_container), question)
    llm.enqueue(reply)
    started = time.monotonic()
    response = _rewriting(examples_container, llm, rewrite_budget_s=0.4).retriever.retrieve(
        RetrieveRequest(query=question), None
    )
    assert time.monotonic() - started < 0.4 + 1.5
    assert [i.chunk_id for i in response.items] == plain and "rewrites" not in response.applied
    assert (
        response.rewrite is not None
        and not response.rewrite.used
        and reason in (response.rewrite.reason or "")
    )


def test_without_an_llm_rewriting_says_so(examples_container):
    response = _container(examples_container, retrieval_rewrite=True).retriever.retrieve(
        RetrieveRequest(query="Faro correos"), None
    )
    assert response.rewrite is not None and response.rewrite.reason == "no LLM configured"
