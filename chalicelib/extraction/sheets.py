"""Spreadsheets (.xlsx) and CSV files: one section per sheet, rows rendered as a Markdown table whose
header row is repeated in every piece, so a chunk of rows reads alone. Each block's line range holds the
sheet's own row numbers (the document's unit is ``row``)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from chalicelib.errors import ExtractionError
from chalicelib.extraction.containers import core_properties, open_container
from chalicelib.extraction.markdown import markdown_table, slugify
from chalicelib.models.extraction import Block, ExtractedDocument, Section
from chalicelib.text import token_estimate

MAX_CELLS = 2_000_000
ROWS_TOKENS = 220  # rows per block: a block (header included) stays under the chunk budget


def extract_xlsx(data: bytes, fallback_title: str) -> ExtractedDocument:
    import openpyxl

    archive = open_container(data, ".xlsx")
    meta = core_properties(archive)
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:
        raise ExtractionError(f"corrupt .xlsx file: {type(exc).__name__}: {exc}") from exc
    try:
        budget = [MAX_CELLS]
        sections = [
            section
            for sheet in book.worksheets
            if (section := _sheet(sheet.title, _numbered(sheet.iter_rows(values_only=True)), budget))
        ]
    finally:
        book.close()
    if not sections:
        raise ExtractionError("no indexable text in the spreadsheet")
    title = str(meta.pop("title", None) or fallback_title)
    return ExtractedDocument(title=title, format="xlsx", sections=sections, metadata=meta, unit="row")


def extract_csv(text: str, fallback_title: str) -> ExtractedDocument:
    sample = text[:20_000]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = csv.reader(io.StringIO(text), dialect)
    section = _sheet(fallback_title, _numbered(rows), [MAX_CELLS])
    if section is None:
        raise ExtractionError("no indexable text in the CSV file")
    return ExtractedDocument(title=fallback_title, format="csv", sections=[section], unit="row")


def _numbered(rows: Iterable[Sequence[Any]]) -> Iterator[tuple[int, list[str]]]:
    for number, row in enumerate(rows, 1):
        yield number, [_cell(v) for v in row]


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if hasattr(value, "isoformat"):
        value = value.isoformat().removesuffix("T00:00:00")
    return " ".join(str(value).split()).replace("|", "\\|")


def _sheet(name: str, rows: Iterator[tuple[int, list[str]]], budget: list[int]) -> Section | None:
    """The sheet as a heading and blocks of rows, each block led by the header row: the first row of two or
    more cells. The one-cell rows above it (a title in A1, a line saying what the figures are) are the
    sheet's caption, not its header: "Tarifas 2025 — Almoraz | (2) | (3)" would name no column. A sheet of
    one column has its first row as header."""
    filled = list(_filled(rows, budget))
    if not filled:
        return None
    at = next((n for n, (_, cells) in enumerate(filled) if sum(bool(c) for c in cells) >= 2), 0)
    caption = [Block("paragraph", " ".join(c for c in cells if c), n, n) for n, cells in filled[:at]]
    header, body = filled[at][1], filled[at + 1 :]
    blocks = [Block("heading", f"# {name}", 1, 1), *caption, *_row_blocks(header, body)]
    return Section((name,), 1, blocks, anchor=slugify(name), alone=True)


def _row_blocks(header: list[str], rows: list[tuple[int, list[str]]]) -> list[Block]:
    """The rows in blocks of at most ROWS_TOKENS, each led by the header (one block at least)."""
    blocks: list[Block] = []
    pending: list[tuple[int, list[str]]] = []
    tokens = 0
    for number, cells in rows:
        cost = token_estimate(" ".join(cells)) + len(cells)
        if pending and tokens + cost > ROWS_TOKENS:
            blocks.append(_rows_block(header, pending))
            pending, tokens = [], 0
        pending.append((number, cells))
        tokens += cost
    if pending or not blocks:
        blocks.append(_rows_block(header, pending))
    return blocks


def _filled(rows: Iterator[tuple[int, list[str]]], budget: list[int]) -> Iterator[tuple[int, list[str]]]:
    """The rows that hold something, trailing empty cells dropped; over MAX_CELLS cells in all, an error."""
    for number, cells in rows:
        budget[0] -= len(cells)
        if budget[0] < 0:
            raise ExtractionError(
                f"spreadsheet has more than {MAX_CELLS:,} cells; split it into smaller files"
            )
        while cells and not cells[-1]:
            cells.pop()
        if any(cells):
            yield number, cells


def _rows_block(header: list[str], rows: list[tuple[int, list[str]]]) -> Block:
    width = max([len(header), *(len(c) for _, c in rows)])
    head = [h or f"({i + 1})" for i, h in enumerate(header + [""] * (width - len(header)))]  # unnamed columns
    lines = markdown_table([head, *(c for _, c in rows)])
    first = rows[0][0] if rows else 1
    last = rows[-1][0] if rows else 1
    return Block("table", "\n".join(lines), first, last)
