"""Extractive answers: the best sentences of the top chunks, each citation quoting its chunk verbatim."""

from __future__ import annotations

import re

import pytest

from chalicelib.models.api import RetrieveRequest
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
    response = examples_container.answerer.answer(RetrieveRequest(query=query), None)
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
        RetrieveRequest(query="¿Qué es Faro?", scope={"source_id": "nobody"}), None
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


def test_an_initial_does_not_end_a_sentence():
    # a quote cut at "Nicholas E." cited half a sentence and lost the name the answer was about
    content = (
        "The project was led by Nicholas E. Golovin of the NASA. J. R. R. Tolkien wrote it. It is done now."
    )
    assert candidate_sentences(content) == [
        "The project was led by Nicholas E. Golovin of the NASA.",
        "J. R. R. Tolkien wrote it.",
        "It is done now.",
    ]


def test_a_spanish_plural_abbreviation_does_not_end_a_sentence():
    # "RR. HH." cut a sentence in two: an answer quoted "HH. con al menos 15 días de antelación."
    content = (
        "Las solicitudes se hacen en el portal de RR. HH. con al menos 15 días de antelación. "
        "La oficina de EE. UU. cierra en agosto. El plan cuesta 9 EUR. Se renueva cada año."
    )
    assert candidate_sentences(content) == [
        "Las solicitudes se hacen en el portal de RR. HH. con al menos 15 días de antelación.",
        "La oficina de EE. UU. cierra en agosto.",
        "El plan cuesta 9 EUR.",
        "Se renueva cada año.",
    ]


def _answerer(store, embedder):  # type: ignore[no-untyped-def]
    from chalicelib.answer.extractive import ExtractiveAnswerer
    from chalicelib.retrieve.retriever import Retriever

    # the fake embedder's cosines are not calibrated: these tests are about which quotes, not whether
    return ExtractiveAnswerer(Retriever(store, store, embedder), embedder, min_confidence=0.0)


@pytest.mark.parametrize("quote_vectors", [True, False])
def test_an_answer_embeds_only_the_question_when_quote_vectors_were_stored(
    store, fake_embedder, corpus, quote_vectors
):
    from chalicelib.enrichment.vocabulary import Vocabulary
    from chalicelib.ingest.indexer import IngestConfig, Ingestor

    ingest = Ingestor(store, store, fake_embedder, Vocabulary(), IngestConfig(quote_vectors=quote_vectors))
    assert ingest.index_folder(corpus, "examples").ok
    stored = [c for d in store.list_documents("examples") for c in store.document_chunks(d.document_id)]
    assert all((c.quote_vectors is not None) == quote_vectors for c in stored if c.kind == "doc")

    fake_embedder.embedded.clear()
    response = _answerer(store, fake_embedder).answer(
        RetrieveRequest(query="How much does Marea cost?"), None
    )
    assert response.citations
    # with stored quote vectors nothing but the question is embedded (the fake counts document embeddings)
    assert (fake_embedder.embedded == []) is quote_vectors


def test_stored_and_query_time_quote_vectors_pick_the_same_quotes(tmp_path, fake_embedder, corpus):
    from chalicelib.enrichment.vocabulary import Vocabulary
    from chalicelib.ingest.indexer import IngestConfig, Ingestor
    from chalicelib.stores.sqlite import SQLiteStore

    answers = []
    for on in (True, False):
        store = SQLiteStore(tmp_path / f"{on}.db")
        Ingestor(store, store, fake_embedder, Vocabulary(), IngestConfig(quote_vectors=on)).index_folder(
            corpus, "e"
        )
        answerer = _answerer(store, fake_embedder)
        # one document each, so both stores answer from the same chunks (their retrieval differs by design:
        # its sentence evidence uses stored quote vectors only); the quotes chosen must be the same
        # (questions that ask for no particular kind of answer: the fake embedder's cosines pick at random)
        asked = (("¿Qué planes tiene Faro?", "precios/faro"), ("Where is my data stored?", "faq/faq.md"))
        answers.append(
            [
                answerer.answer(RetrieveRequest(query=q, scope={"source_ref": ref}), None).answer
                for q, ref in asked
            ]
        )
    assert answers[0] == answers[1]
    assert all("[1]" in a for a in answers[0])  # both answered, from their document


