"""Indexing a folder: incremental runs, deletes, source isolation, and bad input that loses nothing."""

from __future__ import annotations

from pathlib import Path

from chalicelib.chunking import ChunkingConfig
from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.index_status import index_status
from chalicelib.ingest.indexer import IngestConfig, Ingestor
from chalicelib.models.records import SearchFilters
from tests.conftest import N_EXAMPLES


def _search(store, text: str, **filters):  # type: ignore[no-untyped-def]
    return [h.chunk_id for h in store.keyword_search(text, SearchFilters(**filters), 50)]


def test_first_run_indexes_everything_and_second_run_embeds_nothing(
    ingestor: Ingestor, corpus: Path, store, fake_embedder
):
    # GIVEN the example corpus indexed once
    first = ingestor.index_folder(corpus, "examples")
    assert first.ok and first.added == N_EXAMPLES and first.chunks_embedded == first.chunks_written > 23
    embedded = len(fake_embedder.embedded)
    # WHEN it is indexed again unchanged
    second = ingestor.index_folder(corpus, "examples")
    # THEN nothing is re-chunked or re-embedded
    assert (second.unchanged, second.added, second.updated, second.chunks_embedded) == (N_EXAMPLES, 0, 0, 0)
    assert len(fake_embedder.embedded) == embedded
    assert store.stats().chunks == first.chunks_written


def test_an_edited_file_re_embeds_only_its_own_chunks(ingestor: Ingestor, corpus: Path, store, fake_embedder):
    ingestor.index_folder(corpus, "examples")
    doc = corpus / "precios" / "ancla-precios.md"
    before_ids = {
        c.chunk_id
        for c in store.document_chunks(store.get_document("examples", "precios/ancla-precios.md").document_id)
    }
    fake_embedder.embedded.clear()
    doc.write_text(doc.read_text(encoding="utf-8").replace("12 € al mes", "14 € al mes"), encoding="utf-8")

    report = ingestor.index_folder(corpus, "examples")

    assert (report.updated, report.unchanged) == (1, N_EXAMPLES - 1)
    assert 1 <= report.chunks_embedded <= len(before_ids)
    # only the edited document's text is embedded: its chunk and its quotable sentences (each under its heading)
    edited = " ".join(doc.read_text(encoding="utf-8").split())
    assert all(
        "Ancla" in t or " ".join(t.split(": ", 1)[-1].split()) in edited for t in fake_embedder.embedded
    ), fake_embedder.embedded
    assert _search(store, "14") and not any(
        "12 € al mes" in c.content for c in store.get_chunks(_search(store, "instancia"))
    )


def test_a_deleted_file_loses_its_chunks_from_every_store(ingestor: Ingestor, corpus: Path, store):
    ingestor.index_folder(corpus, "examples")
    record = store.get_document("examples", "docs/ancla/restore.md")
    ids = [c.chunk_id for c in store.document_chunks(record.document_id)]
    (corpus / "docs" / "ancla" / "restore.md").unlink()

    report = ingestor.index_folder(corpus, "examples")

    assert report.deleted == 1 and report.chunks_deleted == len(ids)
    assert store.get_document("examples", "docs/ancla/restore.md") is None
    assert store.get_chunks(ids) == [] and store.get_vectors(ids) == {}
    assert not set(ids) & set(_search(store, "restore replays transaction"))


def test_indexing_one_source_never_touches_another(ingestor: Ingestor, corpus: Path, tmp_path: Path, store):
    ingestor.index_folder(corpus, "examples")
    other = tmp_path / "other"
    other.mkdir()
    (other / "note.md").write_text(
        "# Nota\n\nUn documento de otra fuente sobre facturación.\n", encoding="utf-8"
    )
    before = store.stats().by_source["examples"]

    ingestor.index_folder(other, "team-b")
    (other / "note.md").unlink()
    report = ingestor.index_folder(other, "team-b")

    assert report.deleted == 1
    assert store.stats().by_source == {"examples": before}


