"""Broken HTML never lets markup, script or style text into what Sabio stores and returns.

The pages in tests/fixtures/malformed_html/ were written by hand after the ways real pages break (unclosed
title / script / style / textarea / comment, bad nesting, stray end tags, CDATA, event handlers, javascript:
links, foreign content); each holds a sentence that must survive when a browser would show it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chalicelib.extraction.html import extract_html, safe_url
from chalicelib.ingest.indexer import Ingestor

PAGES = Path(__file__).parent / "fixtures" / "malformed_html"
# what a reader of each page sees, and so must be searchable
KEPT = {
    "01-unclosed-title.html": "cuesta 19 euros al mes",
    "02-unclosed-script.html": "de lunes a viernes de 9 a 18 horas",
    "03-unclosed-style.html": "azul marino",
    "04-textarea-markup.html": "formulario de contacto de la web",
    "05-unterminated-comment.html": "durante 30 días",
    "06-bad-nesting.html": "recordatorios automáticos",
    "07-event-handlers.html": "fotos del equipo",
    "08-svg-math-iframe.html": "durante 35 días",
    "09-cdata-conditional.html": "navegadores modernos",
    "10-stray-end-tags.html": "cubre siete días",
    "11-nulls-two-titles.html": "facturación de Marea",
    "12-script-types.html": "se configuran desde el panel",
}


def leaks(text: str) -> list[str]:
    return [w for w in ("<", "script", "style") if w in text.lower()]


def test_the_corpus_has_a_page_per_way_of_breaking():
    assert sorted(p.name for p in PAGES.glob("*.html")) == sorted(KEPT) and len(KEPT) >= 10


@pytest.mark.parametrize("name", sorted(KEPT))
def test_extraction_keeps_the_text_and_drops_the_markup(name):
    doc = extract_html(PAGES.joinpath(name).read_text(encoding="utf-8", errors="replace"), name)
    text = "\n".join(b.text for s in doc.sections for b in s.blocks)
    assert KEPT[name] in text, text
    assert not leaks(doc.title) and not leaks(text), (doc.title, text)
    assert not leaks(str(doc.metadata)), doc.metadata


def test_stored_chunks_hold_no_markup(ingestor: Ingestor, store):  # type: ignore[no-untyped-def]
    report = ingestor.index_folder(PAGES, "broken")
    assert report.ok and report.added == len(KEPT), report.failed
    chunks = [c for d in store.list_documents("broken") for c in store.document_chunks(d.document_id)]
    assert chunks
    for c in chunks:
        shown = " ".join([c.title, c.section_title, *c.heading_path, c.content, c.url or ""])
        assert not leaks(shown), (c.key, shown)
        assert not leaks(c.embedding_text), (c.key, c.embedding_text)
    titles = {d.key: d.title for d in store.list_documents("broken")}
    assert titles["01-unclosed-title.html"] == "Precios de Faro"


def test_escaped_markup_in_code_is_content_and_stays():
    doc = extract_html(
        "<h1>HTML</h1><pre><code>&lt;script src=&quot;app.js&quot;&gt;&lt;/script&gt;</code></pre>", "x"
    )
    assert '<script src="app.js"></script>' in "\n".join(b.text for s in doc.sections for b in s.blocks)


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("https://altamar.example/faro", True),
        ("/docs/precios", True),
        ("javascript:alert(1)", False),
        ("JaVa\tScRipt:alert(1)", False),
        ("data:text/html,<script>", False),
        ("vbscript:msgbox", False),
    ],
)
def test_only_web_links_are_kept(url, kept):
    assert (safe_url(url) is not None) is kept


def test_a_javascript_link_in_front_matter_is_not_stored(ingestor: Ingestor, store, tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.md").write_text(
        "---\nurl: javascript:alert(1)\n---\n# Hola\n\nTexto de prueba aquí.\n"
    )
    assert ingestor.index_folder(tmp_path / "d", "s").ok
    (chunk,) = [c for d in store.list_documents("s") for c in store.document_chunks(d.document_id)]
    assert chunk.url is None
