"""The failure classes met on company folders nobody tuned on, each on a small fixture folder with the real
embedder: a unit or currency in a table's header, the column a question names, a how-to's steps, what to do
about an error (the runbook, not the changelog that introduced it), the version that did something (the
changelog), every part of a two-part question, a role nobody holds, and a code: its own row or the section it
heads, not its neighbours or a list that names it."""

from __future__ import annotations

import pytest

from chalicelib.composition import Container
from chalicelib.models.api import RetrieveRequest
from chalicelib.settings import Settings
from sabio.evaluation.companyset import never_abstaining
from tests.conftest import ROOT

FOLDER = ROOT / "tests" / "fixtures" / "answer-classes"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("classes") / "s.db"
    container = Container(Settings(store_path=str(path)))
    report = container.ingestor().index_folder(FOLDER, "celaje")
    assert not report.failed
    yield container
    container.store.close()


def ask(container, question: str, sure: bool = False):
    """The answer to ``question``: as served (``sure``: abstaining under the configured threshold), or the
    best answer whatever its confidence."""
    answerer = container.answerer if sure else never_abstaining(container)
    request = RetrieveRequest(query=question)
    return answerer.answer_retrieved(request, container.retrieval.run(request, None))


def cited(answer) -> set[str]:
    """The titles of the documents the answer cites."""
    return {c.title for c in answer.citations}


def test_a_price_under_a_currency_header_is_an_amount(store):
    answer = ask(store, "How much does the NB-4 backup appliance cost?")
    assert "2450" in answer.answer and "Price (USD)" in answer.answer
    assert not any("no amount" in n for n in answer.notes)


def test_a_price_under_a_snake_case_currency_header_is_the_row_the_question_names(store):
    # a CSV's "price_eur" names its currency as "Price (EUR)" does; the row is the one whose first cell the
    # question names, not one whose notes happen to hold "costs 0.40 EUR"
    answer = ask(store, "How much does a full health check cost?", sure=True)
    assert answer.answered and "Full health check | 79" in answer.answer, (answer.confidence, answer.answer)
    assert "On-site visit" not in answer.answer


def test_the_column_the_question_names_is_quoted_with_its_row(store):
    answer = ask(store, "¿Cuánto cuesta el plan Pro con pago anual?")
    assert "Pago anual (EUR)" in answer.answer and "Pro | 1 TB | 29 | 290" in answer.answer


def test_a_how_to_is_answered_with_its_steps(store):
    answer = ask(store, "¿Cómo instalo el agente de Nubarrón en un servidor?")
    steps = ("Descarga el instalador", "Ejecuta el instalador", "Pega la clave", "Comprueba en Consola")
    assert all(step in answer.answer for step in steps), answer.answer


def test_what_to_do_about_an_error_comes_from_the_runbook_not_the_changelog(store):
    answer = ask(store, "Me sale el error NB-4410 en la consola, ¿qué hago?")
    assert cited(answer) == {"Qué hacer ante los errores de Nubarrón"}
    assert "Purgar" in answer.answer


def test_the_version_that_brought_an_error_comes_from_the_changelog(store):
    answer = ask(store, "¿En qué versión apareció el error NB-5120?")
    shown = answer.answer + " ".join(c.section_title for c in answer.citations)
    assert "Notas de versión de Nubarrón" in cited(answer) and "4.2.0" in shown


def test_every_part_of_a_two_part_question_is_answered(store):
    answer = ask(
        store, "¿Cuánto cuesta el plan Básico al mes y quién aprueba las compras de más de 5.000 EUR?"
    )
    assert "Básico | 100 GB | 9 | 90" in answer.answer and "directora general" in answer.answer


def test_a_role_nobody_holds_is_less_sure_than_one_somebody_holds(store):
    held = ask(store, "¿Quién es el director de tecnología de Celaje?")
    nobody = ask(store, "¿Quién es el director de marketing de Celaje?")
    assert "Marcos Peña" in held.answer
    assert nobody.confidence < held.confidence
    assert ask(store, "¿Quién es el director de marketing de Celaje?", sure=True).answered is False
    assert ask(store, "¿Quién es el director de tecnología de Celaje?", sure=True).answered is True


def test_a_code_in_a_table_is_answered_with_its_row_not_its_neighbours(store):
    answer = ask(store, "¿Qué significa el código AG-202 del agente?")
    assert "AG-202 | La consola rechaza la clave del agente" in answer.answer
    assert not any(code in answer.answer for code in ("AG-201", "AG-102", "AG-101", "AG-301")), answer.answer


def test_what_to_do_about_a_code_comes_from_the_section_it_heads_not_a_list_naming_it(store):
    answer = ask(store, "Me sale el error AG-07, ¿qué hago?")
    assert cited(answer) == {"Códigos de estado del agente de Nubarrón"}, answer.answer
    assert "renombra el equipo" in answer.answer


def test_a_quarter_is_a_period_not_a_code():
    from chalicelib.question.query import identifiers

    assert identifiers("EBITDA in Q3 2025, H1 and 9M, per m³, alarm ENV-202") == ("ENV-202",)
