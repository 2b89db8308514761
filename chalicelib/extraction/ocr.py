"""OCR of a PDF page with no text layer: the page rendered by pdfium, read by Tesseract (Spanish + English)
when it is installed (Debian: ``tesseract-ocr tesseract-ocr-spa``)."""

from __future__ import annotations

import functools
import io
import os
import shutil
import subprocess

DPI = 300
TIMEOUT_S = 120


@functools.cache
def available() -> bool:
    """Tesseract is on the PATH with the languages Sabio reads (SABIO_OCR_LANGUAGES, default spa+eng)."""
    if shutil.which("tesseract") is None:
        return False
    try:
        listed = subprocess.run(
            ["tesseract", "--list-langs"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return False
    return all(lang in listed for lang in languages().split("+"))


def languages() -> str:
    return os.environ.get("SABIO_OCR_LANGUAGES", "spa+eng")


def page_text(data: bytes, index: int) -> str:
    """The text Tesseract reads on page ``index`` (0-based) of the PDF ``data``."""
    import pypdfium2

    pdf = pypdfium2.PdfDocument(data)
    try:
        image = pdf[index].render(scale=DPI / 72).to_pil().convert("L")
    finally:
        pdf.close()
    png = io.BytesIO()
    image.save(png, format="PNG")
    done = subprocess.run(
        ["tesseract", "stdin", "stdout", "-l", languages(), "--psm", "3"],
        input=png.getvalue(),
        # Tesseract's OpenMP threads spin while they wait: on 2 cores one page took 14 s with them and 2.2 s
        # with one thread (measured, bench/documents.py)
        env={**os.environ, "OMP_THREAD_LIMIT": os.environ.get("OMP_THREAD_LIMIT", "1")},
        capture_output=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"tesseract failed: {done.stderr.decode(errors='replace').strip()[:200]}")
    return done.stdout.decode("utf-8", errors="replace")
