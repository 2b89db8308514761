"""How a retrieve ranks: every knob of its stages, each with the measurement that chose it (settings carry
their ``SABIO_*`` name as alias; chalicelib/config/section.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, SecretStr

from chalicelib.config.section import ConfigSection, setting
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.registry import RERANKERS


class RerankConfig(ConfigSection):
    """Rerank (optional): a second stage reads the question with each of the first stage's top candidates."""

    kind: Annotated[str, AfterValidator(RERANKERS.require)] = setting(
        "reranker",
        "none",
        "cross-encoder (a local model path), bedrock (Amazon Bedrock Rerank), http (a /rerank "
        "endpoint: TEI, Cohere, Jina, vLLM), llm (the OpenAI-compatible LLM, listwise); none: first stage only",
    )
    model: str | None = setting(
        "reranker_model",
        None,
        "cross-encoder: a local model directory (e.g. BAAI/bge-reranker-v2-m3 baked into the image); "
        "bedrock: a model id or ARN (default amazon.rerank-v1:0); http: the model name sent, if the server wants one",
    )
    url: str | None = setting("reranker_url", None, "http: the endpoint, e.g. http://tei:8080/rerank")
    api_key: SecretStr | None = setting("reranker_api_key", None, "http: sent as a Bearer token")
    candidates: int = setting(
        "rerank_candidates", 30, "the first stage's top N the reranker reads", ge=1, le=200
    )
    budget_ms: float = setting(
        "rerank_budget_ms", 1500, "past it the first-stage order stands (and a note says so)", gt=0, le=30000
    )
    blend: float = setting(
        "rerank_blend",
        1.0,
        "1: the reranker's order; below 1 its ranks blended with the first stage's",
        ge=0,
        le=1,
    )
    max_length: int = setting(
        "rerank_max_length", 512, "cross-encoder: tokens per question + passage", ge=16, le=8192
    )