def test_bad_files_are_recorded_as_failed_and_the_rest_is_indexed(fake_embedder, tmp_path: Path, store):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.md").write_text("# Bueno\n\nEste documento se indexa sin problemas.\n", encoding="utf-8")
    (folder / "empty.md").write_bytes(b"")
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02PK\x03\x04" * 20)
    (folder / "latin1.md").write_bytes("# Año\n\nCañón y acción.".encode("latin-1"))
    (folder / "broken.md").write_bytes(b"---\ntitle: [oops\n---\n# X\n")
    (folder / "huge.txt").write_text("palabra " * 1_000_000, encoding="utf-8")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n")
    config = IngestConfig(max_file_bytes=1_000_000)
    ingestor = Ingestor(store, store, fake_embedder, Vocabulary(), config)

    report = ingestor.index_folder(folder, "mixed")

    assert report.added == 1 and not report.ok
    reasons = dict(report.failed)
    assert set(reasons) == {"empty.md", "binary.txt", "latin1.md", "broken.md", "huge.txt"}
    assert "empty" in reasons["empty.md"] and "binary" in reasons["binary.txt"]
    assert (
        "UTF-8" in reasons["latin1.md"]
        and "YAML" in reasons["broken.md"]
        and "too large" in reasons["huge.txt"]
    )
    assert report.skipped == [("logo.png", "binary file type (.png)")]
    manifest = {d.key: d for d in store.list_documents("mixed")}
    assert manifest["binary.txt"].status == "failed" and "binary" in manifest["binary.txt"].error
    assert manifest["good.md"].status == "indexed"
    status = index_status(store)  # what /stats and the status page show
    assert status.documents["failed"] == 5 and status.documents["indexed"] == 1
    assert {f.key: f.error for f in status.failures} == reasons
    assert len(index_status(store, limit=2).failures) == 2


def test_a_file_that_turns_bad_keeps_its_previous_version_searchable(
    ingestor: Ingestor, tmp_path: Path, store
):
    folder = tmp_path / "f"
    folder.mkdir()
    doc = folder / "tarifas.md"
    doc.write_text("# Tarifas\n\nEl plan anual tiene un descuento del veinte por ciento.\n", encoding="utf-8")
    ingestor.index_folder(folder, "s")
    doc.write_bytes(b"\x00\x00binary now")

    report = ingestor.index_folder(folder, "s")

    assert dict(report.failed)["tarifas.md"].startswith("binary")
    record = store.get_document("s", "tarifas.md")
    assert record.status == "failed" and record.chunk_count == 1
    assert _search(store, "descuento")  # the old text is still found
    doc.write_text("# Tarifas\n\nAhora el descuento anual es del treinta por ciento.\n", encoding="utf-8")
    again = ingestor.index_folder(folder, "s")
    assert again.updated == 1 and again.ok
    assert store.get_document("s", "tarifas.md").status == "indexed"
    assert any("treinta" in c.content for c in store.get_chunks(_search(store, "descuento")))
    assert not any("veinte" in c.content for c in store.get_chunks(_search(store, "descuento")))


def test_a_mixed_language_document_puts_each_chunk_in_its_own_namespace(fake_embedder, tmp_path: Path, store):
    folder = tmp_path / "mixed-lang"
    folder.mkdir()
    es = (
        "Este apartado explica con detalle cómo se configuran las copias de seguridad cifradas en el servidor. "
        * 4
    )
    en = (
        "This section explains in detail how encrypted backups are configured on the server every night. " * 4
    )
    (folder / "guia.md").write_text(
        f"# Guía\n\n{es}\n\n## Backups\n\n{en}\n\n## Copias\n\n{es}\n", encoding="utf-8"
    )
    config = IngestConfig(chunking=ChunkingConfig(max_tokens=90, min_tokens=10))
    ingestor = Ingestor(store, store, fake_embedder, Vocabulary(), config)

    ingestor.index_folder(folder, "m")

    record = store.get_document("m", "guia.md")
    chunks = store.document_chunks(record.document_id)
    assert record.lang == "es"
    assert [c.lang for c in chunks] == ["es", "en", "es"]
    en_chunk = chunks[1]
    assert en_chunk.enrichment.questions and all(not q.startswith("¿") for q in en_chunk.enrichment.questions)
    assert {h.chunk_id for h in store.keyword_search("backups", SearchFilters(langs=("en",)), 5)} == {
        en_chunk.chunk_id
    }


