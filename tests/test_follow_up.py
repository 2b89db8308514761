"""A follow-up made a question of its own: offline by the language files' rules (ellipsis, pronouns, "the same
for", parameter swaps, the name an answer gave), in the follow-up's language (an earlier question in another
language comes translated: Apertium, real, where it is installed); with an LLM, its rewrite over real HTTP
(tests/llm_server.py), the offline merge answering whenever it fails or drifts into another language."""

from __future__ import annotations

import json

import pytest

from chalicelib.config.conversation import ConversationConfig
from chalicelib.config.llm import LLMConfig
from chalicelib.conversation.follow_up import Earlier, merge
from chalicelib.conversation.resolve import Resolver
from chalicelib.language_id import detect
from chalicelib.llms.client import ChatLLM
from chalicelib.translators.apertium import ApertiumTranslator, installed_modes
from tests.llm_server import LLMTestServer, Reply, Status

SERVED = ("es", "en")


def follow(first: str, then: str, lang: str = "es", answer: str | None = None) -> str | None:
    merged = merge(then, lang, Earlier(first, first, lang, answer, ("chunk-1",)), first)
    return merged.standalone if merged is not None else None


@pytest.mark.parametrize(
    ("first", "then", "standalone"),
    [
        ("¿Cuánto cuesta el plan Pro en España?", "¿y en México?", "¿Cuánto cuesta el plan Pro en México?"),
        ("¿Cuánto cuesta el plan Pro en España?", "¿Y el plan Max?", "¿Cuánto cuesta el plan Max en España?"),
        (
            "¿Cuánto cuesta el plan Pro con pago mensual?",
            "¿y anual?",
            "¿Cuánto cuesta el plan Pro con pago anual?",
        ),
        (
            "¿Cuál es el horario de la oficina de Madrid?",
            "lo mismo para Bogotá",
            "¿Cuál es el horario de la oficina de Bogotá?",
        ),
        (
            "¿Cuántos días de vacaciones tiene un empleado?",
            "¿y un socio?",
            "¿Cuántos días de vacaciones tiene un socio?",
        ),
        (
            "¿Cómo solicito la bonificación por fugas?",
            "¿y el plazo?",
            "¿Cuál es el plazo de la bonificación por fugas?",
        ),
        (
            "¿Cómo solicito la bonificación por fugas?",
            "¿quién la aprueba?",
            "¿Quién aprueba la bonificación por fugas?",
        ),
        (
            "¿Cómo solicito la bonificación por fugas?",
            "¿Y cómo puedo cancelarla?",
            "¿Cómo puedo cancelar la bonificación por fugas?",
        ),
        ("¿Cuánto cuesta Faro?", "¿y Marea?", "¿Cuánto cuesta Marea?"),
        (
            "¿Cuánto cuesta el plan Pro en España?",
            "¿y cuánto cuesta el plan Max?",
            "¿Cuánto cuesta el plan Max en España?",
        ),
        (
            "¿Cómo presento la solicitud de bonificación?",
            "¿Cuál es el plazo de la solicitud?",
            "¿Cuál es el plazo de la solicitud de bonificación?",
        ),
    ],
)
def test_spanish_follow_ups_become_questions_of_their_own(first, then, standalone):  # type: ignore[no-untyped-def]
    assert follow(first, then) == standalone


