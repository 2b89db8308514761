"""The output contract on the example corpus: bootstrap maps, scope isolation, modes, code line ranges."""

from __future__ import annotations

import pytest

from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import SearchFilters
from chalicelib.question.intent import decide_mode, detect_intent
from chalicelib.text import fold
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.slow


def bootstrap(container, **kw):  # type: ignore[no-untyped-def]
    return container.retrieval.retrieve(RetrieveRequest(intent="bootstrap", **kw), None)


def critical_in_scope(container, **filters) -> set[str]:  # type: ignore[no-untyped-def]
    store = container.store
    probe = [0.0] * store.space().dim
    hits = store.dense_search(probe, store.space(), SearchFilters(critical=True, **filters), 1000)
    return {h.chunk_id for h in hits}


@pytest.mark.parametrize(
    ("scope", "filters", "inside"),
    [
        ({"source_id": "examples"}, {"source_ids": ("examples",)}, lambda key: True),
        ({"source_ref": "internal/"}, {"source_ref": "internal/"}, lambda key: key.startswith("internal/")),
        ({"tags": ["internal"]}, {"tags": ("internal",)}, None),
        ({"source_ref": "precios/"}, {"source_ref": "precios/"}, lambda key: key.startswith("precios/")),
    ],
)
def test_bootstrap_maps_a_scope_and_nothing_outside_it(examples_container, scope, filters, inside):
    r = bootstrap(examples_container, scope=scope)
    ids = [i.chunk_id for i in r.items]
    assert r.intent == "bootstrap" and ids and len(ids) == len(set(ids))
    docs = {i.document_id for i in r.items}
    assert len(docs) >= min(
        3,
        len(
            {
                d.document_id
                for d in examples_container.store.list_documents()
                if inside is None or inside(d.key)
            }
        ),
    )
    assert r.summary and r.topics and r.follow_up_refs
    # every chunk marked critical in the scope is among the critical points
    marked = {p.chunk_id for p in r.critical_points if p.origin == "marked"}
    assert marked == critical_in_scope(examples_container, **filters)
    # nothing from outside the scope, anywhere in the response
    allowed = {c for c in ids} | marked | {p.chunk_id for p in r.critical_points}
    chunks = examples_container.store.get_chunks(list(allowed))
    for c in chunks:
        if inside is not None:
            assert inside(c.key), c.key
        if "tags" in scope:
            assert set(scope["tags"]) & set(c.tags)
    scope_docs = {c.document_id for c in chunks}
    assert {f.document_id for f in r.follow_up_refs if f.document_id} <= scope_docs


def test_bootstrap_covers_many_documents_and_marks_critical(examples_container):
    r = bootstrap(examples_container, scope={"source_id": "examples"})
    assert len({i.document_id for i in r.items}) >= 6
    titles = {p.title for p in r.critical_points if p.origin == "marked"}
    assert {"Reglas del equipo de soporte", "Runbook de incidentes"} <= titles
    assert all(p.reason for p in r.critical_points)
    assert r.timings_ms["total"] > 0 and "subqueries" in r.timings_ms


def test_specific_retrieve_detects_intent_and_product(examples_container):
    r = examples_container.retrieval.retrieve(RetrieveRequest(query="¿Cuánto cuesta Marea?"), None)
    assert r.applied["intent"] == "pricing" and r.applied["product_boost"] == "marea"
    assert r.items[0].content_type == "pricing" and r.items[0].product == "marea"
    assert r.mode == "documental" and r.mode_reason


