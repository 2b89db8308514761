"""What the question demands of the passage that answers it (a role named, the kind asked for held): checks
that feed the answer confidence, each failing one with the note a user reads."""

from __future__ import annotations

import pytest

from chalicelib.answer.answerability import checks
from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import Enrichment, StoredChunk
from chalicelib.question.query import understand


def chunk(content: str, lang: str) -> StoredChunk:
    return StoredChunk(
        chunk_id="c1",
        document_id="d1",
        source_id="s",
        key=f"{lang}/page.md",
        ord=0,
        title="Page",
        section_title="Page",
        heading_path=["Page"],
        content=content,
        embedding_text=content,
        enrichment=Enrichment(),
        lang=lang,
        product="general",
        content_type="overview",
        content_hash="h",
    )


def verdict(question: str, lang: str, quote: str):
    query = understand(RetrieveRequest(query=question), ("es", "en"))
    return checks(query, lang, chunk(quote, lang), quote)


@pytest.mark.parametrize(
    ("question", "lang", "quote"),
    [
        # the role in other words, but a word of it named ("Prime Minister", "Normans")
        (
            "Who was the final Prime Minister of East Germany?",
            "en",
            "The last Prime Minister of the (East) German Democratic Republic, Lothar de Maizière, is a "
            "descendant of a Huguenot family.",
        ),
        (
            "Who was the Normans' main enemy in Italy?",
            "en",
            "Soon after the Normans began to enter Italy, they fought especially the Seljuk Turks.",
        ),
        ("¿Quién es la jefa de planta de Monterrey?", "es", "En Monterrey, jefa de planta: Lucía Garza."),
        ("How many times has Polonia won the cup?", "en", "Polonia won the cup twice as well."),
        ("When did the last glacial end?", "en", "The last glacial ran until ~11,600 BP."),
        # "when" joins a clause here: no time is asked for
        (
            "What happens when the immune system is less active than normal?",
            "en",
            "Immunodeficiency occurs when the immune system is less active than normal.",
        ),
    ],
)
def test_a_passage_that_answers_in_its_own_words_is_an_answer(question, lang, quote):
    assert verdict(question, lang, quote).first_note is None


@pytest.mark.parametrize(
    ("question", "lang", "quote"),
    [
        # names the company, not the role asked about
        ("¿Quién es el director general de Cafetal Norte?", "es", "Bienvenido a Cafetal Norte, tostadores."),
        ("Who is the head of sales?", "en", "Marta Ibáñez joined the company in Valencia."),
        # the role, but of something else
        ("Who is the head of marketing?", "en", "The head of finance is Laura Pérez."),
        ("How many times has Polonia won the cup?", "en", "Polonia won the cup as well."),
        ("When did the last glacial end?", "en", "The last glacial was cold across Europe."),
    ],
)
def test_a_passage_without_what_the_question_asks_for_is_no_answer(question, lang, quote):
    assert verdict(question, lang, quote).first_note


def test_an_answer_reads_as_prose_and_its_citation_keeps_the_quote_as_written():
    """Markdown's bold marks are left out of the answer a reader reads ("llevar **una maleta de hasta 23 kg**"
    read as raw Markdown); the citation keeps the quote verbatim, which the page finds in its document."""
    from chalicelib.answer.citing import cited_text

    quote = "Cada viajero puede llevar **una maleta de hasta 23 kg** sin coste adicional."
    page = chunk(f"# Equipaje\n\n{quote} Cada maleta adicional cuesta 4 €.", "es")
    text, citations = cited_text([(page, quote)])
    assert text == "Cada viajero puede llevar una maleta de hasta 23 kg sin coste adicional. [1]"
    assert citations[0].quote == quote and quote in page.content
