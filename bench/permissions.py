"""What document permissions cost a retrieve: the same questions over the same store, asked by a caller who
reads every document and by users who read as a few of many groups, alternating question by question in one
process (this machine is noisy: the ratio is the figure).

Usage:  .venv/bin/python bench/permissions.py [--size 10000] [--groups 20] [--users 12] [--queries 100]
        (make bench-permissions)
Prints p50 / p95 of each and their ratio, and writes bench/results/permissions-<UTC time>.json.

The store is bench/scale.py's (the FastAPI docs es + en, replicated to --size chunks). Each document is given
readers the way a company's are spread: a fifth public, the rest one to three of --groups groups (a few also
one user). Each user holds two or three groups; the users take turns, so each one's first question also
pays for its filter (then kept per store generation, as in production). With --readers document the
two language versions of a page get readers of their own: a user then often reads one version and not the
other, and lang=auto questions are translated more often (work the permissions cause, not the filter).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.results_file import write_result  # noqa: E402
from bench.scale import base_documents, base_store, percentiles, questions, replicas, write  # noqa: E402
from chalicelib.access.keys import KeyPolicy  # noqa: E402
from chalicelib.composition import Container  # noqa: E402
from chalicelib.models.api import RetrieveRequest  # noqa: E402
from chalicelib.models.records import DocumentRecord, StoredChunk  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402


def readers_for(seed: str, groups: int) -> list[str]:
    """A page's readers, the same for its Spanish and its English version (a translated page has the
    audience of its original: permissions follow folders, not languages)."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big"))
    if rng.random() < 0.2:
        return ["public"]
    chosen = rng.choice(groups, size=int(rng.integers(1, 4)), replace=False)
    readers = [f"group:g{g}" for g in sorted(chosen)]
    if rng.random() < 0.05:
        readers.append(f"user:u{int(rng.integers(0, 50))}@acme.com")
    return readers


def build(size: int, groups: int, path: Path, by_page: bool) -> dict[str, int]:
    """The scale store, each document (and its chunks) with readers."""
    container = Container(Settings(store_path=str(path)))
    public = 0

    def labelled() -> Iterator[tuple[DocumentRecord, list[StoredChunk]]]:
        nonlocal public
        for doc, chunks in replicas(base_documents(base_store()), size, np.random.default_rng(7)):
            # es and en versions share their key (their source differs): by page, both have the same readers
            readers = readers_for(doc.key if by_page else f"{doc.source_id}:{doc.key}", groups)
            public += len(chunks) if readers == ["public"] else 0
            yield (
                doc.model_copy(update={"readers": readers}),
                [c.model_copy(update={"readers": readers}) for c in chunks],
            )

    write(container.store, container.embedder.space, labelled())
    return {"public_chunks": public}


def users(n: int, groups: int) -> list[KeyPolicy]:
    rng = np.random.default_rng(3)
    out = []
    for u in range(n):
        held = [f"g{g}" for g in sorted(rng.choice(groups, size=int(rng.integers(2, 4)), replace=False))]
        out.append(KeyPolicy(name="").for_user(f"u{u}@acme.com", held))
    return out


def measure(path: Path, limit: int, people: list[KeyPolicy]) -> dict[str, object]:
    container = Container(Settings(store_path=str(path), query_cache_size=0))
    retriever = container.retriever
    container.store.warm()
    retriever.retrieve(RetrieveRequest(query="warm up"), None)
    everyone, restricted, seen = [], [], []
    stages: dict[str, dict[str, list[float]]] = {"all": {}, "user": {}}
    for i, q in enumerate(questions(limit)):
        request = RetrieveRequest(query=q, top_k=10)
        user = people[i % len(people)]
        arms = [("all", None), ("user", user)]
        for name, access in arms if i % 2 == 0 else arms[::-1]:  # who goes first alternates
            t = time.perf_counter()
            response = retriever.retrieve(request, access)
            ms = (time.perf_counter() - t) * 1000
            (everyone if name == "all" else restricted).append(ms)
            for stage, took in (response.timings_ms or {}).items():
                stages[name].setdefault(stage, []).append(took)
            if access is not None:
                seen.append(len(response.items))
    a, r = percentiles(everyone), percentiles(restricted)
    return {
        "every document": a,
        "a user of 2-3 groups": r,
        "ratio_p50": round(r["p50_ms"] / a["p50_ms"], 3),
        "ratio_p95": round(r["p95_ms"] / a["p95_ms"], 3),
        "user_items_mean": round(float(np.mean(seen)), 2),
        "stages_mean_ms": {
            arm: {k: round(float(np.mean(v)), 2) for k, v in found.items()} for arm, found in stages.items()
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--users", type=int, default=12)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--readers",
        choices=["page", "document"],
        default="page",
        help="page: a page's Spanish and English versions have the same readers (default); document: each "
        "its own, so a lang=auto question finds its twin less often and is translated more",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "permissions.db"
        built = build(args.size, args.groups, path, args.readers == "page")
        result = measure(path, args.queries, users(args.users, args.groups))
    result = {"machine": os.cpu_count(), **vars(args), **built, **result}
    a, r = result["every document"], result["a user of 2-3 groups"]
    print(f"{args.size:,} chunks, {args.groups} groups, {args.users} users, {args.queries} questions")
    print(f"  every document:       p50 {a['p50_ms']:6.1f} ms   p95 {a['p95_ms']:6.1f} ms")  # type: ignore[index]
    print(f"  a user of 2-3 groups: p50 {r['p50_ms']:6.1f} ms   p95 {r['p95_ms']:6.1f} ms")  # type: ignore[index]
    print(f"  ratio: p50 {result['ratio_p50']}x, p95 {result['ratio_p95']}x (target <= 1.2)")
    out = write_result("permissions", result)
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
