"""A third language is configuration: SABIO_LANGUAGES=es,en,pt and Portuguese documents get their own
namespace, stemming, intents and no-answer sentence, with no code outside chalicelib/languages/."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from chalicelib import languages
from chalicelib.composition import Container
from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import EmbeddingSpace, SearchFilters
from chalicelib.settings import Settings
from chalicelib.stores.aws.opensearch_queries import index_body

DOCS = {
    "pt/faro.md": "# Planos do Faro\n\nO plano mensal do Faro custa 12 euros por utilizador. A instalação leva dez "
    "minutos e o suporte responde em português.\n",
    "es/faro.md": "# Planes de Faro\n\nEl plan mensual de Faro cuesta 12 euros por usuario. La instalación "
    "lleva diez minutos y el soporte responde en español.\n",
    "en/faro.md": "# Faro plans\n\nThe monthly Faro plan costs 12 euros per user. Setup takes ten minutes and "
    "support answers in English.\n",
}


def _container(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, langs: str) -> Container:
    folder = tmp_path / f"docs-{langs}"
    for name, text in DOCS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv("SABIO_LANGUAGES", langs)  # the way an installation turns a language on
    container = Container(Settings(store_path=str(tmp_path / f"{langs}.db")))
    assert container.ingestor().index_folder(folder, "docs").ok
    return container


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Container:
    with pytest.MonkeyPatch.context() as mp:
        return _container(tmp_path_factory.mktemp("pt"), mp, "es,en,pt")


def test_a_portuguese_question_is_answered_from_its_own_namespace(three: Container):
    question = "Qual é o preço do plano mensal do Faro?"
    only_pt = three.retrieval.retrieve(RetrieveRequest(query=question, lang="pt"), None)
    assert only_pt.namespaces == ["pt"] and [i.lang for i in only_pt.items] == ["pt"]
    # lang=auto: Portuguese is detected; a namespace this small is broadened, and Portuguese still leads
    auto = three.retrieval.retrieve(RetrieveRequest(query=question), None)
    assert auto.items[0].lang == "pt" and auto.items[0].title == "Planos do Faro"
    assert auto.applied.get("intent") == "pricing"  # Portuguese intent words from pt.toml
    # broadened silently (the folder has Portuguese documents, only few): applied says so, no note is needed
    assert auto.applied.get("all_languages") == "1 in pt" and auto.notes == [], (auto.applied, auto.notes)
    stored = {c.key: c.lang for c in three.store.get_chunks(list(three.store.all_chunk_ids()))}
    assert stored == {"pt/faro.md": "pt", "es/faro.md": "es", "en/faro.md": "en"}


def test_portuguese_words_are_stemmed_in_their_namespace(three: Container):
    # the document says "plano"; "planos" reaches it only through the Portuguese stem "plan"
    only_pt = SearchFilters(langs=("pt",))
    hits = three.store.keyword_search("planos", only_pt, 5)
    assert [three.store.get_chunks([h.chunk_id])[0].key for h in hits] == ["pt/faro.md"]
    assert three.store.keyword_search("xyzzy planos", SearchFilters(langs=("en",)), 5) == []


def test_a_portuguese_question_without_an_answer_is_told_so_in_portuguese(three: Container):
    response = three.answerer.answer(RetrieveRequest(query="Qual é a capital da Austrália?", lang="pt"), None)
    assert not response.answered and response.answer == languages.require("pt").no_answer


def test_without_the_setting_portuguese_is_no_namespace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    two = _container(tmp_path, monkeypatch, "es,en")
    stored = {c.key: c.lang for c in two.store.get_chunks(list(two.store.all_chunk_ids()))}
    assert stored["pt/faro.md"] == "other"
    with pytest.raises(Exception, match="lang 'pt' is not a language of this server"):
        two.retrieval.retrieve(RetrieveRequest(query="Quanto custa?", lang="pt"), None)


def test_the_opensearch_index_of_a_language_gets_its_analyzer():
    body = index_body("pt", EmbeddingSpace("m", 4))
    assert body["mappings"]["properties"]["text"]["analyzer"] == "portuguese"
    assert (
        index_body("es", EmbeddingSpace("m", 4))["mappings"]["properties"]["title"]["analyzer"] == "spanish"
    )
    assert (
        index_body("other", EmbeddingSpace("m", 4))["mappings"]["properties"]["text"]["analyzer"]
        == "standard"
    )


def test_an_unknown_language_is_a_clear_configuration_error(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SABIO_LANGUAGES", "es,xx")
    with pytest.raises(ValidationError, match="no language 'xx' in the registry; known: es, en"):
        Settings()


def test_every_registered_language_file_is_complete():
    for code in languages.registered():
        lang = languages.require(code)
        assert lang.code == code and lang.name and lang.no_answer and lang.snowball
        assert len(lang.stopwords) >= 50 and lang.map_subqueries and lang.code_words is not None
        assert set(lang.intent_words) == set(languages.INTENTS), code
        assert {"overview", "keyword"} <= set(lang.question_templates), code