@pytest.mark.parametrize(
    ("first", "then", "standalone"),
    [
        (
            "What is the hourly rate for an associate in Madrid?",
            "and for a partner?",
            "What is the hourly rate for a partner in Madrid?",
        ),
        (
            "What is the notice period for tenants in Toledo?",
            "What about in Cáceres?",
            "What is the notice period for tenants in Cáceres?",
        ),
        ("How do I request a leave of absence?", "who approves it?", "Who approves a leave of absence?"),
        (
            "How much does the Pro plan cost in Spain?",
            "and billed annually?",
            "How much does the Pro plan cost in Spain billed annually?",
        ),
        (
            "How long does the installation take in Uruguay?",
            "and how much does it cost?",
            "How much does the installation in Uruguay cost?",
        ),
        ("How much is Faro?", "and how much is Marea?", "How much is Marea?"),
        (
            "What was the 2024 execution rate of the Boquerón project?",
            "who prepared the report?",
            "Who prepared the report for the Boquerón project?",
        ),
        # a place for a place, not for a quarter
        (
            "What was the churn rate in Spain in Q2 2025?",
            "and in Portugal?",
            "What was the churn rate in Portugal in Q2 2025?",
        ),
        # "how far in advance must I" frames the question; it is not what the question is about
        (
            "How far in advance must I book a meeting room for a board meeting?",
            "which form do I use?",
            "Which form do I use a meeting room for a board meeting?",
        ),
        # the verb that closes a question is not part of its subject
        (
            "When will the Billing API v1 be retired?",
            "where is the migration guide for it?",
            "Where is the migration guide for the Billing API v1?",
        ),
        # a phrase before the question word goes after the subject
        (
            "For a new supplier, how recent must the bank certificate be?",
            "and who checks it?",
            "Who checks the bank certificate for a new supplier?",
        ),
        # "one" is the earlier thing, described anew: the thing asked about, not the time it is asked for
        (
            "How much does it cost to rent a city bike for a full day?",
            "and an electric one?",
            "How much does it cost to rent an electric bike for a full day?",
        ),
        (
            "What's the price of the large pizza?",
            "and the small one?",
            "What's the price of the small pizza?",
        ),
        (
            "What is the weight limit of the standard suitcase?",
            "and of the large one?",
            "What is the weight limit of the large suitcase?",
        ),
        # another thing of a kind takes the place of the thing asked about, a time the place of the time
        (
            "How much does it cost to rent a city bike for a full day?",
            "and what about a tandem for half a day?",
            "How much does it cost to rent a tandem for half a day?",
        ),
        # ... and the verb that closes the question stays ("How much does a dental implant?" before)
        ("How much does a filling cost?", "and a dental implant?", "How much does a dental implant cost?"),
    ],
)
def test_english_follow_ups_become_questions_of_their_own(first, then, standalone):  # type: ignore[no-untyped-def]
    assert follow(first, then, "en") == standalone


def test_a_pronoun_for_the_person_or_the_code_an_answer_named_takes_that_name():
    head = "¿Quién es el responsable de la planta de Toledo?"
    assert follow(head, "¿y su teléfono?", answer="El responsable es Juan Pérez Sanz.") == (
        "¿Cuál es el teléfono de Juan Pérez Sanz?"
    )
    merged = merge("What is her email?", "en", Earlier("Who heads sales?", "Who heads sales?", "en",
                   "Sales is headed by Marta Ruiz Gómez.", ("c9",)), "Who heads sales?")  # fmt: skip
    assert merged is not None and "Marta Ruiz Gómez" in merged.standalone
    assert merged.drew_on == ("c9",)  # re-checked on every later turn
    # the person, not the thing the question asked about that the answer also names
    first = "Who is the Quorum administrator at the Lima office?"
    merged = merge("What are her support hours?", "en", Earlier(first, first, "en",
                   "For the Quorum Help Desk, ask Rosa Quispe Mamani.", ("c2",)), first)  # fmt: skip
    assert merged is not None and merged.standalone == "What are the support hours for Rosa Quispe Mamani?"
    code = follow(
        "¿Qué alarma indica fallo de bomba?", "¿y cómo se resetea?", answer="La alarma AL-203 lo indica."
    )
    assert code is not None and "AL-203" in code


@pytest.mark.parametrize(
    ("first", "then", "lang"),
    [
        ("¿Cuánto cuesta el plan Pro en España?", "¿Cuál es el horario de la oficina de Bogotá?", "es"),
        (
            "¿Cuánto cuesta el plan Pro en España?",
            "¿Qué requisitos tiene el alta de un nuevo suministro en Toledo?",
            "es",
        ),
        (
            "What is the hourly rate for an associate?",
            "Who signs the engagement letters of the Bogotá office?",
            "en",
        ),
    ],
)
def test_a_question_that_stands_alone_is_left_alone(first, then, lang):  # type: ignore[no-untyped-def]
    assert follow(first, then, lang) is None