@pytest.mark.slow
def test_an_answer_carries_every_field_a_retrieve_response_has(examples_container):
    request = RetrieveRequest(query="¿Cuánto cuesta Faro?")
    retrieved = examples_container.retrieval.retrieve(request, None).model_dump()
    answered = examples_container.answerer.answer(request, None).model_dump()
    assert set(retrieved) <= set(answered), set(retrieved) - set(answered)
    assert answered["lang"] == retrieved["lang"] and answered["namespaces"] == retrieved["namespaces"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "every_row"),
    [
        ("¿Cuánto cuesta Faro?", ["19 € / agente / mes", "49 € / agente / mes", "A medida"]),
        ("How much does Marea cost?", ["$15 / month", "$59 / month", "$199 / month"]),
    ],
)
def test_a_price_question_gets_every_row_of_the_table_it_hits(examples_container, query, every_row):
    response = examples_container.answerer.answer(RetrieveRequest(query=query), None)
    for row in every_row:
        assert row in response.answer, (row, response.answer)
    contents = {i.chunk_id: i.content for i in response.items}
    assert all(c.quote in contents[c.chunk_id] for c in response.citations)  # still verbatim


@pytest.mark.slow
@pytest.mark.parametrize(
    "query",
    ["What is the capital of France?", "¿Cuál es la capital de Francia?", "Who won the 2018 World Cup?"],
)
def test_a_question_the_documents_do_not_answer_is_not_answered(examples_container, query):
    # "What is the capital of France?" was answered "In data centres in Frankfurt and Paris. [1]"
    response = examples_container.answerer.answer(RetrieveRequest(query=query), None)
    assert response.answered is False and response.citations == []
    # it found passages (below), just no answer it trusts: it does not say it found nothing
    assert response.answer.startswith(("I did not find an answer to this", "No he encontrado una respuesta"))
    assert response.items  # the nearest passages are still there for who wants them
    # the note says why, in the question's language: the evidence under the threshold, or a name no
    # document mentions ("World Cup")
    assert response.notes[-1].startswith(("Not answered:", "Sin respuesta:")), response.notes


@pytest.mark.slow
def test_the_same_question_is_answered_when_the_threshold_is_off(examples_container):
    from chalicelib.answer.extractive import ExtractiveAnswerer

    lenient = ExtractiveAnswerer(
        examples_container.retriever, examples_container.embedder, min_confidence=0.0
    )
    # a question stopped by the confidence threshold is answered without it: 0 never abstains
    question = RetrieveRequest(query="What is the meaning of life?")
    stopped = examples_container.answerer.answer(question, None)
    assert not stopped.answered and "is under" in stopped.notes[-1], stopped.notes
    response = lenient.answer(question, None)
    assert response.answered and response.citations
    france = examples_container.answerer.answer(RetrieveRequest(query="What is the capital of France?"), None)
    assert not france.answered and "«France»" in france.notes[-1], france.notes  # the name no document has


@pytest.mark.slow
def test_a_confidence_just_under_the_threshold_is_shown_apart_from_it(examples_container):
    from chalicelib.answer.extractive import ExtractiveAnswerer

    question = RetrieveRequest(query="How do I restore a database to a point in time?")
    sure = examples_container.answerer.answer(question, None).confidence
    strict = ExtractiveAnswerer(
        examples_container.retriever, examples_container.embedder, min_confidence=sure + 0.0006
    )
    note = strict.answer(question, None).notes[-1]
    shown, under = re.findall(r"\d\.\d+", note)
    assert float(shown) < float(under), note  # "0.805 is under 0.807", never "0.81 is under 0.81"
    assert "items" not in note  # an API field's name means nothing on the page or in a terminal


@pytest.mark.slow
def test_an_answer_held_back_for_its_confidence_says_it_is_unsure_and_where_the_passage_is(
    examples_container,
):
    from chalicelib.answer.extractive import ExtractiveAnswerer

    strict = ExtractiveAnswerer(
        examples_container.retriever, examples_container.embedder, min_confidence=0.999
    )
    # the price table answers this, surely, but not surely enough for 0.999: the reader is not told the
    # documents hold nothing, but where to look
    held = strict.answer(RetrieveRequest(query="How much does Marea cost?"), None)
    assert not held.answered and held.citations == []
    assert held.answer.startswith("I am not sure the documents answer this"), held.answer
    assert f"“{held.items[0].title}”" in held.answer and "Marea" in held.items[0].title
    spanish = strict.answer(RetrieveRequest(query="¿Cuánto cuesta Faro?"), None)
    assert spanish.answer.startswith("No estoy seguro"), spanish.answer
    # what no document names, or an answer likelier wrong than right, is still "found nothing"
    for query in ("Who won the 2018 World Cup?", "How do I bake sourdough bread?"):
        nothing = strict.answer(RetrieveRequest(query=query), None)
        assert nothing.answer == "I did not find an answer to this in the indexed documents.", (
            query,
            nothing.answer,
        )