def test_raw_embedding_text_keeps_the_enrichment_for_keyword_search(store, fake_embedder, tmp_path: Path):

    folder = tmp_path / "raw"
    folder.mkdir()
    (folder / "planes.md").write_text(
        "# Planes\n\nEl plan Profesional se factura por agente y por mes.\n", encoding="utf-8"
    )
    config = IngestConfig(embed_text="raw", quote_vectors=False)
    ingestor = Ingestor(store, store, fake_embedder, Vocabulary(), config)
    ingestor.index_folder(folder, "s")
    (chunk,) = store.document_chunks(store.get_document("s", "planes.md").document_id)
    assert chunk.embedding_text == chunk.content and fake_embedder.embedded == [chunk.content]
    assert chunk.enrichment.questions  # still enriched, still searchable by its questions' words
    question_word = chunk.enrichment.questions[0].split()[1]
    assert store.keyword_search(question_word, SearchFilters(), 5)


def test_a_document_that_fails_to_write_is_logged_recorded_and_the_rest_indexed(
    store, fake_embedder, tmp_path: Path, caplog
):
    class Flaky(type(fake_embedder)):  # type: ignore[misc]
        def embed_documents(self, texts):  # type: ignore[no-untyped-def]
            if any("explota" in t for t in texts):
                raise RuntimeError("embedding server went away")
            return super().embed_documents(texts)

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Uno\n\nEste documento se indexa sin problemas.\n", encoding="utf-8")
    (docs / "b.md").write_text("# Dos\n\nEste documento explota al embeberlo.\n", encoding="utf-8")
    with caplog.at_level("ERROR", logger="sabio.ingest"):
        report = Ingestor(store, store, Flaky(), Vocabulary()).index_folder(docs, "s")
    assert report.added == 1 and [k for k, _ in report.failed] == ["b.md"]
    assert "embedding server went away" in report.failed[0][1]
    assert store.get_document("s", "b.md").status == "failed"
    logged = [r for r in caplog.records if r.name == "sabio.ingest"]
    assert len(logged) == 1 and "s/b.md" in logged[0].getMessage() and logged[0].exc_info is not None


def test_a_run_in_small_batches_indexes_the_same_as_one_batch(tmp_path: Path, corpus: Path, fake_embedder):
    """Documents go to the store one batch at a time (bounded memory); the result does not depend on it.
    (Products are configured here: one learned from a document's front matter reaches only the documents
    read after it, the same as one S3 event at a time.)"""
    from chalicelib.enrichment.vocabulary import Vocabulary
    from chalicelib.stores.sqlite import SQLiteStore

    results = []
    for size in (1, 1000):
        store = SQLiteStore(tmp_path / f"batch-{size}.db")
        vocabulary = Vocabulary(products={"faro": [], "marea": [], "ancla": []})
        ingestor = Ingestor(store, store, fake_embedder, vocabulary, IngestConfig(batch_documents=size))
        seen: list[tuple[str, int, int]] = []
        ingestor.progress = lambda stage, done, total, _key, seen=seen: seen.append((stage, done, total))
        report = ingestor.index_folder(corpus, "s")
        chunks = {
            c.chunk_id: (c.content, c.enrichment.model_dump())
            for d in store.list_documents("s")
            for c in store.document_chunks(d.document_id)
        }
        reads = [done for stage, done, _ in seen if stage == "read"]
        assert reads == sorted(reads) and reads[-1] == report.added  # one bar across the batches
        results.append((report.added, report.chunks_written, chunks))
    assert results[0] == results[1] and results[0][0] > 1


