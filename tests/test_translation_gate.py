"""A bilingual store's translated search is decided before the translation is embedded: its lists are searched
by the question's own vector first, and the translation is embedded only when that changes the top 5.
Translations are remembered as query vectors are."""

from __future__ import annotations

import pytest

from chalicelib.composition import Container
from chalicelib.models.api import RetrieveRequest
from chalicelib.question.translation_memo import TranslationMemo
from chalicelib.retrieve.retriever import RetrievalConfig, Retriever
from chalicelib.settings import Settings
from tests.fakes import HashEmbedder
from tests.test_translation import (
    OTHER_ENGLISH,
    OTHER_SPANISH,
    REFUNDS_EN,
    REFUNDS_ES,
    ScriptedTranslator,
    _store,
)

QUESTION = "¿En cuántos días devolvéis el dinero de un reembolso a la tarjeta?"
ENGLISH = "In how many days do you pay a refund back to the card?"
# every other language counts as about as close as the question's own, and nothing as its translation: the
# question is searched translated beside its own language whatever the store (the path the gate decides)
BESIDE = {"alongside_margin": 1.0, "parallel_cosine": 1.0, "parallel_sentence": 1.0}


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=1024)
        self.asked: list[str] = []

    def embed_query(self, text: str):  # type: ignore[no-untyped-def]
        self.asked.append(text)
        return super().embed_query(text)


def _asked(retriever: Retriever) -> tuple[list[str], dict[str, str]]:
    response = retriever.retrieve(RetrieveRequest(query=QUESTION, top_k=5), None)
    return [i.chunk_id for i in response.items], response.applied


def test_a_translation_that_cannot_change_the_top_5_is_not_embedded(tmp_path):
    # GIVEN a bilingual store that holds the refunds page in both languages
    embedder = CountingEmbedder()
    store = _store(tmp_path, {**OTHER_SPANISH, **REFUNDS_ES, **OTHER_ENGLISH, **REFUNDS_EN}, embedder)
    translator = ScriptedTranslator({QUESTION: ENGLISH})
    gated = Retriever(store, store, embedder, RetrievalConfig(**BESIDE), translator=translator)
    always = gated.reconfigured(translation_gate=False)
    never = gated.reconfigured(translated_weight=0.0)
    # WHEN the question is asked with the gate, and with the translation always and never searched
    embedder.asked.clear()
    top, applied = _asked(gated)
    embedded = list(embedder.asked)
    with_it, _ = _asked(always)
    without, _ = _asked(never)
    # THEN the translation was put into English (its words are searched) but not embedded, and the answer is
    # what the store answers without it; or it was embedded, and the answer is what it answers with it
    assert translator.calls and translator.calls[0] == (QUESTION, "es", "en")
    if "translation_unneeded" in applied:
        assert embedded == [QUESTION] and top == without and "translation_en" not in applied
    else:
        assert embedded == [QUESTION, ENGLISH] and top == with_it and applied["translation_en"] == ENGLISH
    store.close()


@pytest.mark.parametrize("changes", [False, True])
def test_the_gate_embeds_the_translation_exactly_when_the_top_changes(tmp_path, changes, monkeypatch):
    """The plumbing, with the judgement forced: the top the lists come to is the same, or not."""
    embedder = CountingEmbedder()
    store = _store(tmp_path, {**OTHER_SPANISH, **OTHER_ENGLISH, **REFUNDS_EN}, embedder)
    retriever = Retriever(
        store, store, embedder, RetrievalConfig(**BESIDE), translator=ScriptedTranslator({QUESTION: ENGLISH})
    )
    judged: list[int] = []

    def top(self, request, vector, keep):  # type: ignore[no-untyped-def]
        return lambda candidates: (
            judged.append(len(candidates.rankings)) or (len(candidates.rankings) if changes else 0)
        )

    monkeypatch.setattr(Retriever, "_top", top)
    embedder.asked.clear()
    _, applied = _asked(retriever)
    assert len(judged) == 2  # with the translation's lists searched by the question's vector, and without
    if changes:
        assert embedder.asked == [QUESTION, ENGLISH] and applied["translation_en"] == ENGLISH
    else:
        assert embedder.asked == [QUESTION] and applied["translation_unneeded"] == "en"
    store.close()


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