@pytest.mark.parametrize(
    ("query", "mode", "symbol", "path"),
    [
        (
            "¿Cómo se verifica la firma de un webhook de Faro en Python?",
            "auto",
            "def verify_webhook_signature",
            "code/faro_client.py",
        ),
        ("create_ticket", "auto", "def create_ticket", "code/faro_client.py"),
        ("subscribe a contact with consent", "codigo", "func subscribe", "code/marea-subscribe.ts"),
        ("verify the last restore drill", "codigo", "func verify_last_drill", "code/ancla-backup.sh"),
    ],
)
def test_code_mode_returns_symbols_with_line_ranges_that_hold_the_cited_text(
    examples_container, examples_quoting, query, mode, symbol, path
):
    request = RetrieveRequest(query=query, mode=mode)
    answer = examples_quoting.answerer.answer(request, None)
    assert answer.mode == "codigo"
    assert answer.items[0].kind == "code" and answer.items[0].title == path  # a code title is its path
    # the symbol, or (a near tie since documents are no longer filtered out in code mode) its file's header
    # chunk right before it, whose docstring names the same thing
    # a chunk that holds several symbols is titled with each of them ("def a, def b")
    top = next(i for i in answer.items[:2] if symbol in i.section_title.split(", "))
    assert top.kind == "code" and top.title == path
    lines = (EXAMPLES / path).read_text(encoding="utf-8").split("\n")
    assert "\n".join(lines[top.line_start - 1 : top.line_end]) == top.content
    assert answer.citations
    for c in answer.citations:
        item = next(i for i in answer.items if i.chunk_id == c.chunk_id)
        file_lines = (
            (EXAMPLES / next(ch.key for ch in examples_container.store.get_chunks([item.chunk_id])))
            .read_text(encoding="utf-8")
            .split("\n")
        )
        assert c.line_start is not None and c.quote in "\n".join(file_lines[c.line_start - 1 : c.line_end])
        assert c.section_title == item.section_title


def test_documental_mode_puts_documents_before_code_without_hiding_it(examples_container):
    r = examples_container.retrieval.retrieve(
        RetrieveRequest(query="Faro API tickets", mode="documental", top_k=20, lang="all"), None
    )
    kinds = [i.kind for i in r.items]
    assert kinds[0] == "doc" and "code" in kinds  # a mode orders; only the caller's filters exclude


ES_EN = ("es", "en")


def test_auto_mode_reads_scope_and_query():
    assert (
        decide_mode(RetrieveRequest(query="x", scope={"source_ref": "code/faro_client.py"}), ES_EN)[0]
        == "codigo"
    )
    assert decide_mode(RetrieveRequest(query="¿Qué hace `verify_webhook_signature`?"), ES_EN)[0] == "codigo"
    assert decide_mode(RetrieveRequest(query="¿Cuánto cuesta Faro?"), ES_EN)[0] == "documental"
    # to return a parcel or get money back is no code ("Can I return an opened bag of coffee?" ranked a Rust
    # file first); a function's return value is
    for shop in ("Can I return an opened bag of coffee?", "¿Se devuelve el dinero si cancelo?"):
        assert decide_mode(RetrieveRequest(query=shop), ES_EN)[0] == "documental", shop
    for code in ("What is the return value of reorder point?", "¿Qué tipo de retorno tiene la función?"):
        assert decide_mode(RetrieveRequest(query=code), ES_EN)[0] == "codigo", code
    assert detect_intent(fold("¿Qué tenemos pendiente?"), ES_EN).name == "backlog"
    assert detect_intent(fold("What are the rules for customer data?"), ES_EN).name == "rules"
    assert detect_intent("hola", ES_EN) is None


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("¿Cuánto cuesta Faro?", "pricing"),
        ("How much does Marea cost?", "pricing"),
        ("¿Cómo se configura el webhook?", "how-to"),
        ("¿Qué cambió en la versión 2?", "history"),
        # everyday questions from XQuAD that used to trigger an intent (and its subquery and boosts)
        ("¿Cuánto tiempo quedaba cuando los Broncos lograron la intercepción?", None),
        ("¿Quién obtuvo cinco capturas en nueve partidos como titular de los Carolina Panthers?", None),
        ("¿Quién de todo el equipo ha conseguido más capturas esta temporada?", None),
        ("¿Quién puede solicitar cambios o exenciones en la ley?", None),
        ("¿Cómo se llama el mariscal de campo que tenía 38 años?", None),
        ("How much do ctenophores eat in a day?", None),
        ("How much do I pay for Marea?", "pricing"),
    ],
)
def test_intents_fire_on_what_they_mean_and_not_on_everyday_words(query, intent):
    found = detect_intent(fold(query), ES_EN)
    assert (found.name if found else None) == intent
