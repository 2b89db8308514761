"""The code set's whole-repository setup: questions over leveldb (C++), javapoet (Java) and anyhow (Rust),
each repository indexed as it is (tests, benchmarks, docs and build files beside the code) into one store.

Pass@k per code language and per kind of question (``identifier``: names a function, type or macro as the
code spells it; ``plain``: says what it wants in ordinary words), for dense, BM25, the plain RRF of the two
and Sabio's retrieve. ``--chunks lines`` cuts every file in line windows instead of by symbol (the chunker's
fallback for files without a grammar), on the same files: what symbol chunks are worth.

``--code-only`` indexes the repositories' code files alone (no docs, READMEs or licences): a store with no
document text in any language, where a question is translated only if code is commented in another language.

    python -m sabio.evaluation.coderepos [--cache bench/cache/embeddings.sqlite] [--chunks symbols,lines]
    python -m sabio.evaluation.coderepos --code-only [--cache bench/cache/embeddings.sqlite]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from chalicelib.retrieve.fusion import reciprocal_rank_fusion
from sabio.evaluation.codeset import (
    DEPTH,
    HERE,
    Question,
    by_language,
    first_hit,
    load_questions,
    print_by_language,
    summarise,
    write_json,
)

REPOS = HERE / "repos"
QUESTIONS = HERE / "repo_questions.jsonl"
LANGUAGE = {"leveldb": "C++", "javapoet": "Java", "anyhow": "Rust"}
SOURCE = "repos"


def unpack(into: Path) -> Path:
    """Every pinned repository archive, unpacked side by side under ``into/repos``."""
    root = into / SOURCE
    root.mkdir(parents=True, exist_ok=True)
    for archive in sorted(REPOS.glob("*.tar.gz")):
        with tarfile.open(archive) as tar:
            tar.extractall(root, filter="data")
    return root


def questions(root: Path) -> list[tuple[Question, str]]:
    """The questions with their targets' files under the repository's folder, and each one's repository."""
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line]
    rewritten = Path(tempfile.mkstemp(suffix=".jsonl")[1])
    try:
        for row in rows:
            row["targets"] = [{**t, "file": f"{row['repo']}/{t['file']}"} for t in row["targets"]]
        rewritten.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        loaded = load_questions(root, rewritten)
    finally:
        rewritten.unlink()
    return [(q, row["repo"]) for q, row in zip(loaded, rows, strict=True)]


@contextlib.contextmanager
def line_windows() -> Iterator[None]:
    """Code read without its grammar: every file one section, cut by the chunker at line boundaries."""
    with (
        mock.patch("chalicelib.extraction.code.symbols", return_value=[]),
        mock.patch("chalicelib.extraction.code._python_symbols", return_value=([], {}, "")),
    ):
        yield


def measure(
    root: Path, tmp: Path, chunks: str, cache: str | None, overrides: dict[str, Any]
) -> dict[str, Any]:
    """Index ``root`` (by symbol or in line windows); each question's first answering rank per variant."""
    from chalicelib.composition import Container
    from chalicelib.models.api import RetrieveRequest
    from chalicelib.models.records import SearchFilters
    from chalicelib.settings import Settings

    settings = Settings(store_path=f"{tmp}/{chunks}.db", embedding_cache=cache)
    container = Container(settings.replaced(**overrides))
    asked = questions(root)
    started = time.perf_counter()
    with line_windows() if chunks == "lines" else contextlib.nullcontext():
        report = container.ingestor().index_folder(root, SOURCE)
    index_s = time.perf_counter() - started
    store, index, space = container.store, container.vector_index, container.embedder.space
    stored = {c.chunk_id: c for c in store.get_chunks(list(store.all_chunk_ids()))}
    ranks: dict[str, dict[str, int | None]] = {"dense": {}, "BM25": {}, "plain RRF": {}, "Sabio retrieve": {}}
    for q, _ in asked:
        vector = container.embedder.embed_query(q.text)
        dense = [h.chunk_id for h in index.dense_search(vector, space, SearchFilters(), DEPTH)]
        bm25 = [h.chunk_id for h in index.keyword_search(q.text, SearchFilters(), DEPTH)]
        fused = [cid for cid, _ in reciprocal_rank_fusion([dense, bm25], 60)]
        items = container.retrieval.retrieve(RetrieveRequest(query=q.text, top_k=10), None).items
        for name, ranking in (("dense", dense), ("BM25", bm25), ("plain RRF", fused)):
            ranks[name][q.id] = first_hit(ranking, stored, q)
        ranks["Sabio retrieve"][q.id] = first_hit([i.chunk_id for i in items], stored, q)
    store.close()
    groups: dict[str, list[Question]] = {"all": []}
    for q, repo in asked:
        for group in ("all", LANGUAGE[repo], q.kind, f"{LANGUAGE[repo]} {q.kind}", q.lang):
            groups.setdefault(group, []).append(q)
    code = [(c.line_start or 0, c.line_end or 0) for c in stored.values() if c.kind == "code"]
    return {
        "chunks": report.chunks_written,
        "code_chunks": len(code),
        "mean_code_lines": round(sum(end - start + 1 for start, end in code) / max(1, len(code)), 1),
        "index_s": round(index_s, 1),
        "chunks_per_s": round(report.chunks_written / index_s, 1),
        "groups": {g: len(qs) for g, qs in groups.items()},
        "variants": {
            name: {g: summarise([r[q.id] for q in qs]) for g, qs in groups.items()}
            for name, r in ranks.items()
        },
        "ranks": ranks,
    }