class RetrievalConfig(ConfigSection):
    """Retrieval: how a question's candidates are found, fused and chosen."""

    languages: tuple[str, ...] = DEFAULT_LANGUAGES  # the deployment's (Settings.languages)
    candidates: int = setting(
        "retrieval_candidates", 50, "candidates per retriever (dense, BM25) before fusion", ge=5, le=1000
    )
    rrf_k: int = setting(
        "rrf_k", 60, "reciprocal rank fusion's constant (fusion=rrf, and bootstrap's subqueries)", ge=1
    )
    fusion: Literal["score", "rrf"] = setting(
        "fusion", "score", "how dense and BM25 lists merge: normalised scores or reciprocal ranks"
    )
    duplicate_threshold: float = setting(
        "duplicate_threshold", 0.6, "5-gram Jaccard above which a chunk is a near-duplicate", gt=0, le=1
    )
    hyde: bool = setting(
        "retrieval_hyde",
        False,
        "with an LLM: HyDE for every request (a request's hyde field decides for itself)",
    )
    hyde_budget_s: float = setting(
        "hyde_budget_s", 2.0, "HyDE's time budget; past it the question is searched alone", gt=0, le=30
    )
    # dense scores are CSLS: cosine minus this much of the chunk's mean cosine to its nearest chunks, so that
    # chunks close to everything stop coming first for every question (docs/evaluation.md); 0: cosine
    hubness_weight: float = setting(
        "hubness_weight",
        0.15,
        "dense scores minus this much of a chunk's mean cosine to its 10 nearest chunks (CSLS): "
        "chunks near everything (changelogs, link lists) stop filling every list; 0 ranks by cosine",
        ge=0,
        le=2,
    )
    # LLM query rewriting: a short question expanded, a multi-part one split; each rewrite's dense and BM25
    # lists fused beside the question's at ``rewrite_weight``, within the budget
    rewrite: bool = setting(
        "retrieval_rewrite",
        False,
        "with an LLM: a short question is expanded and a multi-part one split, each rewrite searched "
        "beside it (applied.rewrites); a failure searches the question alone (rewrite.reason)",
    )
    rewrite_budget_s: float = setting(
        "rewrite_budget_s",
        2.0,
        "query rewriting's time budget; past it the question is searched alone",
        gt=0,
        le=30,
    )
    rewrite_weight: float = 0.7
    # the second stage (SABIO_RERANKER): its top N, time budget and blend with the first stage's order
    rerank: RerankConfig = RerankConfig()
    intents: bool = True  # intent subqueries and boosts (pricing, rules, ...)
    # hubs (changelogs): cosine points taken off their dense scores and a factor on their BM25 scores, before
    # fusion, unless the question asks about changes or the caller filters on their type (docs/evaluation.md)
    hub_penalty: float = 0.03
    hub_bm25_weight: float = 0.5
    pool: int = 20  # fused candidates read in full (boosts, sentence evidence, duplicates) before the top k
    # weight of a chunk's best sentence (its stored quote vectors, max cosine to the question, min-max scaled
    # over the pool) added to the fused score: one sentence that answers beats a chunk that is merely about it
    sentence_weight: float = 0.5
    cross_language_bm25: bool = True  # see Plan.words_anywhere
    cross_language_bm25_weight: float = 0.8  # that list's weight in score fusion
    # lang=auto: a question-language namespace with fewer dense hits than this (under the request's filters)
    # is (almost) empty: every language is searched instead; and this many code chunks commented in another
    # language make it one to translate the question into (CrossLanguage.holds)
    min_namespace: int = 10
    # lang=auto: another language's dense and sentence scores (min-max scaled with the question language's)
    # are multiplied by this; 1.0 since no measured set moved and Spanish-only answers reach English questions
    other_language_weight: float = 1.0
    # lang=auto and a translator: the question is also put into each other language that holds documents (or
    # code commented in it: CrossLanguage.holds) and searched there as that language's own question (dense and BM25), these lists at this weight; 0: off
    translated_weight: float = 1.0
    # the same, times this, when the question's own language has documents too but does not answer well:
    # another language's best chunk is about as close to the question as its own language's best (within
    # ``alongside_margin`` of cosine). A company folder writes most facts in one language only (the company
    # set's cross-language questions). Not when that chunk is a translation of one of the own language's
    # best (the two chunks' cosine >= ``parallel_cosine`` and ahead of the next by ``parallel_lead``): the fact
    # is written in both languages. XQuAD mixed's pairs: cosine 0.88 and lead 0.056 at their 5th percentile;
    # the company set's cross-language questions: 0.84 and 0.008 at their median
    alongside_weight: float = 1.0
    alongside_margin: float = 0.05  # also: code in another language this close is worth translating for
    # the same bilingual store, when another language's best chunk is within ``meaning_lead`` of cosine of
    # the question language's best (or ahead): that language's own dense list for the question's vector joins
    # the fusion as a list of its own (its top ``meaning_top``, at ``meaning_weight``) beside the
    # translation's lists. A machine translation loses words ("portátil" -> "portable", "ONG" -> "stops
    # ONG"); the multilingual vector keeps them. Company set: cross-language hit@1 43.8 -> 56.2, hit@5 87.5
    # -> 91.7 (docs/evaluation.md)
    meaning_weight: float = 1.0
    meaning_top: int = 10
    meaning_lead: float = -0.02
    parallel_cosine: float = 0.88
    parallel_lead: float = 0.04
    # the same, sentence by sentence: another language's best sentence for the question has a translation
    # among the question language's best chunks at this cosine (examples/: "Where is my data stored?" and
    # "¿Dónde se guardan mis datos?" 0.95; the company set's one-language facts at most 0.87; 1.0: off)
    parallel_sentence: float = 0.93
    # near-duplicate pages ("Planta de Monterrey", "Planta de Valencia"): the chunks of the one whose title
    # holds the name asked about are multiplied by this
    title_name_boost: float = 1.1
