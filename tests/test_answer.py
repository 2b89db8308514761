"""Extractive answers: the best sentences of the top chunks, each citation quoting its chunk verbatim."""

from __future__ import annotations

import pytest

from chalicelib.models import RetrieveRequest
from chalicelib.quotes import candidate_sentences


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "must_contain"),
    [
        ("¿Cuánto cuesta Faro?", "€"),
        ("Where is my data stored?", "Frankfurt"),
        ("How do I restore a single table with Ancla?", "new database"),
    ],
)
def test_answer_quotes_the_chunks_it_cites(examples_container, query, must_contain):
    response = examples_container.answerer.answer(RetrieveRequest(query=query))
    assert response.extractive and response.answered_by == "extractive"
    assert must_contain in response.answer
    contents = {i.chunk_id: i.content for i in response.items}
    assert response.citations
    for citation in response.citations:
        assert citation.quote in contents[citation.chunk_id]  # verbatim, in a returned chunk
        assert f"[{citation.n}]" in response.answer


@pytest.mark.slow
def test_no_results_gives_an_honest_answer_in_the_question_language(examples_container):
    response = examples_container.answerer.answer(
        RetrieveRequest(query="¿Qué es Faro?", scope={"source_id": "nobody"})
    )
    assert response.citations == [] and response.answer.startswith("No he encontrado")


def test_candidate_sentences_skip_code_and_headings_and_stay_verbatim():
    content = (
        "# Title\n\nFirst sentence here is long. Second one is here too!\n\n```bash\nrm -rf build now\n```\n\n"
        "- A bullet item with words\n\n| Plan | Price |\n|---|---|\n| Esencial | 19 € al mes |"
    )
    got = candidate_sentences(content)
    assert got == [
        "First sentence here is long.",
        "Second one is here too!",
        "A bullet item with words",
        "Esencial | 19 € al mes",
    ]
    assert all(s in content for s in got)
