"""PDF extraction speed: pages per second with a text layer, and with OCR (``python bench/documents.py``;
part of ``make bench``, or ``--only documents``). Extraction alone, as indexing runs it (dispatch.extract),
on the committed fixtures and the example PDF, each read several times."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from chalicelib.extraction import ocr  # noqa: E402
from chalicelib.extraction.dispatch import extract  # noqa: E402

TEXT_PDFS = [
    ROOT / "tests/fixtures/documents/manual-faro.pdf",
    ROOT / "examples/manuales/guia-administracion-faro.pdf",
]
SCANNED = ROOT / "tests/fixtures/documents/scanned-faro.pdf"


def _pages(path: Path) -> int:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(path.read_bytes())
    try:
        return len(pdf)
    finally:
        pdf.close()


def pages_per_second(paths: list[Path], rounds: int) -> dict[str, float]:
    pages, started = 0, time.perf_counter()
    for _ in range(rounds):
        for path in paths:
            extract(path.name, path.read_bytes(), max_bytes=50_000_000)
            pages += _pages(path)
    seconds = time.perf_counter() - started
    return {"pages": pages, "seconds": round(seconds, 2), "pages_per_s": round(pages / seconds, 2)}


def measure(rounds: int = 5) -> dict[str, object]:
    result: dict[str, object] = {"text_layer": pages_per_second(TEXT_PDFS, rounds)}
    if ocr.available():
        result["ocr"] = {
            **pages_per_second([SCANNED], max(1, rounds // 2)),
            "dpi": ocr.DPI,
            "languages": ocr.languages(),
        }
    else:
        result["ocr"] = {"skipped": "Tesseract with spa+eng is not installed"}
    return result


if __name__ == "__main__":
    print(json.dumps(measure(), indent=2))
