"""PDF, Word, PowerPoint, spreadsheets and CSV over real fixtures (tests/fixtures/documents, made by
LibreOffice and friends: see make.py there): structure, page / slide / sheet-and-row ranges in chunks,
items and citations, OCR of a scan, and every bad file refused with its reason while the rest is indexed."""

from __future__ import annotations

import io
import shutil
import time
import zipfile
from pathlib import Path

import pytest

from chalicelib.errors import ExtractionError
from chalicelib.extraction import ocr
from chalicelib.extraction.dispatch import extract
from chalicelib.ingest.indexer import Ingestor
from tests.conftest import ROOT

DOCS = ROOT / "tests" / "fixtures" / "documents"
LIMIT = 5_000_000


def read(name: str):  # type: ignore[no-untyped-def]
    return extract(name, (DOCS / name).read_bytes(), max_bytes=LIMIT)


def blocks(doc):  # type: ignore[no-untyped-def]
    return [(s.heading_path, b) for s in doc.sections for b in s.blocks]


def test_pdf_headings_tables_pages_and_no_running_lines():
    doc = read("manual-faro.pdf")
    assert doc.title == "Manual de Faro" and doc.unit == "page"
    assert doc.metadata["author"] == "Equipo de documentación de Altamar"
    paths = [s.heading_path for s in doc.sections]
    assert ("Manual de Faro", "Planes y precios") in paths
    assert ("Manual de Faro", "Automatizaciones", "Reglas de asignación") in paths
    assert ("Manual de Faro", "Preguntas frecuentes", "¿Hay límite de agentes?") in paths
    table = next(b for _, b in blocks(doc) if b.kind == "table")
    assert table.text.splitlines()[0] == "| Plan | Tarifa | Asistente de IA | Canales |"
    assert (
        "| Profesional | 49 € / agente / mes | 5.000 respuestas al mes | Correo, chat y WhatsApp |"
        in table.text
    )
    text = doc.text
    assert "Altamar · Manual de Faro" not in text  # the running header, on every page but one
    assert "Página" not in text  # the footer's page numbers
    assert "1Los precios no incluyen IVA." in text  # a footnote is text, not a running line
    # a paragraph cut by a page break is one block, with both pages
    across = [b for _, b in blocks(doc) if b.line_start != b.line_end]
    assert across and all(b.kind == "paragraph" for b in across)
    assert {b.line_end for _, b in blocks(doc)} == {1, 2, 3}


def test_pdf_hyphenation_at_line_ends_is_joined():
    from chalicelib.extraction.pdf import _join_lines

    assert (
        _join_lines(["La configura-", "ción del correo", "de soporte."])
        == "La configuración del correo de soporte."
    )
    assert _join_lines(["Precio: 19 € -", "IVA aparte"]) == "Precio: 19 € - IVA aparte"  # not a split word
    assert _join_lines(["pre-", "Venta"]) == "pre- Venta"  # a capital starts a new word


def test_docx_headings_lists_tables_and_footnotes():
    doc = read("manual-faro.docx")
    assert doc.title == "Manual de Faro" and doc.format == "docx"
    assert doc.metadata["author"] == "Equipo de documentación de Altamar"
    paths = [s.heading_path for s in doc.sections]
    assert ("Manual de Faro", "Automatizaciones", "Reglas de asignación") in paths
    kinds = {b.kind for _, b in blocks(doc)}
    assert {"heading", "paragraph", "list", "table"} <= kinds
    listing = next(b for _, b in blocks(doc) if b.kind == "list" and "organización" in b.text)
    assert listing.text.splitlines() == [
        "1. Cree la organización desde el panel de Altamar.",
        "2. Invite a los agentes por correo.",
        "3. Conecte el correo de soporte y el chat web.",
    ]
    assert "Los precios no incluyen IVA." in doc.text  # the footnote


def test_pptx_one_section_per_slide_with_notes_and_tables():
    doc = read("deck-marea.pptx")
    assert doc.title == "Marea para equipos de ventas" and doc.unit == "slide"
    assert [s.heading_path for s in doc.sections] == [
        ("Marea: automatizaciones de marketing",),
        ("Precios de Marea",),
        ("Cómo empezar",),
    ]
    assert [{b.line_start for b in s.blocks} for s in doc.sections] == [{1}, {2}, {3}]
    prices = doc.sections[1]
    assert any(b.kind == "table" and "| Crecimiento | 10.000 | 79 € / mes |" in b.text for b in prices.blocks)
    assert "Notes: El plan Crecimiento es el más vendido." in [b.text for b in prices.blocks]