def test_a_run_that_would_delete_most_of_a_source_holds_it_until_confirmed(
    ingestor: Ingestor, corpus: Path, tmp_path: Path, store, fake_embedder
):
    """A folder that comes up empty (an unmounted share, a wrong path) deletes nothing: the documents stay
    searchable and /stats lists them until the operator confirms; a folder that comes back clears it."""
    first = ingestor.index_folder(corpus, "docs")
    before = _search(store, "precio")
    assert first.added == N_EXAMPLES and before
    empty = tmp_path / "empty"
    empty.mkdir()

    held = ingestor.index_folder(empty, "docs")
    assert held.deleted == 0 and len(held.held) == N_EXAMPLES
    assert _search(store, "precio") == before
    assert len(index_status(store).held_deletions) == N_EXAMPLES

    fake_embedder.embedded.clear()
    back = ingestor.index_folder(corpus, "docs")  # it was a mount that came back: nothing to do
    assert back.unchanged == N_EXAMPLES and not back.held and index_status(store).held_deletions == []
    assert fake_embedder.embedded == []

    ingestor.index_folder(empty, "docs")
    confirmed = ingestor.index_folder(empty, "docs", confirm_deletions=True)
    assert confirmed.deleted == N_EXAMPLES and not confirmed.held
    assert _search(store, "precio") == [] and index_status(store).held_deletions == []


def test_a_few_deletions_are_never_held(fake_embedder, tmp_path: Path, store):
    """The guard weighs a share of the source, over a floor: a small folder loses a file as it always did."""
    folder = tmp_path / "small"
    folder.mkdir()
    for n in range(8):
        (folder / f"doc{n}.md").write_text(f"# Nota {n}\n\nTexto de la nota número {n}.\n", encoding="utf-8")
    ingestor = Ingestor(store, store, fake_embedder, Vocabulary(), IngestConfig(delete_guard_min=2))
    ingestor.index_folder(folder, "s")
    for n in range(2):  # 2 of 8: at the floor
        (folder / f"doc{n}.md").unlink()
    assert ingestor.index_folder(folder, "s").deleted == 2
    for n in range(2, 5):  # 3 of 6: over the floor and over 20 %
        (folder / f"doc{n}.md").unlink()
    report = ingestor.index_folder(folder, "s")
    assert report.deleted == 0 and sorted(report.held) == ["doc2.md", "doc3.md", "doc4.md"]


def test_a_file_indexed_again_alone_keeps_the_product_its_folder_named(store, fake_embedder, tmp_path: Path):
    # the product is named once, in a page's front matter; a later run that reads only the changed code file
    # (a new process, a new vocabulary) gives its chunks the product the first run gave them
    folder = tmp_path / "products"
    (folder / "code").mkdir(parents=True)
    (folder / "planes.md").write_text(
        "---\nproduct: faro\n---\n# Planes de Faro\n\nFaro cuesta 20 EUR por agente y mes.\n",
        encoding="utf-8",
    )
    code = folder / "code" / "faro_client.py"
    code.write_text('def create_ticket(subject):\n    """Open a Faro ticket."""\n    return subject\n')

    def code_products() -> set[str]:
        record = store.get_document("p", "code/faro_client.py")
        return {c.product for c in store.document_chunks(record.document_id)}

    Ingestor(store, store, fake_embedder, Vocabulary()).index_folder(folder, "p")
    assert code_products() == {"faro"}
    code.write_text(
        code.read_text() + '\n\ndef close_ticket(ticket_id):\n    """Close it."""\n    return None\n'
    )
    report = Ingestor(store, store, fake_embedder, Vocabulary()).index_folder(folder, "p")
    assert (report.updated, report.unchanged) == (1, 1)
    assert code_products() == {"faro"}


def test_a_spreadsheet_is_in_the_language_of_its_words(store, fake_embedder, tmp_path: Path):
    # a price list is mostly a table's pipes and numbers: read as they are, they were "English" (at 0.09); its
    # words are Spanish, so the document and its chunk are, and insights no longer calls it English
    import openpyxl

    folder = tmp_path / "precios"
    folder.mkdir()
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Precios"
    for row in (
        ("Tratamiento", "Precio (EUR)", "Duración (min)"),
        ("Limpieza dental", 45, 40),
        ("Empaste", 60, 30),
        ("Endodoncia", 280, 90),
        ("Blanqueamiento dental", 250, 60),
        ("Extracción simple", 70, 30),
        ("Implante dental", 1100, 120),
    ):
        sheet.append(row)
    book.save(folder / "precios.xlsx")
    Ingestor(store, store, fake_embedder, Vocabulary()).index_folder(folder, "p")
    record = store.get_document("p", "precios.xlsx")
    assert record.lang == "es" and {c.lang for c in store.document_chunks(record.document_id)} == {"es"}
