"""The scale curve: retrieve latency (dense, BM25, full retrieve, per stage), what opening the store costs, peak
RSS and bytes on disk of the embedded store at growing sizes, each size built and measured in fresh processes
on the same machine in one run; the latency measured in rounds, every size in turn (--rounds, 3), each figure
the median of its rounds.

Usage:  .venv/bin/python bench/scale.py [--sizes 1000 10000 100000] [--queries 100] [--rounds 3] [--against REF]
        (make bench runs 1k and 10k; make bench-scale adds 100k.)
        --against REF: the same sizes measured, by this harness, with the code of REF as well (a git
        worktree), size by size and round by round in turn with this checkout's: both rows, and their ratios.
Prints a table and writes bench/results/scale-<UTC time>.json.

The text is real: the FastAPI docs, Spanish and English (3,477 chunks, as `sabio index` cuts and enriches
them; vectors from bench/cache/embeddings.sqlite, the evaluation's cache, so nothing is re-embedded when it
is warm). Sizes above that replicate it, and say so: replica r of a chunk has new ids, its key under
`r<r>/`, the same text, and its vector moved by Gaussian noise (sigma 0.01 per dimension, then unit length:
cosine ~0.98 to the original) so that no two vectors tie. The queries are the user questions of
`derived/fastapi_intent_dev.jsonl` (es and en). Machines here are noisy: compare sizes within one run.

What each size reports beyond latency:
- open s: the first search-ready moment of a process opening the store as `sabio index` leaves it (the
  vectors, the BM25 postings and the rows' neighbours loaded or built: ``store.warm()``), in the first process
  after the build and again in a second one (reopen s); and a whole `sabio query` on the command line, wall
  time, model load included (CLI query s);
- disk KB per chunk: the SQLite file, and the files kept beside it;
- translated: the questions searched translated too (their translation embedded), and of those, how many
  have another top 5 than without the translation.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the code measured: this checkout's, or another's (--code PATH, given by --against to its child processes)
CODE = Path(sys.argv[sys.argv.index("--code") + 1]).resolve() if "--code" in sys.argv else ROOT
sys.path[:0] = [str(CODE), str(ROOT / "bench")]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import scale_measure  # noqa: E402
import scale_table  # noqa: E402
from scale_measure import percentiles  # noqa: E402, F401  (bench/permissions.py's too)

from chalicelib.composition import Container  # noqa: E402
from chalicelib.models.records import DocumentRecord, StoredChunk  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"
CACHE = ROOT / "bench" / "cache"
BASE = CACHE / "scale-base.db"
NOISE = 0.01
ROUNDS = 3  # the latency of every size measured this many times, the sizes in turn
Row = dict[str, Any]


def base_store() -> Path:
    """The FastAPI docs es + en, indexed once by Sabio's own pipeline (cached in bench/cache/). Read through a
    copy: a newer Sabio migrates a store it opens, and an older one must still read this."""
    if BASE.exists():
        return BASE
    partial = BASE.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    settings = Settings(store_path=str(partial), embedding_cache=str(CACHE / "embeddings.sqlite"))
    container = Container(settings)
    with tempfile.TemporaryDirectory() as tmp:
        for lang in ("es", "en"):
            folder = Path(tmp) / f"fastapi-{lang}"
            shutil.copytree(
                EVAL / "fastapi_docs" / lang, folder, ignore=shutil.ignore_patterns("_llm-test.md")
            )
            container.ingestor().index_folder(folder, f"fastapi-{lang}")
    container.store.close()
    partial.rename(BASE)
    return BASE


def base_documents(path: Path) -> list[tuple[DocumentRecord, list[StoredChunk]]]:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "base.db"
        shutil.copy(path, copy)
        store = Container(Settings(store_path=str(copy))).store
        out = []
        for doc in store.list_documents():
            chunks = store.document_chunks(doc.document_id)
            vectors = store.get_vectors([c.chunk_id for c in chunks])
            for c in chunks:
                c.vector = [float(x) for x in vectors[c.chunk_id]]
            out.append((doc, chunks))
        store.close()
    return out


def replicas(
    docs: list[tuple[DocumentRecord, list[StoredChunk]]], n: int, rng: np.random.Generator
) -> Iterator[tuple[DocumentRecord, list[StoredChunk]]]:
    """Documents until ``n`` chunks: the base as it is, then replicas (new ids, moved vectors)."""
    written, r = 0, 0
    while written < n:
        for doc, chunks in docs:
            if written >= n:
                return
            chunks = chunks[: n - written]
            if r == 0:
                yield doc, chunks
            else:
                doc_id = f"{doc.document_id}-r{r}"
                copies = []
                for c in chunks:
                    v = np.asarray(c.vector, dtype=np.float32) + rng.normal(0, NOISE, len(c.vector))
                    v /= np.linalg.norm(v)
                    copies.append(
                        c.model_copy(
                            update={
                                "chunk_id": f"{c.chunk_id}-r{r}",
                                "document_id": doc_id,
                                "key": f"r{r}/{c.key}",
                                "vector": [float(x) for x in v],
                            }
                        )
                    )
                yield doc.model_copy(update={"document_id": doc_id, "key": f"r{r}/{doc.key}"}), copies
            written += len(chunks)
        r += 1


def build(size: int, path: Path) -> dict[str, float]:
    """The store as ``sabio index`` leaves it: the chunks written, then (where that code's ``sabio index``
    ends so) its search files built and saved beside it."""
    docs = base_documents(base_store())
    container = Container(Settings(store_path=str(path)))
    store, space = container.store, container.embedder.space
    started = time.perf_counter()
    write(store, space, replicas(docs, size, np.random.default_rng(7)))
    out = {"build_s": round(time.perf_counter() - started, 1)}
    from sabio.cli import indexing

    if hasattr(indexing, "_searchable"):
        store = Container(Settings(store_path=str(path))).store
        started = time.perf_counter()
        store.warm()
        out["index_end_s"] = round(time.perf_counter() - started, 1)
        store.close()
    return out


def write(store: Any, space: Any, documents: Iterator[tuple[DocumentRecord, list[StoredChunk]]]) -> None:
    """Documents and their chunks (with vectors) into ``store``, 2,000 chunks a transaction; then closed."""
    batch: list[StoredChunk] = []
    for doc, chunks in documents:
        store.put_document(doc.model_copy(update={"chunk_count": len(chunks)}))
        batch += chunks
        if len(batch) >= 2000:
            store.put_chunks(batch)
            store.upsert_chunks(batch, space)
            batch = []
    if batch:
        store.put_chunks(batch)
        store.upsert_chunks(batch, space)
    store.close()


def questions(limit: int) -> list[str]:
    rows = [
        json.loads(line) for line in (EVAL / "derived" / "fastapi_intent_dev.jsonl").open(encoding="utf-8")
    ]
    es = [r for r in rows if r.get("lang") == "es"]
    en = [r for r in rows if r.get("lang") != "es"]
    picked = [r for pair in zip(es, en, strict=False) for r in pair][:limit]
    return [r.get("question") or r.get("query") or r["text"] for r in picked]


def _child(code: Path, *args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--code", str(code), *args], capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"{args[0]} with the code of {code} failed:\n{out.stderr[-3000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def one(size: int, limit: int, path: Path, code: Path = ROOT) -> dict[str, object]:
    """A size in fresh processes (so each figure, RSS above all, is that size's alone): built at ``path``,
    measured, opened again, and asked one question by ``sabio query``."""
    built = _child(code, "--build", str(size), str(path))
    measured = _child(code, "--measure", str(path), str(limit))
    again = _child(code, "--open", str(path))
    t = time.perf_counter()
    asked = subprocess.run(
        [sys.executable, "-m", "sabio.cli", "--store", str(path), "query", questions(1)[0]],
        cwd=code,
        env={**os.environ, "PYTHONPATH": str(code)},
        capture_output=True,
        text=True,
    )
    cli_s = time.perf_counter() - t
    if asked.returncode:
        raise SystemExit(f"sabio query failed:\n{asked.stderr[-2000:]}")
    return {"size": size, **built, **measured, "reopen_s": again["open_s"], "cli_query_s": round(cli_s, 2)}


def curve(
    sizes: list[int], limit: int, rounds: int = ROUNDS, codes: tuple[Path, ...] = (ROOT,)
) -> list[list[Row]]:
    """Every size built and measured by every code (a row per size, a list of rows per code); then the
    latency measured again ``rounds - 1`` times, every size and code in turn, each latency figure the median
    of its rounds. A size measured once, right after it was built, is measured with whatever the page cache
    holds of what was just written: at 100,000 chunks that moved its p50 by a third from one run to the next."""
    rows: dict[tuple[int, Path], Row] = {}
    with tempfile.TemporaryDirectory() as tmp:
        runs = [
            (size, code, Path(tmp) / f"{n}-{size}" / "scale.db")
            for size in sizes
            for n, code in enumerate(codes)
        ]
        for size, code, path in runs:
            path.parent.mkdir()
            rows[size, code] = one(size, limit, path, code)
            print(f"{size:>7,} chunks built and measured ({code.name})", file=sys.stderr, flush=True)
        measured = {key: [row] for key, row in rows.items()}
        for n in range(2, rounds + 1):
            for size, code, path in runs:
                measured[size, code].append(_child(code, "--measure", str(path), str(limit)))
            print(f"latency round {n} of {rounds} measured", file=sys.stderr, flush=True)
    for key, row in rows.items():
        row.update(scale_measure.median_latency(measured[key]))
    return [[rows[size, code] for size in sizes] for code in codes]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="latency rounds, every size in turn")
    parser.add_argument("--against", help="also measure this commit's code, size by size in turn")
    parser.add_argument("--code", help=argparse.SUPPRESS)
    parser.add_argument("--build", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--open", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build:
        print(json.dumps(build(int(args.build[0]), Path(args.build[1]))))
        return 0
    if args.measure:
        qs = questions(int(args.measure[1]))
        print(json.dumps(scale_measure.measure(Path(args.measure[0]), qs)))
        return 0
    if args.open:
        print(json.dumps(scale_measure.opened(Path(args.open))))
        return 0
    base_store()
    return scale_table.run(args, curve)


if __name__ == "__main__":
    sys.exit(main())
