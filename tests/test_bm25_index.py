"""The embedded store's BM25 in memory ranks and scores exactly as FTS5's bm25() on the same store.

Real documents (the example corpus, code in several languages, a page with emoji and phrase-like terms),
real SQLite; only the embedder is a fake, as BM25 never reads vectors.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.indexer import Ingestor
from chalicelib.models.records import SearchFilters
from chalicelib.stores.sqlite import SQLiteStore
from chalicelib.stores.sqlite import words as sqlite_module
from chalicelib.stores.sqlite.packing import unpack_texts
from chalicelib.stores.sqlite.query_building import filter_sql, match_terms
from chalicelib.stores.sqlite.search.bm25_index import analyse, docsize, tokens
from tests.conftest import EXAMPLES, ROOT
from tests.fakes import HashEmbedder

PAGE = """# Server-Sent Events 🤖

Nginx buffers the event stream 🤓 unless you turn buffering off, and idle connections get dropped: send a
keep alive comment every 15 seconds. A keep-alive ping is a multi-part-free, real-time line. It's cheap.

## Eventos enviados por el servidor

Con Nginx, desactiva el búfer y envía un comentario keep-alive cada 15 segundos; la conexión inactiva se
cierra. ¿Qué año? El año 2024 añadió señales.
"""
QUESTIONS = [
    "Nginx buffers my event stream and idle connections get dropped. Do I need keep-alive pings?",
    "How do I send a keep alive comment?",
    "¿Cuánto cuesta Faro al mes?",
    "How long is the Faro free trial?",
    "¿Qué año añadió señales?",
    "multi-part real-time it's",
    "restore a database to a point in time",
    "política de reembolsos y devoluciones",
    "parse command line arguments",
    "función que valida el correo",
    "a",
    "the and of",
    "de la que el en y",  # stop-words only: kept, and "de" is in most chunks (idf at its floor)
]
FILTERS = [
    SearchFilters(),
    SearchFilters(langs=("es",)),
    SearchFilters(langs=("en",)),
    SearchFilters(kinds=("code",)),
    SearchFilters(langs=("es",), kinds=("doc",)),
]


def fts5(store: SQLiteStore, query: str, filters: SearchFilters, k: int) -> list[tuple[str, float]]:
    found = match_terms(query, filters.langs or store.languages)
    if found is None:
        return []
    where, params = filter_sql(filters)
    return [(h.chunk_id, h.score) for h in store.words.fts5_search(found, where, params, k)]


def in_memory(store: SQLiteStore, query: str, filters: SearchFilters, k: int) -> list[tuple[str, float]]:
    return [(h.chunk_id, h.score) for h in store.keyword_search(query, filters, k)]


def assert_same(store: SQLiteStore) -> int:
    compared = 0
    for filters in FILTERS:
        for query in QUESTIONS:
            mine, theirs = in_memory(store, query, filters, 20), fts5(store, query, filters, 20)
            assert [c for c, _ in mine] == [c for c, _ in theirs], (query, filters)
            assert [s for _, s in mine] == pytest.approx([s for _, s in theirs], rel=1e-9, abs=1e-12)
            compared += bool(mine)
    return compared


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, folder)
    shutil.copytree(ROOT / "tests" / "fixtures" / "polyglot", folder / "polyglot")
    (folder / "sse.md").write_text(PAGE, encoding="utf-8")
    return folder


@pytest.fixture
def indexed(tmp_path: Path, corpus: Path) -> tuple[SQLiteStore, Ingestor, Path]:
    store = SQLiteStore(tmp_path / "store.db")
    ingestor = Ingestor(store, store, HashEmbedder(), Vocabulary())
    assert ingestor.index_folder(corpus, "docs").ok
    yield store, ingestor, corpus
    store.close()


def test_scores_and_order_are_fts5s_own(indexed):
    store, _, _ = indexed
    store.warm()
    assert store.words.view is not None  # the in-memory postings answer, not FTS5
    assert assert_same(store) >= 40


def test_they_stay_fts5s_after_documents_change_and_go(indexed):
    """New rows come in as segments, deleted rows drop out, changed documents get new rows."""
    store, ingestor, corpus = indexed
    store.warm()
    (corpus / "sse.md").write_text(PAGE.replace("Nginx", "Caddy"), encoding="utf-8")
    (corpus / "extra.md").write_text(
        "# Keep-alive en Caddy\n\nCaddy no necesita keep alive.", encoding="utf-8"
    )
    removed = next(p for p in corpus.rglob("*.md") if p.name not in ("sse.md", "extra.md"))
    removed.unlink()
    assert ingestor.index_folder(corpus, "docs").ok
    assert assert_same(store) >= 40
    assert any(
        "Caddy" in store.get_chunks([c])[0].content for c, _ in in_memory(store, "Caddy", SearchFilters(), 3)
    )
    assert not in_memory(store, "Nginx", SearchFilters(), 3)


def test_a_row_id_names_one_text_for_good(store, tmp_path):
    """SQLite hands the largest deleted id out again; the postings in memory would keep its old text."""
    ingestor = Ingestor(store, store, HashEmbedder(), Vocabulary())
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("Zanahorias moradas de temporada.", encoding="utf-8")
    assert ingestor.index_folder(folder, "docs").ok
    assert in_memory(store, "zanahorias", SearchFilters(), 5)
    (folder / "a.md").unlink()
    store.delete_document(store.list_documents("docs")[0].document_id)  # the largest id is free again
    (folder / "b.md").write_text("Berenjenas asadas con miel.", encoding="utf-8")
    assert ingestor.index_folder(folder, "docs").ok
    assert not in_memory(store, "zanahorias", SearchFilters(), 5)
    assert in_memory(store, "berenjenas", SearchFilters(), 5)


def test_a_large_store_answers_from_fts5_while_its_postings_are_built(indexed, monkeypatch):
    store, _, _ = indexed
    reopened = SQLiteStore(store.path)
    monkeypatch.setattr(sqlite_module, "BUILD_INLINE", 0)  # every build goes to the background
    try:
        first = in_memory(reopened, QUESTIONS[0], SearchFilters(), 10)
        assert first == fts5(reopened, QUESTIONS[0], SearchFilters(), 10)
        deadline = time.monotonic() + 30
        while reopened.words.view is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert reopened.words.view is not None, "the background build never finished"
        after = in_memory(reopened, QUESTIONS[0], SearchFilters(), 10)
        assert [c for c, _ in after] == [c for c, _ in first]
        assert [s for _, s in after] == pytest.approx([s for _, s in first], rel=1e-9)
    finally:
        reopened.close()


def test_tokens_and_lengths_are_read_as_fts5_reads_them(indexed):
    """Folded letters and digits (ñ to n), anything else separates; a row's length from FTS5's record."""
    store, _, _ = indexed
    assert tokens("Año ¿Qué? keep-alive it's señal_2024 ½") == [
        "ano",
        "que",
        "keep",
        "alive",
        "it",
        "s",
        "senal",
        "2024",
        "½",
    ]
    rows = [
        (*unpack_texts(data), size)
        for data, size in store.file.query(
            "SELECT w.data, d.sz FROM words w JOIN chunks_fts_docsize d ON d.id = w.rid"
        )
    ]
    emoji = [r for r in rows if "🤓" in (r[2] or "")]
    assert emoji  # FTS5 counts this emoji as a token; the length comes from its record
    for r in rows:
        counted = analyse(r[0] or "", r[1] or "", r[2] or "", r[3] or "")
        assert analyse(r[0] or "", r[1] or "", r[2] or "", r[3] or "", docsize(r[4])).length == docsize(r[4])
        assert counted.length == docsize(r[4]) or "🤓" in (r[2] or "") or "🤖" in (r[0] or "") + (r[2] or "")
