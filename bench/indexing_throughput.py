"""Indexing throughput: documents and chunks per second when `sabio index` reads a folder into a fresh store
(examples/ and the Spanish FastAPI docs; part of ``make bench``)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chalicelib.composition import Container  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"
FASTAPI = EVAL / "fastapi_docs"


def index_throughput(folder: Path, source_id: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        container = Container(Settings(store_path=f"{tmp}/s.db"))
        report = container.ingestor().index_folder(folder, source_id)
    return {
        "documents": report.added,
        "failed": len(report.failed),
        "chunks": report.chunks_written,
        "seconds": round(report.seconds, 2),
        "chunks_per_s": round(report.chunks_written / report.seconds, 2),
    }


def fastapi_folder(lang: str, into: Path) -> Path:
    """The FastAPI docs of one language without `_llm-test.md` (the eval README says to skip it)."""
    target = into / f"fastapi-{lang}"
    shutil.copytree(FASTAPI / lang, target, ignore=shutil.ignore_patterns("_llm-test.md"))
    return target


def measure() -> dict[str, object]:
    """examples/ and the FastAPI docs (es), each into a store of its own."""
    print("indexing examples/ ...", flush=True)
    result: dict[str, object] = {"index_examples": index_throughput(ROOT / "examples", "examples")}
    print("indexing FastAPI docs (es) ...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        result["index_fastapi_es"] = index_throughput(fastapi_folder("es", Path(tmp)), "fastapi-es")
    return result
