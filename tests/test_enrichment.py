"""Heuristic enrichment fills the same model an LLM will, in the chunk's language, and the embedding text."""

from __future__ import annotations

from chalicelib.enrichment.embedding_text import embedding_text
from chalicelib.enrichment.heuristic import ChunkContext, HeuristicEnricher
from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.text import stopwords

PRICING = (
    "Faro se factura por agente y por mes. Todos los planes incluyen tickets ilimitados.\n\n"
    "| Plan | Tarifa |\n|---|---|\n| Esencial | 19 € / agente / mes |\n| Profesional | 49 € / agente / mes |"
)


def _enricher() -> HeuristicEnricher:
    return HeuristicEnricher(Vocabulary(products={"faro": [], "marea": [], "ancla": []}))


def test_pricing_chunk_gets_product_type_keywords_and_intent_questions():
    e = _enricher().enrich(
        ChunkContext(
            text=PRICING,
            title="Planes de Faro",
            section="Planes de Faro",
            lang="es",
            key="landing/planes.html",
        )
    )
    assert (e.product, e.content_type, e.source) == ("faro", "pricing", "heuristic")
    assert 5 <= len(e.keywords) <= 8 and all(k == k.lower() for k in e.keywords)
    assert not set(e.keywords) & stopwords("es")
    assert "agente" in e.keywords and "faro" in e.keywords
    assert 2 <= len(e.questions) <= 3 and e.questions[0] == "¿Cuánto cuesta Faro?"
    assert e.summary.startswith("Faro se factura")


def test_questions_follow_the_chunk_language_and_faq_questions_are_kept():
    faq = "Can I change plans at any time?\nYes, immediately.\n\nDo you offer refunds?\nWithin 30 days."
    e = _enricher().enrich(
        ChunkContext(text=faq, title="FAQ", section="Billing", lang="en", key="faq/faq.md")
    )
    assert e.content_type == "faq"
    assert e.questions[:2] == ["Can I change plans at any time?", "Do you offer refunds?"]


def test_front_matter_beats_rules_and_unknown_values_are_ignored():
    v = Vocabulary(products={"faro": [], "marea": []})
    assert v.product_for("marea", "docs/faro/x.md", "Faro", "Faro Faro") == "marea"
    assert v.product_for(None, "docs/faro/x.md", "", "Marea") == "faro"
    assert v.product_for(None, "x.md", "", "Marea y Marea y Faro") == "marea"
    assert v.product_for(None, "x.md", "", "Faro y Marea") == "general"
    assert v.content_type_for("nonsense", "faq/x.md", "", "", "") == "faq"


def test_embedding_text_has_the_documented_shape():
    e = _enricher().enrich(ChunkContext(text=PRICING, title="Planes de Faro", section="Tarifas", lang="es"))
    text = embedding_text("Planes de Faro", "Precios", "Tarifas", e, PRICING)
    lines = text.split("\n")
    assert lines[0] == "[Planes de Faro | Precios | Tarifas]"
    assert (
        lines[1].startswith("Summary: ")
        and lines[2].startswith("Keywords: ")
        and lines[3].startswith("Questions: ")
    )
    assert lines[4] == "---" and "\n".join(lines[5:]) == PRICING