def test_xlsx_and_csv_rows_read_alone_with_their_header():
    doc = read("precios.xlsx")
    assert doc.title == "Lista de precios de Altamar" and doc.unit == "row"
    assert [s.heading_path for s in doc.sections] == [("Precios",), ("Regiones",)]
    regions = [b for b in doc.sections[1].blocks if b.kind == "table"]
    assert len(regions) > 1  # 60 rows do not fit one chunk
    for b in regions:
        assert b.text.splitlines()[0] == "| Región | Centro de datos | Latencia media (ms) |"
    assert (regions[0].line_start, regions[-1].line_end) == (2, 61)  # the sheet's own row numbers
    assert all(a.line_end + 1 == b.line_start for a, b in zip(regions, regions[1:], strict=False))
    csv_doc = read("tarifas.csv")
    table = next(b for b in csv_doc.sections[0].blocks if b.kind == "table")
    assert table.text.splitlines()[0] == "| Plan | Precio | Moneda |"  # ';' recognised as the separator
    assert (table.line_start, table.line_end) == (2, 4)


@pytest.mark.skipif(
    not ocr.available(), reason="Tesseract with spa+eng is not installed (.ci/run installs it)"
)
def test_a_scanned_pdf_is_read_by_ocr():
    doc = read("scanned-faro.pdf")
    assert doc.metadata["ocr_pages"] == 1
    text = " ".join(doc.text.split())
    assert "Faro es la mesa de ayuda de Altamar para equipos de soporte" in text
    assert "Para instalar Faro, un administrador crea la organización" in text


def test_a_scan_without_ocr_fails_with_the_reason(monkeypatch):
    monkeypatch.setattr(ocr, "available", lambda: False)
    with pytest.raises(ExtractionError, match="needs OCR"):
        read("scanned-faro.pdf")