def test_the_offline_merge_writes_in_the_follow_ups_language_with_a_translator():
    class Table:
        def pairs(self) -> list[tuple[str, str]]:
            return [("es", "en"), ("en", "es")]

        def translate(self, text, source, target, keep=(), *, names=True):  # type: ignore[no-untyped-def]
            return {"¿Cuánto cuesta el plan Pro en España?": "How much does the Pro plan cost in Spain?"}.get(
                text
            )

    resolver = Resolver(ConversationConfig(), SERVED, translator=Table())
    first = "¿Cuánto cuesta el plan Pro en España?"
    found = resolver.resolve("and in Mexico?", [Earlier(first, first, "es")])
    assert found.lang == "en" and found.by == "offline"
    assert found.standalone == "How much does the Pro plan cost in Mexico?"
    alone = Resolver(ConversationConfig(), SERVED).resolve("and in Mexico?", [Earlier(first, first, "es")])
    assert alone.reason == "no translator from es to en"  # said, and merged all the same


@pytest.mark.skipif(not installed_modes(), reason="Apertium's Spanish-English pair is not installed")
def test_with_apertium_a_language_switch_keeps_the_users_language():
    translator = ApertiumTranslator(installed_modes())
    resolver = Resolver(ConversationConfig(), SERVED, translator=translator)
    try:
        first = "¿Cuánto cuesta la tarifa de alcantarillado en Toledo?"
        found = resolver.resolve("and in Cáceres?", [Earlier(first, first, "es")])
        assert "Cáceres" in found.standalone and "Toledo" not in found.standalone
        assert detect(found.standalone, SERVED).lang == "en"
        english = "What is the notice period for tenants in Toledo?"
        back = resolver.resolve("¿y en Cáceres?", [Earlier(english, english, "en")])
        assert "Cáceres" in back.standalone and detect(back.standalone, SERVED).lang == "es"
    finally:
        translator.close()


# --------------------------------------------------------------------------------------------- with an LLM


def llm_resolver(server: LLMTestServer, budget_s: float = 3.0) -> Resolver:
    llm = ChatLLM(LLMConfig(llm_base_url=server.base_url, llm_model="test-model", llm_max_retries=0))
    return Resolver(ConversationConfig(conversation_condense_budget_s=budget_s), SERVED, llm=llm)


THREAD = [
    Earlier(
        "¿Cuánto cuesta el plan Pro en España?",
        "¿Cuánto cuesta el plan Pro en España?",
        "es",
        "El plan Pro cuesta 30 € al mes en España.",
        ("c1",),
    )
]


def test_the_llms_rewrite_is_used_and_its_prompt_keeps_the_users_language():
    with LLMTestServer() as server:
        server.enqueue(Reply(json.dumps({"question": "How much does the Pro plan cost in Mexico?"})))
        found = llm_resolver(server).resolve("and in Mexico?", THREAD)
        sent = server.requests[-1]["messages"]
    assert found.by == "llm" and found.standalone == "How much does the Pro plan cost in Mexico?"
    assert found.usage["prompt_tokens"] > 0 and found.drew_on == ("c1",)
    assert "in English" in sent[0]["content"]  # the follow-up's language, not the thread's
    assert "El plan Pro cuesta 30 €" in sent[1]["content"] and sent[1]["content"].endswith("and in Mexico?")


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        (
            Reply(json.dumps({"question": "¿Cuánto cuesta el plan Pro en México?"})),
            "the rewrite is in es, the question in en",
        ),
        (Reply("not json at all"), "the reply is not one question"),
        (Status(500), "server_error"),
        (Reply(json.dumps({"question": "late"}), delay_s=1.5), "timeout"),
    ],
)
def test_a_failed_or_drifting_rewrite_falls_back_to_the_offline_merge_and_says_why(step, reason):  # type: ignore[no-untyped-def]
    with LLMTestServer() as server:
        server.enqueue(step)
        found = llm_resolver(server, budget_s=0.5).resolve("and for the Max plan?", [
            Earlier("How much is the Pro plan in Spain?", "How much is the Pro plan in Spain?", "en")])  # fmt: skip
    assert found.by == "offline" and found.standalone == "How much is the Max plan in Spain?"
    assert found.reason is not None and found.reason.startswith(reason)
