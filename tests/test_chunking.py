"""Chunker invariants (property-based) and the behaviour of source doc 001 on concrete documents."""

from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib.chunking import ChunkingConfig, chunk_document
from chalicelib.extraction.code import extract_code
from chalicelib.extraction.dispatch import extract
from chalicelib.extraction.markdown import extract_markdown
from chalicelib.text import token_estimate

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzáéñ", min_size=1, max_size=9)


@st.composite
def blocks(draw, uid):  # type: ignore[no-untyped-def]
    kind = draw(st.sampled_from(["paragraph", "paragraph", "list", "code", "table"]))
    n = draw(st.integers(1, 60 if kind == "paragraph" else 12))
    if kind == "paragraph":
        ws = draw(st.lists(WORD, min_size=n, max_size=n))
        return kind, f"P{uid} " + " ".join(ws) + "."
    if kind == "list":
        items = [" ".join(draw(st.lists(WORD, min_size=1, max_size=12))) for _ in range(n)]
        return kind, "\n".join(f"- i{uid} {it}" for it in items)
    if kind == "code":
        lines = [" ".join(draw(st.lists(WORD, min_size=1, max_size=10))) for _ in range(n)]
        return kind, "```python\n" + "\n".join(f"c{uid} {ln}" for ln in lines) + "\n```"
    header = f"| h{uid}a | h{uid}b |"
    rows = [f"| r{uid} {draw(WORD)} | {draw(WORD)} |" for _ in range(n)]
    return kind, "\n".join([header, "|---|---|", *rows])


@st.composite
def documents(draw):  # type: ignore[no-untyped-def]
    parts: list[tuple[str, str]] = []
    uid = 0
    for _ in range(draw(st.integers(1, 6))):
        level = draw(st.integers(1, 3))
        uid += 1
        parts.append(("heading", "#" * level + f" Section{uid} " + draw(WORD)))
        for _ in range(draw(st.integers(0, 4))):
            uid += 1
            block = draw(blocks(uid))
            if block[0] == "list" and parts[-1][0] == "list":
                continue  # two lists one blank line apart are one (loose) list in Markdown
            parts.append(block)
    return parts


def _render(parts: list[tuple[str, str]]) -> str:
    return "\n\n".join(text for _, text in parts) + "\n"


