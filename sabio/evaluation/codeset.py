"""The code-question set (datasets/code): questions about click 8.1.7 asked of its PyPI source distribution.

Sabio's retrieve (lang=auto, mode as inferred, and each mode forced) against the plain RRF of its own dense
and BM25 lists over the same index, in every language namespace. A result answers when it comes from a
target file and holds the target's anchor (code: its line range covers a line holding it).

    python -m sabio.evaluation.codeset [--cache bench/cache/embeddings.sqlite]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chalicelib.retrieve.fusion import reciprocal_rank_fusion

PACKAGE, VERSION = "click", "8.1.7"
HERE = Path(__file__).resolve().parents[2] / "datasets" / "code"
DOWNLOADS = HERE.parents[1] / "bench" / "cache"  # the sdist, kept beside the embedding cache
DEPTH = 60


@dataclass(frozen=True)
class Target:
    file: str
    anchor: str
    lines: frozenset[int]  # 1-based lines of the file holding the anchor


@dataclass(frozen=True)
class Question:
    id: str
    lang: str
    kind: str
    text: str
    targets: tuple[Target, ...]


def sdist(cache_dir: Path) -> Path:
    """The pinned sdist, downloaded once with pip (PyPI) into ``cache_dir``."""
    archive = cache_dir / f"{PACKAGE}-{VERSION}.tar.gz"
    if not archive.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", f"{PACKAGE}=={VERSION}", "--no-binary", ":all:"]
            + ["--no-deps", "--disable-pip-version-check", "-q", "-d", str(cache_dir)],
            check=True,
        )
    return archive


def unpack(archive: Path, into: Path) -> Path:
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / f"{PACKAGE}-{VERSION}"


def load_questions(root: Path, path: Path = HERE / "questions.jsonl") -> list[Question]:
    """The questions with each anchor located in its file (a missing anchor is an error in the set)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        targets = []
        for t in row["targets"]:
            lines = (root / t["file"]).read_text(encoding="utf-8").splitlines()
            found = frozenset(n for n, text in enumerate(lines, start=1) if t["anchor"] in text)
            if not found:
                raise ValueError(f"{row['id']}: anchor {t['anchor']!r} is not in {t['file']}")
            targets.append(Target(t["file"], t["anchor"], found))
        out.append(Question(row["id"], row["lang"], row["kind"], row["question"], tuple(targets)))
    return out


# a question names an identifier when it spells one as code does: `quoted`, snake_case, camelCase,
# CamelCase, call(), --option or dotted.name (the click set's questions were not written with a kind)
_IDENTIFIER = re.compile(
    r"`[^`]+`|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b|\w+\(\)|--\w|\b\w+\.\w+\b"
)


def naming(question: str) -> str:
    """``identifier`` when the question spells a name as the code does, else ``plain`` (plain words)."""
    return "identifier" if _IDENTIFIER.search(question) else "plain"


def answers(chunk: Any, target: Target) -> bool:
    if chunk.key != target.file:
        return False
    if chunk.line_start is not None and chunk.line_end is not None:
        return any(chunk.line_start <= n <= chunk.line_end for n in target.lines)
    return target.anchor in chunk.content or target.anchor in chunk.section_title


def first_hit(ranking: Sequence[str], chunks: dict[str, Any], q: Question) -> int | None:
    """1-based rank of the first result that answers ``q`` (None: not in the ranking)."""
    for rank, cid in enumerate(ranking, start=1):
        chunk = chunks.get(cid)
        if chunk is not None and any(answers(chunk, t) for t in q.targets):
            return rank
    return None


