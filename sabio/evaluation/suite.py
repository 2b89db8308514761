"""The standard evaluation: every dataset x variant, one command (``sabio eval``), JSON + Markdown + chart."""

from __future__ import annotations

import platform
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chalicelib.settings import Settings
from sabio.evaluation import ablation
from sabio.evaluation.datasets import QuerySet, standard_suite
from sabio.evaluation.runner import (
    Built,
    Yardstick,
    build,
)
from sabio.evaluation.variants import BASELINE, MODES, VARIANTS, chosen_reranker, evaluate


def run(
    eval_dir: Path,
    cache: Path | None,
    *,
    only: list[str] | None = None,
    limit: int | None = None,
    modes: tuple[str, ...] = MODES,
    with_ablation: bool = True,
    log: Callable[[str], None] = print,
    llm: bool = False,
    rerank: str | None = None,
    rewrite: bool = False,
) -> dict[str, Any]:
    """Run the standard suite (or the query sets whose names contain one of ``only``)."""
    corpora, sets = standard_suite(eval_dir)
    corpora, sets = _with_pdf_set(eval_dir, cache, only, corpora, sets, log)
    if only:
        sets = [s for s in sets if _wanted(only, s.name)]
    if limit:
        sets = [_head(s, limit) for s in sets]
    default_mode = Settings().ingest.embed_text
    modes = tuple(dict.fromkeys((default_mode, *modes)))
    started = time.perf_counter()
    reranker = chosen_reranker(rerank)
    if reranker is not None and not isinstance(reranker, str):
        log(f"rerank: {rerank} ({reranker.name})")
    results: dict[str, Any] = {"sets": {}, "indexing": {}}
    with tempfile.TemporaryDirectory(prefix="sabio-eval-") as tmp:
        for corpus in corpora:
            wanted = [s for s in sets if s.corpus == corpus.name]
            if wanted:
                plan = _Plan(Path(tmp), cache, modes, default_mode, reranker, rewrite, with_ablation, log)
                _query_sets(corpus, wanted, plan, results)
    results.update(_extras(eval_dir, cache, only, limit, llm, log))
    results["default_embed_text"] = default_mode
    results["configuration"] = configuration(Settings())
    results["seconds"] = round(time.perf_counter() - started, 1)
    results["when"] = datetime.now(UTC).isoformat(timespec="seconds")
    results["machine"] = (
        f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}"
    )
    results["variants"] = [{"name": v.name, "what": v.what} for v in VARIANTS]
    return results


@dataclass(frozen=True)
class _Plan:
    """How one corpus's query sets are run: where its stores go, which ``embed_text`` modes are built, and
    which extra variants (a reranker, rewriting, the chunking ablation) are measured."""

    tmp: Path
    cache: Path | None
    modes: tuple[str, ...]
    default_mode: str
    reranker: Any
    rewrite: bool
    with_ablation: bool
    log: Callable[[str], None]


def _query_sets(corpus: Any, wanted: list[Any], plan: _Plan, results: dict[str, Any]) -> None:
    """Index ``corpus`` once per mode and measure every variant on each of its ``wanted`` query sets."""
    stores = {}
    for mode in plan.modes:
        built = build(corpus, mode, plan.tmp, plan.cache)
        stores[mode] = built
        results["indexing"][f"{corpus.name} · {mode}"] = _index_row(built)
        plan.log(f"indexed {corpus.name} ({mode}): {len(built.chunks)} chunks in {built.index_s:.1f} s")
    yardstick = Yardstick(corpus, stores[plan.default_mode].container.embedder)
    for qs in wanted:
        outcomes = evaluate(qs, yardstick, stores, plan.default_mode, plan.reranker, plan.rewrite)
        baseline = outcomes[BASELINE].runs
        results["sets"][qs.name] = {
            "corpus": corpus.name,
            "documents": len(corpus.plain),
            "queries": len(qs.queries),
            "lang": qs.lang,
            "note": qs.note,
            "coverage": _coverage(stores[plan.default_mode], qs),
            "variants": {
                v.name: outcomes[v.name].row(qs.qrels, baseline) for v in VARIANTS if v.name in outcomes
            },
        }
        row = results["sets"][qs.name]["variants"][f"Sabio retrieve · {plan.default_mode}"]
        plan.log(f"{qs.name}: default R@1 {row['recall@1']} R@5 {row['recall@5']} MRR@10 {row['mrr@10']}")
    if plan.with_ablation and corpus.name.startswith("fastapi-"):
        qs = next(s for s in wanted if s.name.startswith("FastAPI"))
        results.setdefault("ablation", {})[qs.name] = ablation.run(
            corpus, qs, stores[plan.default_mode], plan.tmp, plan.cache
        )
        plan.log(f"chunking ablation on {corpus.name} done")
    for built in stores.values():
        built.container.store.close()