def _normalise(text: str) -> str:
    """Whitespace removed, and the fence lines / table header rows a split block repeats."""
    kept = [
        ln
        for ln in text.split("\n")
        if not ln.strip().startswith("```")
        and not re.match(r"^\| h\d+a \| h\d+b \|$|^\|---\|---\|$", ln.strip())
    ]
    return "".join("".join(kept).split())


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(documents(), st.integers(32, 200))  # SABIO_CHUNK_MAX_TOKENS >= 32
def test_whole_blocks_are_never_cut_unless_over_budget(parts, budget):
    doc = extract_markdown(_render(parts), "doc")
    chunks = chunk_document(doc, ChunkingConfig(max_tokens=budget, min_tokens=budget // 4))
    for kind, text in parts:
        if kind == "heading" or token_estimate(text) > budget:
            continue
        holders = [c for c in chunks if text in c.text]
        assert len(holders) == 1, f"{kind} block split or lost: {text[:60]!r}"


@PROPERTY
@given(documents(), st.integers(32, 200))  # SABIO_CHUNK_MAX_TOKENS >= 32
def test_chunks_reproduce_the_document_modulo_whitespace(parts, budget):
    doc = extract_markdown(_render(parts), "doc")
    chunks = chunk_document(doc, ChunkingConfig(max_tokens=budget, min_tokens=budget // 4))
    assert _normalise("\n".join(c.text for c in chunks)) == _normalise(doc.text)


@PROPERTY
@given(documents(), st.integers(32, 200))  # SABIO_CHUNK_MAX_TOKENS >= 32
def test_every_chunk_carries_the_heading_path_where_it_starts(parts, budget):
    doc = extract_markdown(_render(parts), "doc")
    paths = {s.heading_path for s in doc.sections}
    for chunk in chunk_document(doc, ChunkingConfig(max_tokens=budget, min_tokens=budget // 4)):
        assert chunk.heading_path in paths
        assert chunk.heading_path, "every generated block sits under a heading"
        first = chunk.text.split("\n", 1)[0]
        if first.startswith("#"):
            assert first.lstrip("#").strip() == chunk.heading_path[-1]


@PROPERTY
@given(documents(), st.integers(32, 200))  # SABIO_CHUNK_MAX_TOKENS >= 32
def test_split_code_reopens_its_fence_and_tables_repeat_their_header(parts, budget):
    doc = extract_markdown(_render(parts), "doc")
    for chunk in chunk_document(doc, ChunkingConfig(max_tokens=budget, min_tokens=0)):
        fences = [ln for ln in chunk.text.split("\n") if ln.strip().startswith("```")]
        assert len(fences) % 2 == 0, "a chunk leaves a code fence open"
        lines = chunk.text.split("\n")
        for i, line in enumerate(lines):
            if line.startswith("| ") and (i == 0 or not lines[i - 1].startswith("|")):
                assert re.match(r"^\| h\d+a \| h\d+b \|$", line), "a table piece lost its header row"


@PROPERTY
@given(documents(), st.integers(32, 200))  # SABIO_CHUNK_MAX_TOKENS >= 32
def test_no_chunk_exceeds_the_budget_and_none_ends_on_a_bare_heading(parts, budget):
    doc = extract_markdown(_render(parts), "doc")
    chunks = chunk_document(doc, ChunkingConfig(max_tokens=budget, min_tokens=budget // 4))
    for i, chunk in enumerate(chunks):
        assert token_estimate(chunk.text) <= budget + 20  # + a carried heading line at most
        if chunk.kinds[-1] == "heading" and set(chunk.kinds) != {"heading"}:
            # only when no content follows (a run of empty headings longer than the budget is left alone)
            assert all(set(c.kinds) == {"heading"} for c in chunks[i + 1 :]), "heading split from its content"


def test_tiny_sibling_sections_merge_and_big_ones_stay_apart():
    small = "# Guide\n\n## A\n\nShort a.\n\n## B\n\nShort b.\n\n## C\n\n" + ("Long sentence here. " * 60)
    chunks = chunk_document(extract_markdown(small, "g"), ChunkingConfig(max_tokens=120, min_tokens=40))
    assert "Short a." in chunks[0].text and "Short b." in chunks[0].text
    assert chunks[0].anchors[:3] == ("guide", "a", "b")
    assert all("Short" not in c.text for c in chunks[1:])
    assert all(c.heading_path == ("Guide", "C") for c in chunks[1:])


def test_a_heading_is_never_separated_from_its_content():
    text = (
        "# T\n\n" + ("word " * 100) + "\n\n## Configuración de reintentos\n\nPasos: sube el timeout a 30 s."
    )
    chunks = chunk_document(extract_markdown(text, "t"), ChunkingConfig(max_tokens=140, min_tokens=10))
    holder = next(c for c in chunks if "Configuración de reintentos" in c.text)
    assert "sube el timeout" in holder.text


def test_chunks_of_real_docs_carry_line_ranges(tmp_path):
    text = "---\ntitle: X\n---\n# X\n\nIntro line.\n\n## Code\n\n```bash\nls\n```\n"
    chunks = chunk_document(extract_markdown(text, "x"), ChunkingConfig(max_tokens=200, min_tokens=0))
    assert chunks[0].line_start == 4 and chunks[-1].line_end == 12


@pytest.mark.parametrize(
    ("key", "text"),
    [
        (
            "minified.txt",
            "Intro.\n\n" + "".join(random.Random(1).choices(string.ascii_letters + string.digits, k=50_000)),
        ),
        ("url.md", "# Enlace\n\nVer https://example.com/" + "a1b2" * 12_500 + " para más detalles.\n"),
        ("bundle.js", "var a=1;" * 6_000),
    ],
)
def test_every_chunk_keeps_the_budget_even_without_spaces(key, text):
    # a minified bundle is left out when a folder is indexed (dispatch); cut anyway, it keeps the budget
    doc = extract_code(text, key) if key == "bundle.js" else extract(key, text.encode(), max_bytes=10**7)
    drafts = chunk_document(doc, ChunkingConfig(max_tokens=300))
    assert len(drafts) > 10
    assert all(token_estimate(d.text) <= 300 for d in drafts)
    assert max(len(d.text) for d in drafts) < 2_000  # was one 50 KB chunk
    if key != "bundle.js":  # minified code still has punctuation to cut at
        assert any(d.hard_cut for d in drafts)
    run = max(text.split(), key=len)
    assert run in "".join("".join(d.text.split()) for d in drafts)  # nothing lost, in order


def test_prose_is_never_marked_as_hard_cut():
    doc = extract("a.md", ("# T\n\n" + "Una frase normal de prosa. " * 400).encode(), max_bytes=10**7)
    assert not any(d.hard_cut for d in chunk_document(doc, ChunkingConfig(max_tokens=100)))


def test_a_code_chunk_of_several_symbols_is_titled_with_each_of_them():
    # a Rust chunk titled "struct Sack" held lines 1-17, `reorder_point` included: a title names what it holds
    from chalicelib.chunking import ChunkingConfig, chunk_document
    from chalicelib.extraction.code import extract_code

    source = (
        "/// A sack.\npub struct Sack {\n    pub lot: String,\n}\n\n"
        "/// Kilos before reordering.\npub fn reorder_point(origin: &str) -> f32 {\n    300.0\n}\n"
    )
    drafts = chunk_document(
        extract_code(source, "src/sack.rs"), ChunkingConfig(max_tokens=300, min_tokens=60)
    )
    assert [d.heading_path[-1] for d in drafts] == ["struct Sack, fn reorder_point"]