def summarise(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    row = {
        f"recall@{k}": round(100 * sum(r is not None and r <= k for r in ranks) / n, 1) for k in (1, 5, 10)
    }
    row["mrr@10"] = round(100 * sum(1 / r for r in ranks if r is not None and r <= 10) / n, 1)
    return row


# code_embed_text variants: what a code chunk's dense vector sees (chalicelib.enrichment.embedding_text.for_code)
HEADERS = ("contextual", "path", "path-summary")  # enriched-name and raw: measured 2026-12-02, below path


def run(
    cache: str | None,
    cache_dir: Path = DOWNLOADS,
    log: Callable[[str], None] = print,
    headers: Sequence[str] = HEADERS,
) -> dict[str, Any]:
    """Every variant on the default code header; then dense, RRF and retrieve under each other header."""
    from chalicelib.settings import Settings

    default = Settings().ingest.code_embed_text
    with tempfile.TemporaryDirectory(prefix="sabio-codeset-") as tmp:
        root = unpack(sdist(cache_dir), Path(tmp))
        questions = load_questions(root)
        by_header: dict[str, dict[str, dict[str, int | None]]] = {}
        first: dict[str, Any] = {}
        for header in [default, *(h for h in headers if h != default)]:
            ranks, report, index_s = _measure(
                root, Path(tmp), header, questions, cache, full=header == default
            )
            log(f"code header {header}: indexed {report.chunks_written} chunks in {index_s:.0f} s")
            by_header[header] = ranks
            first = first or {"report": report, "index_s": index_s}
    groups: dict[str, list[Question]] = {"all": questions}
    for q in questions:
        groups.setdefault(q.lang, []).append(q)
        groups.setdefault(q.kind, []).append(q)
        groups.setdefault(naming(q.text), []).append(q)

    def table(
        variants: dict[str, dict[str, int | None]], only: Sequence[str] | None = None
    ) -> dict[str, Any]:
        return {
            name: {group: summarise([ranks[q.id] for q in qs]) for group, qs in groups.items()}
            for name, ranks in variants.items()
            if only is None or name in only
        }

    report = first["report"]
    headline = ("dense", "plain RRF (dense + BM25)", "Sabio retrieve")
    return {
        "package": f"{PACKAGE} {VERSION}",
        "questions": len(questions),
        "chunks": report.chunks_written,
        "skipped": [f"{key}: {why}" for key, why in report.skipped],
        "index_s": round(first["index_s"], 1),
        "groups": {g: len(qs) for g, qs in groups.items()},
        "code_embed_text": default,
        "variants": table(by_header[default]),
        "headers": {header: table(ranks, headline) for header, ranks in by_header.items()},
        "ranks": by_header[default],
    }


def _measure(
    root: Path, tmp: Path, header: str, questions: list[Question], cache: str | None, *, full: bool
) -> tuple[dict[str, dict[str, int | None]], Any, float]:
    """Index ``root`` with code vectors under ``header``; the rank of the first answer per question and
    variant (all of them when ``full``, else dense, RRF and Sabio's retrieve)."""
    from chalicelib.composition import Container
    from chalicelib.models.api import RetrieveRequest
    from chalicelib.models.records import SearchFilters
    from chalicelib.settings import Settings

    settings = Settings(store_path=f"{tmp}/{header}.db", embedding_cache=cache, code_embed_text=header)
    container = Container(settings)
    # the same store read without one part of the pipeline: what that part is worth here
    ablations: dict[str, dict[str, Any]] = {
        "· no hubness": {"hubness_weight": 0.0},  # plain cosine dense scores
        "· no translation": {"translator": "none"},  # a Spanish question by its vector and its own words
    }
    without = {k: Container(settings.replaced(**v)) for k, v in ablations.items()} if full else {}
    started = time.perf_counter()
    report = container.ingestor().index_folder(root, PACKAGE)
    index_s = time.perf_counter() - started
    store = container.store
    chunks = {c.chunk_id: c for c in store.get_chunks(list(store.all_chunk_ids()))}
    space, index = container.embedder.space, container.vector_index
    variants: dict[str, dict[str, int | None]] = defaultdict(dict)
    everywhere = SearchFilters()
    modes = (("Sabio retrieve", None), ("· mode=codigo", "codigo"), ("· mode=documental", "documental"))
    for q in questions:
        vector = container.embedder.embed_query(q.text)
        dense = [h.chunk_id for h in index.dense_search(vector, space, everywhere, DEPTH)]
        bm25 = [h.chunk_id for h in index.keyword_search(q.text, everywhere, DEPTH)]
        fused = [cid for cid, _ in reciprocal_rank_fusion([dense, bm25], 60)]
        variants["dense"][q.id] = first_hit(dense, chunks, q)
        variants["BM25"][q.id] = first_hit(bm25, chunks, q)
        variants["plain RRF (dense + BM25)"][q.id] = first_hit(fused, chunks, q)
        for label, mode in modes if full else modes[:1]:
            request = RetrieveRequest(query=q.text, top_k=10, **({"mode": mode} if mode else {}))
            items = [i.chunk_id for i in container.retrieval.retrieve(request, None).items]
            variants[label][q.id] = first_hit(items, chunks, q)
        for label, other in without.items():
            items = [
                i.chunk_id
                for i in other.retrieval.retrieve(RetrieveRequest(query=q.text, top_k=10), None).items
            ]
            variants[label][q.id] = first_hit(items, chunks, q)
    for other in without.values():
        other.store.close()
    return dict(variants), report, index_s


def code_only(cache: str | None, cache_dir: Path = DOWNLOADS) -> dict[str, Any]:
    """The package's code alone (``src/``, no docs): a store with no document text in any language. Its
    questions whose targets are all code, through Sabio's retrieve: how many were searched translated,
    retrieve p50 / p95 ms, and Recall@1 / 5 / 10 per question language."""
    import shutil

    from chalicelib.composition import Container
    from chalicelib.settings import Settings

    with tempfile.TemporaryDirectory(prefix="sabio-codeonly-") as tmp:
        full = unpack(sdist(cache_dir), Path(tmp))
        questions = [q for q in load_questions(full) if all(t.file.startswith("src/") for t in q.targets)]
        root = Path(tmp) / "code-only"
        shutil.copytree(full / "src" / PACKAGE, root / "src" / PACKAGE)  # not its egg-info: code only
        container = Container(Settings(store_path=f"{tmp}/code.db", embedding_cache=cache))
        report = container.ingestor().index_folder(root, PACKAGE)
        out = {
            "chunks": report.chunks_written,
            "questions": len(questions),
            **by_language(container, questions),
        }
        container.store.close()
    return out


def by_language(container: Any, questions: list[Question]) -> dict[str, Any]:
    """Each question language's questions through Sabio's retrieve over ``container``'s store: how many were
    searched translated, retrieve p50 / p95 ms, Recall@1 / 5 / 10."""
    import statistics

    from chalicelib.models.api import RetrieveRequest

    store = container.store
    chunks = {c.chunk_id: c for c in store.get_chunks(list(store.all_chunk_ids()))}
    found: dict[str, Any] = {}
    for lang in ("en", "es"):
        asked = [q for q in questions if q.lang == lang]
        ranks, ms, translated = [], [], 0
        for q in asked:
            t = time.perf_counter()
            response = container.retrieval.retrieve(RetrieveRequest(query=q.text, top_k=10), None)
            ms.append((time.perf_counter() - t) * 1000)
            translated += any(k.startswith("translation_") for k in response.applied)
            ranks.append(first_hit([i.chunk_id for i in response.items], chunks, q))
        found[lang] = {
            "questions": len(asked),
            "translated": translated,
            "retrieve_p50_ms": round(statistics.median(ms), 1),
            "retrieve_p95_ms": round(sorted(ms)[int(0.95 * (len(ms) - 1))], 1),
            **summarise(ranks),
        }
    return {"by_language": found}


def print_by_language(found: dict[str, Any]) -> None:
    for lang, row in found["by_language"].items():
        print(
            f"{lang}: {row['questions']} questions, {row['translated']} searched translated, retrieve p50 "
            f"{row['retrieve_p50_ms']} ms / p95 {row['retrieve_p95_ms']} ms, R@1 / R@5 / R@10 "
            f"{row['recall@1']} / {row['recall@5']} / {row['recall@10']}"
        )


def write_json(path: Path, results: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cache", help="embedding cache (SQLite), e.g. bench/cache/embeddings.sqlite")
    parser.add_argument("--downloads", default=str(DOWNLOADS), help="where the sdist is kept")
    parser.add_argument("--out", default="bench/results/codeset.json")
    parser.add_argument(
        "--headers", default=",".join(HEADERS), help="code_embed_text variants to compare (comma-separated)"
    )
    parser.add_argument(
        "--code-only",
        action="store_true",
        help="index the package's code alone (no docs) and report its questions",
    )
    args = parser.parse_args(argv)
    if args.code_only:
        found = code_only(args.cache, Path(args.downloads))
        print_by_language(found)
        write_json(Path(args.out).with_name("codeset-code-only.json"), found)
        return 0
    results = run(args.cache, Path(args.downloads), headers=[h for h in args.headers.split(",") if h])
    groups = list(results["groups"])
    print(
        f"\n{results['questions']} questions over {results['package']} ({results['chunks']} chunks), R@10 / R@1:"
    )
    sizes = results["groups"]
    print(f"{'variant':<28}" + "".join(f"{f'{g} ({sizes[g]})':>19}" for g in groups))
    for name, row in results["variants"].items():
        print(f"{name:<28}" + "".join(f"{row[g]['recall@10']:>12} / {row[g]['recall@1']:<4}" for g in groups))
    print("\ncode header (code_embed_text), R@5 / R@10 over all questions:")
    for header, rows in results["headers"].items():
        cells = "  ".join(
            f"{name}: {r['all']['recall@5']} / {r['all']['recall@10']}" for name, r in rows.items()
        )
        print(f"  {header:<14} {cells}")
    write_json(Path(args.out), results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