def _extras(
    eval_dir: Path,
    cache: Path | None,
    only: list[str] | None,
    limit: int | None,
    llm: bool,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """The suites beside the query sets: the code sets, the company set (and with an LLM), follow-up threads,
    XQuAD answers."""
    cached = str(cache) if cache else None
    out: dict[str, Any] = {}
    if _wanted(only, "code questions"):
        from sabio.evaluation import codeset

        log(f"code questions: {codeset.PACKAGE} {codeset.VERSION}")
        out["codeset"] = codeset.run(cached, log=log)
    if _wanted(only, "code repositories"):
        from sabio.evaluation import coderepos

        log("code repositories: leveldb, javapoet, anyhow, by symbol and in line windows")
        out["coderepos"] = coderepos.compact(coderepos.run(cached, ["symbols", "lines"]))
    if _wanted(only, "company set"):
        from sabio.evaluation import companyset

        for key, split in (("companyset", "dev"), ("companyset_train", "train"), ("companyset_test", "test")):
            log(f"company set, {split}: each question through /answer")
            out[key] = companyset.compact(companyset.run(cached, log=log, split=split))
    if llm:
        from sabio.evaluation import companyset

        log("company set with the configured LLM answering")
        out["companyset_llm"] = companyset.compact(companyset.run(cached, log=log, answer="llm"))
    if _wanted(only, "threads"):
        from sabio.evaluation import threads

        for key, split in (("threads", "train"), ("threads_test", "test")):
            log(
                f"threads, {split}: follow-ups in conversations, each also asked standalone and with no history"
            )
            out[key] = threads.compact(threads.run(cached, log=log, split=split))
    if _wanted(only, "answers"):
        from sabio.evaluation import answers

        log("answers: XQuAD questions with and without their paragraph")
        out["answers"] = answers.run(eval_dir, cached, limit)
    return out


# the suites beside the query sets, by the names --only selects them with
EXTRAS = ("code questions", "code repositories", "company set", "answers", "threads")


def _wanted(only: list[str] | None, name: str) -> bool:
    """Whether a set is run: no ``only``, or its name contains one of them (case aside)."""
    return not only or any(o.lower() in name.lower() for o in only)


def unmatched(eval_dir: Path, only: list[str]) -> tuple[list[str], list[str]]:
    """The ``only`` values that name no set, and every set's name (what a mistyped --only is told)."""
    from sabio.evaluation import pdfset

    _, sets = standard_suite(eval_dir)
    names = [*(s.name for s in sets), pdfset.pdf_queries(eval_dir).name, *EXTRAS]
    return [o for o in only if not any(o.lower() in n.lower() for n in names)], names


CONFIG_KEYS = (
    "embedder",
    "embed_text",
    "fusion",
    "retrieval_candidates",
    "hubness_weight",
    "translator",
    "rrf_k",
    "duplicate_threshold",
    "chunk_max_tokens",
    "chunk_min_tokens",
    "languages",
    "enrichment",
    "retrieval_hyde",
    "llm_model",
)


def _with_pdf_set(
    eval_dir: Path,
    cache: Path | None,
    only: list[str] | None,
    corpora: list[Any],
    sets: list[QuerySet],
    log: Callable[[str], None],
) -> tuple[list[Any], list[QuerySet]]:
    """The FastAPI docs as PDFs (sabio.evaluation.pdfset), when asked for and LibreOffice can print them."""
    from sabio.evaluation import pdfset

    qs = pdfset.pdf_queries(eval_dir)
    if only and not _wanted(only, qs.name):
        return corpora, sets
    reason = pdfset.available()
    if reason:
        log(f"skipped {qs.name}: {reason}")
        return corpora, sets
    folder = cache.parent if cache else Path(tempfile.gettempdir()) / "sabio-eval-cache"
    log(f"{qs.name}: printing the docs to PDF with LibreOffice (once, into {folder}) ...")
    return [*corpora, pdfset.pdf_corpus(eval_dir, folder)], [*sets, qs]


def configuration(settings: Settings) -> dict[str, Any]:
    """The settings that shape retrieval, as the report records them (no secrets)."""
    values = settings.flat()
    out = {k: values[k] for k in CONFIG_KEYS if k in values}
    out["llm"] = "configured" if settings.llm.base_url else "none"
    if settings.translator != "none":  # what "auto" found on this machine
        from sabio.evaluation.gate import translator_name

        out["translator"] = f"{settings.translator}: {translator_name(settings)}"
    return out


def _head(qs: QuerySet, n: int) -> QuerySet:
    keep = list(qs.queries)[:n]
    return QuerySet(
        qs.name,
        qs.corpus,
        {q: qs.queries[q] for q in keep},
        {q: qs.qrels[q] for q in keep},
        qs.lang,
        qs.query_lang,
        qs.note,
        qs.either_language,
        {q: qs.equivalent[q] for q in keep if q in qs.equivalent},
    )


def _index_row(built: Built) -> dict[str, Any]:
    return {
        "chunks": len(built.chunks),
        "index_s": round(built.index_s, 1),
        "vectors_computed": built.embedded,
        "note": "vectors served by the embedding cache are not embedding time" if built.embedded == 0 else "",
    }


def _coverage(built: Built, qs: QuerySet) -> float:
    """Share of the query set's relevant ids that some chunk counts as (100 unless chunking loses them)."""
    reachable = {t for c in built.chunks.values() for t in built.corpus.targets(c)}
    wanted = {d for rel in qs.qrels.values() for d in rel}
    return round(100 * len(wanted & reachable) / len(wanted), 1) if wanted else 0.0