def run(cache: str | None, chunkings: list[str], overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="sabio-coderepos-") as tmp:
        root = unpack(Path(tmp))
        return {chunks: measure(root, Path(tmp), chunks, cache, overrides or {}) for chunks in chunkings}


def code_only(cache: str | None) -> dict[str, Any]:
    """The repositories' code files alone, through Sabio's retrieve: per question language, how many were
    searched translated, retrieve p50 / p95 ms and Recall@1 / 5 / 10."""
    import shutil

    from chalicelib.composition import Container
    from chalicelib.extraction.code import language_for
    from chalicelib.settings import Settings

    with tempfile.TemporaryDirectory(prefix="sabio-coderepos-only-") as tmp:
        root = unpack(Path(tmp))
        code = Path(tmp) / "code-only" / SOURCE
        for path in (p for p in root.rglob("*") if p.is_file() and language_for(p.name)):
            target = code / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
        container = Container(Settings(store_path=f"{tmp}/code.db", embedding_cache=cache))
        report = container.ingestor().index_folder(code, SOURCE)
        asked = [q for q, _ in questions(root)]
        out = {"chunks": report.chunks_written, "questions": len(asked), **by_language(container, asked)}
        container.store.close()
    return out


def compact(results: dict[str, Any]) -> dict[str, Any]:
    """The figures without each question's ranks (what the evaluation report keeps)."""
    return {name: {k: v for k, v in found.items() if k != "ranks"} for name, found in results.items()}


def print_table(name: str, found: dict[str, Any]) -> None:
    groups = list(found["groups"])
    print(
        f"\n{name}: {found['chunks']} chunks ({found['code_chunks']} code, {found['mean_code_lines']} lines"
        f" each on average), indexed in {found['index_s']} s ({found['chunks_per_s']} chunks/s). Pass@10 / Pass@1:"
    )
    print(f"{'':<16}" + "".join(f"{f'{g} ({n})':>18}" for g, n in found["groups"].items()))
    for variant, row in found["variants"].items():
        cells = "".join(f"{row[g]['recall@10']:>11} / {row[g]['recall@1']:<4}" for g in groups)
        print(f"{variant:<16}{cells}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cache", help="embedding cache (SQLite), e.g. bench/cache/embeddings.sqlite")
    parser.add_argument("--chunks", default="symbols,lines", help="symbols, lines or both (comma-separated)")
    parser.add_argument("--out", default="bench/results/coderepos.json")
    parser.add_argument(
        "--set", action="append", default=[], metavar="SETTING=VALUE", help="e.g. code_embed_text=path"
    )
    parser.add_argument("--code-only", action="store_true", help="index the code files alone (no docs)")
    args = parser.parse_args(argv)
    if args.code_only:
        found = code_only(args.cache)
        print_by_language(found)
        write_json(Path(args.out).with_name("coderepos-code-only.json"), found)
        return 0
    overrides = dict(item.split("=", 1) for item in args.set)
    results = run(args.cache, [c for c in args.chunks.split(",") if c], overrides)
    for name, found in results.items():
        print_table(name, found)
    write_json(Path(args.out), results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
