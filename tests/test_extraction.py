"""Extraction of HTML, Markdown and plain text into sections; bad input refused with a reason."""

from __future__ import annotations

import pytest

from chalicelib.errors import ExtractionError
from chalicelib.extraction.dispatch import extract

PAGE = b"""<!DOCTYPE html><html lang="es"><head><title>Planes</title>
<meta name="product" content="faro"><meta name="tags" content="public, pricing">
<style>.x{}</style><script>var secret = "tracking";</script></head>
<body><header class="site-header"><a>Logo</a><nav><a>Inicio</a><a>Blog</a></nav></header>
<div class="cookie-banner">Aceptar cookies</div>
<main><h1>Planes de Faro</h1><p>Tres niveles con <b>facturaci&oacute;n</b> mensual.</p>
<h2>Tabla</h2><table><tr><th>Plan</th><th>Tarifa</th></tr><tr><td>Esencial</td><td>19 &euro;</td></tr></table>
<ul><li>Uno</li><li>Dos<ul><li>Dos.a</li></ul></li></ul>
<pre><code class="language-bash">faro login
faro sync</code></pre></main>
<aside>Relacionados</aside><footer>Copyright 2026 Altamar</footer></body></html>"""


def test_html_keeps_content_structure_and_drops_boilerplate():
    doc = extract("precios/faro.html", PAGE, max_bytes=10**6)
    text = doc.text
    assert doc.title == "Planes" and doc.metadata["product"] == "faro"
    assert doc.metadata["tags"] == ["public", "pricing"] and doc.metadata["lang"] == "es"
    for boilerplate in ("Logo", "Inicio", "Blog", "cookies", "tracking", "Relacionados", "Copyright", ".x{}"):
        assert boilerplate not in text
    kinds = {b.kind for s in doc.sections for b in s.blocks}
    assert kinds == {"heading", "paragraph", "table", "list", "code"}
    assert "| Esencial | 19 € |" in text and "facturación" in text
    assert "```bash\nfaro login\nfaro sync\n```" in text
    assert "  - Dos.a" in text
    assert [s.heading_path for s in doc.sections] == [("Planes de Faro",), ("Planes de Faro", "Tabla")]


def test_markdown_front_matter_becomes_metadata_and_headings_a_path():
    md = b"---\ntitle: Guia\nproduct: marea\ncategory: Docs\ntags: [a, b]\n---\n# Guia\n\nIntro.\n\n## Paso 1 { #step-one }\n\nHaz esto.\n\n### Detalle\n\nMas.\n"
    doc = extract("docs/guia.md", md, max_bytes=10**6)
    assert doc.title == "Guia" and doc.metadata["product"] == "marea" and doc.metadata["tags"] == ["a", "b"]
    paths = [s.heading_path for s in doc.sections]
    assert paths == [("Guia",), ("Guia", "Paso 1"), ("Guia", "Paso 1", "Detalle")]
    assert doc.sections[1].anchor == "step-one"
    assert doc.sections[1].blocks[0].line_start == 11  # line numbers count the front matter


def test_plain_text_with_underlined_headings():
    txt = b"Release notes\n=============\n\nFaro 4.2\n--------\n\nNew assistant languages.\n"
    doc = extract("notes.txt", txt, max_bytes=10**6)
    assert doc.title == "Release notes"
    assert doc.sections[-1].heading_path == ("Release notes", "Faro 4.2")


@pytest.mark.parametrize(
    ("key", "data", "reason"),
    [
        ("a.md", b"", "empty document"),
        ("a.md", b"  \n\n \t", "empty document"),
        ("a.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        ("a.md", "Precio: 10 \u20ac, a\u00f1o".encode("latin-1", "replace"), "not valid UTF-8"),
        ("a.md", b"---\ntitle: [unclosed\n---\n# x\n", "front matter is not valid YAML"),
        ("a.html", b"<html><script>only()</script></html>", "no indexable text"),
        ("a.md", b"x" * 2000, "file too large"),
        ("a.pdf", b"%PDF-1.4", "corrupt PDF"),
        ("a.odt", b"PK\x03\x04", r"binary file type \(.odt\)"),
        ("a.weights", b"\x00\x01" * 10, r"unknown file type \(.weights\), not text"),
        ("lib.js", b"var a=1;" * 2000, "file too large"),
        ("bundle.js", b"var a=1;" * 120, "minified or generated"),
        ("__init__.py", b"\n", "empty file"),
    ],
)
def test_bad_input_is_refused_with_a_clear_reason(key, data, reason):
    with pytest.raises(ExtractionError, match=reason):
        extract(key, data, max_bytes=1000)