@pytest.mark.slow
def test_an_answer_only_the_other_language_holds_is_found(examples_container):
    # the free trial is described only in Spanish ("Los 14 primeros días son gratuitos ..."): the question is
    # also searched translated (lang=auto). With lang=all it is not translated, and its own reading across
    # languages stays under the threshold (0.98 against 1.0): it abstains, saying so, with the passage in items
    response = examples_container.answerer.answer(
        RetrieveRequest(query="How long is the Faro free trial?", lang="all"), None
    )
    assert any("14 primeros días" in i.content for i in response.items[:3])
    for lang in ("auto",):
        response = examples_container.answerer.answer(
            RetrieveRequest(query="How long is the Faro free trial?", lang=lang), None
        )
        assert response.answered, (lang, response.notes)
        assert "14 primeros días" in response.answer, (lang, response.answer)
        assert any("14 primeros días" in c.quote for c in response.citations)
    # and a question in the documents' own language still answers in that language first
    response = examples_container.answerer.answer(RetrieveRequest(query="Where is my data stored?"), None)
    assert response.answered and response.citations[0].quote == "In data centres in Frankfurt and Paris."


def test_the_confidence_threshold_is_a_probability_and_the_retired_evidence_threshold_is_refused_by_name(
    monkeypatch,
):
    from chalicelib.settings import Settings

    assert Settings(answer_min_confidence="0.7").answer_min_confidence == 0.7
    assert Settings().answer_min_confidence is None  # the shipped model's own threshold
    with pytest.raises(ValueError, match="less than or equal to 1"):
        Settings(answer_min_confidence="7")
    with pytest.raises(ValueError, match="SABIO_ANSWER_MIN_CONFIDENCE"):
        Settings(answer_min_evidence="1.0")  # an old configuration is told what replaced it
    monkeypatch.setenv("SABIO_ANSWER_MIN_EVIDENCE", "es=0.9")
    with pytest.raises(ValueError, match="retired"):
        Settings()


def test_a_quote_that_opens_with_a_pronoun_brings_the_sentence_it_points_to(tmp_path, store, fake_embedder):
    # "He is also the oldest quarterback ..." alone does not say who: XQuAD's gold answer is the name before it
    from chalicelib.answer.citing import _anaphoric
    from chalicelib.enrichment.vocabulary import Vocabulary
    from chalicelib.ingest.indexer import Ingestor

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "sb.md").write_text(
        "# Super Bowl 50\n\nThe Broncos won the title with a strong defence and a veteran team. "
        "Peyton Manning became the first quarterback to lead two different teams to the title. "
        "He is also the oldest quarterback ever to play in a Super Bowl, at age 39.\n",
        encoding="utf-8",
    )
    Ingestor(store, store, fake_embedder, Vocabulary()).index_folder(tmp_path / "docs", "s")
    response = _answerer(store, fake_embedder).answer(
        RetrieveRequest(query="oldest quarterback ever to play in a Super Bowl at age 39"), None
    )
    quotes = [c.quote for c in response.citations]
    assert any(q.startswith("He is also the oldest") for q in quotes), quotes
    assert any("Peyton Manning" in q for q in quotes), quotes  # the antecedent comes with it
    assert _anaphoric("Ella fundó la empresa en 1990.", "es") and not _anaphoric("Los planes cambian.", "es")


def test_mkdocs_block_markers_are_never_quoted():
    # FastAPI's docs had "Atajo: /// tip | Consejo" among their quotable sentences
    content = (
        "/// tip | Consejo\n\nUsa variables de entorno siempre que puedas.\n\n///\n\n"
        '!!! warning "Cuidado"\n    No subas nunca el archivo de claves.\n\n'
        "/// note\nNada más que decir aquí hoy.\n///\n\n/// Devuelve el total de la factura del cliente"
    )
    assert candidate_sentences(content) == [
        "Usa variables de entorno siempre que puedas.",
        "No subas nunca el archivo de claves.",
        "Nada más que decir aquí hoy.",
        "/// Devuelve el total de la factura del cliente",  # prose that only starts with slashes stays
    ]