def _pages_pdf(n: int) -> bytes:
    """A valid PDF of ``n`` empty pages (the page tree written out by hand)."""
    kids = " ".join(f"{3 + i} 0 R" for i in range(n))
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {n} >>"]
    objects += ["<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"] * n
    out, offsets = io.BytesIO(), []
    out.write(b"%PDF-1.4\n")
    for i, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{i} 0 obj\n{body}\nendobj\n".encode())
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    out.write("".join(f"{o:010d} 00000 n \n" for o in offsets).encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def _zip_bomb() -> bytes:
    """A .docx-shaped ZIP whose document part inflates to 60 MB of zeros (from ~60 KB)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w") as part:
            for _ in range(60):
                part.write(b"\0" * 1_000_000)
    return out.getvalue()


def bad_files() -> dict[str, tuple[bytes, str]]:
    docx = (DOCS / "manual-faro.docx").read_bytes()
    return {
        "encrypted.pdf": ((DOCS / "encrypted.pdf").read_bytes(), "encrypted PDF"),
        "truncated.pdf": ((DOCS / "manual-faro.pdf").read_bytes()[:20_000], "corrupt PDF"),
        "corrupt.docx": (docx[:4000] + b"\0" * 100 + docx[4100:], "corrupt .docx file"),
        "thousands.pdf": (_pages_pdf(2000), "PDF has 2,000 pages; the limit is 1,000"),
        "huge.xlsx": (b"PK\x03\x04" + b"\0" * 50_000_000, "file too large"),
        "bomb.docx": (_zip_bomb(), "zip bomb"),
        "not-a-deck.pptx": (b"just some text, not a presentation", "corrupt .pptx file"),
    }


@pytest.mark.parametrize("name", list(bad_files()))
def test_each_bad_file_is_refused_quickly_with_its_reason(name):
    data, reason = bad_files()[name]
    started = time.perf_counter()
    with pytest.raises(ExtractionError) as refused:
        extract(name, data, max_bytes=LIMIT)
    assert reason in str(refused.value)
    assert time.perf_counter() - started < 20  # bounded: refused before the work, not after it


def test_a_sheet_over_the_cell_limit_is_refused(monkeypatch):
    from chalicelib.extraction import sheets

    monkeypatch.setattr(sheets, "MAX_CELLS", 50)
    with pytest.raises(ExtractionError, match="more than 50 cells"):
        read("precios.xlsx")


def test_a_run_with_bad_files_indexes_the_rest_and_loses_nothing(ingestor: Ingestor, store, tmp_path: Path):
    folder = tmp_path / "drive"
    shutil.copytree(DOCS, folder, ignore=shutil.ignore_patterns("src", "*.py", "encrypted.pdf", "scanned*"))
    first = ingestor.index_folder(folder, "drive")
    assert first.ok and first.added == 5, first.failed
    before = {c.chunk_id for d in store.list_documents("drive") for c in store.document_chunks(d.document_id)}
    for name, (data, _) in bad_files().items():
        (folder / name).write_bytes(data)
    (folder / "manual-faro.docx").write_bytes(bad_files()["corrupt.docx"][0])  # a good file turns bad
    report = ingestor.index_folder(folder, "drive")
    reasons = dict(report.failed)
    assert set(reasons) == {*bad_files(), "manual-faro.docx"}
    for name, (_, reason) in bad_files().items():
        assert reason in reasons[name], name
    after = {c.chunk_id for d in store.list_documents("drive") for c in store.document_chunks(d.document_id)}
    assert before <= after  # the Word file's previous version is still searchable


def test_chunks_carry_pages_slides_and_rows(ingestor: Ingestor, store, tmp_path: Path):
    folder = tmp_path / "drive"
    shutil.copytree(DOCS, folder, ignore=shutil.ignore_patterns("src", "*.py", "encrypted.pdf", "scanned*"))
    assert ingestor.index_folder(folder, "drive").ok
    by_key = {d.key: store.document_chunks(d.document_id) for d in store.list_documents("drive")}
    pdf = by_key["manual-faro.pdf"]
    assert all(c.page_start and c.page_end and c.line_start is None for c in pdf)
    assert pdf[0].page_start == 1 and pdf[-1].page_end == 3
    assert [c.slide_start for c in by_key["deck-marea.pptx"]] == sorted(
        c.slide_start for c in by_key["deck-marea.pptx"]
    )
    sheet_chunks = by_key["precios.xlsx"]
    assert {c.sheet for c in sheet_chunks} == {"Precios", "Regiones"}
    assert all(c.row_start and c.row_end and c.row_start <= c.row_end for c in sheet_chunks)
    assert all(len({c.sheet}) == 1 for c in sheet_chunks)  # a chunk never spans two sheets
    docx = by_key["manual-faro.docx"]
    assert all(c.line_start is None and c.page_start is None for c in docx)  # Word has no fixed pages


@pytest.mark.slow
def test_a_pdf_answer_cites_its_page(tmp_path: Path):
    from chalicelib.composition import Container
    from chalicelib.models.api import RetrieveRequest
    from chalicelib.settings import Settings

    folder = tmp_path / "drive"
    shutil.copytree(
        DOCS, folder, ignore=shutil.ignore_patterns("src", "*.py", "encrypted.pdf", "scanned*", "*.docx")
    )
    container = Container(Settings(store_path=str(tmp_path / "s.db")))
    assert container.ingestor().index_folder(folder, "drive").ok
    answer = container.answerer.answer(
        RetrieveRequest(query="¿Qué pasa con los tickets si cancelo Faro?"), None
    )
    assert answer.answered and "noventa días" in answer.answer
    cite = answer.citations[0]
    assert cite.title == "Manual de Faro" and cite.page_start == 2 and cite.page_end in (2, 3)
    item = next(i for i in answer.items if i.chunk_id == cite.chunk_id)
    assert item.page_start == 2 and item.line_start is None
    found = container.retrieval.retrieve(RetrieveRequest(query="precio del plan Crecimiento de Marea"), None)
    top = found.items[:3]
    deck = next(i for i in top if i.title == "Marea para equipos de ventas")
    assert deck.slide_start <= 2 <= deck.slide_end and "79 € / mes" in deck.content  # the price slide
    sheet = next(i for i in top if i.title == "Lista de precios de Altamar")
    assert (sheet.sheet, sheet.row_start, sheet.row_end) == (
        "Precios",
        1,
        7,
    ) and "Crecimiento" in sheet.content


def test_file_metadata_fills_what_front_matter_would_and_s3_metadata_wins(ingestor: Ingestor, store):
    pdf = (DOCS / "manual-faro.pdf").read_bytes()
    deck = (DOCS / "deck-marea.pptx").read_bytes()
    report = ingestor.index_objects(
        "s3",
        [("manual.pdf", lambda: pdf), ("deck.pptx", lambda: deck)],
        metadata={"manual.pdf": {"title": "Manual oficial", "product": "faro"}},
    )
    assert report.ok
    docs = {d.key: d for d in store.list_documents("s3")}
    assert docs["manual.pdf"].title == "Manual oficial"  # the object's metadata over the PDF's own
    assert docs["deck.pptx"].title == "Marea para equipos de ventas"  # the deck's core properties
    manual = store.document_chunks(docs["manual.pdf"].document_id)
    assert {c.product for c in manual} == {"faro"} and {c.lang for c in manual} == {"es"}  # not its en-US tag


def test_a_pdf_with_some_scanned_pages_and_no_ocr_says_which_pages_it_could_not_read(
    ingestor: Ingestor, store, monkeypatch, tmp_path: Path
):
    import pypdfium2

    monkeypatch.setattr(ocr, "available", lambda: False)
    merged = pypdfium2.PdfDocument.new()
    merged.import_pages(pypdfium2.PdfDocument((DOCS / "manual-faro.pdf").read_bytes()))
    merged.import_pages(pypdfium2.PdfDocument((DOCS / "scanned-faro.pdf").read_bytes()))
    out = io.BytesIO()
    merged.save(out)
    folder = tmp_path / "drive"
    folder.mkdir()
    (folder / "mixed.pdf").write_bytes(out.getvalue())
    report = ingestor.index_folder(folder, "drive")
    assert report.ok and report.added == 1  # the text pages are indexed...
    assert report.notes == [
        ("mixed.pdf", "pages 4 have no text layer and were not read: needs OCR (install Tesseract)")
    ]
