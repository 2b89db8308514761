"""Translations are remembered as query vectors are: a question asked again is put into the other language
once, and its translation's vector comes from the query memo."""

from __future__ import annotations

from chalicelib.composition import Container
from chalicelib.models.api import RetrieveRequest
from chalicelib.question.translation_memo import TranslationMemo
from chalicelib.retrieve.retriever import RetrievalConfig, Retriever
from chalicelib.settings import Settings
from tests.fakes import HashEmbedder
from tests.test_translation import OTHER_ENGLISH, OTHER_SPANISH, REFUNDS_EN, ScriptedTranslator, _store

QUESTION = "¿En cuántos días devolvéis el dinero de un reembolso a la tarjeta?"
ENGLISH = "In how many days do you pay a refund back to the card?"


def test_a_question_asked_again_is_translated_once():
    inner = ScriptedTranslator({QUESTION: ENGLISH})
    memo = TranslationMemo(inner, size=2)
    for _ in range(3):
        assert memo.translate(QUESTION, "es", "en", ["Faro"]) == ENGLISH
    assert memo.translate("otra", "es", "en") is None and memo.translate("otra", "es", "en") is None
    assert inner.calls == [
        (QUESTION, "es", "en"),
        ("otra", "es", "en"),
        ("otra", "es", "en"),
    ]  # failures retried
    assert memo.translate(QUESTION, "es", "en", ["Marea"]) == ENGLISH  # other names kept: asked again
    assert len(inner.calls) == 4 and memo.pairs() == inner.pairs()


def test_the_server_remembers_translations_as_it_remembers_query_vectors(tmp_path, monkeypatch):
    from chalicelib.registry import TRANSLATORS

    monkeypatch.setattr(TRANSLATORS, "build", lambda name, wiring: ScriptedTranslator({}))
    on = Container(Settings(store_path=str(tmp_path / "a.db")))
    off = Container(Settings(store_path=str(tmp_path / "b.db"), query_cache_size=0))
    assert isinstance(on.translator, TranslationMemo) and isinstance(off.translator, ScriptedTranslator)


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=1024)
        self.asked: list[str] = []

    def embed_query(self, text: str):  # type: ignore[no-untyped-def]
        self.asked.append(text)
        return super().embed_query(text)


def test_a_bilingual_question_asked_again_costs_neither_the_translator_nor_an_embedding(
    tmp_path, monkeypatch
):
    # GIVEN a server (the composition root: its memos on) over a bilingual store, whose every other language
    # counts as about as close as the question's own: the question is searched translated beside its own
    from chalicelib.embedders import query_memo
    from chalicelib.registry import EMBEDDERS, TRANSLATORS

    embedder = CountingEmbedder()
    translator = ScriptedTranslator({QUESTION: ENGLISH})
    monkeypatch.setattr(TRANSLATORS, "build", lambda name, wiring: translator)
    monkeypatch.setattr(EMBEDDERS, "build", lambda kind, config: embedder)
    container = Container(Settings(store_path=str(tmp_path / "s.db")))
    store = _store(tmp_path, {**OTHER_SPANISH, **OTHER_ENGLISH, **REFUNDS_EN}, container.embedder, "docs")
    beside = RetrievalConfig(alongside_margin=1.0, parallel_cosine=1.0, parallel_sentence=1.0)
    retriever = Retriever(store, store, container.embedder, beside, translator=container.translator)
    assert isinstance(container.embedder, query_memo.QueryMemo)
    # WHEN it is asked twice
    embedder.asked.clear()
    first = retriever.retrieve(RetrieveRequest(query=QUESTION), None)
    second = retriever.retrieve(RetrieveRequest(query=QUESTION), None)
    # THEN the first time translates and embeds it and its translation, the second time neither
    assert first.applied["translation_en"] == ENGLISH == second.applied["translation_en"]
    assert translator.calls == [(QUESTION, "es", "en")] and embedder.asked == [QUESTION, ENGLISH]
    assert [i.chunk_id for i in first.items] == [i.chunk_id for i in second.items]
    store.close()
